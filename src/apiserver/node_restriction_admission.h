// NodeRestrictionAdmission: upstream's NodeRestriction admission plugin
// (plugin/pkg/admission/noderestriction) for the kinds dralloc serves. It
// restricts writes by node users (`system:node:<name>` in system:nodes) to
// what belongs to that node, completing the node authorizer, which cannot
// see a create's object or check what a write changes:
//  - resourceslices: create, update and delete only of slices whose
//    spec.nodeName is the node (upstream checks create and delete; update is
//    also covered by the authorizer and nodeName's immutability);
//  - pods: create only of mirror pods bound to the node and owned by its
//    Node; delete only of pods bound to it; status updates only of pods
//    bound to it, without changing labels or resourceClaimStatuses; no other
//    writes and no other subresources;
//  - nodes: writes only of its own Node; on create no labels under
//    node-restriction.kubernetes.io/ nor kubernetes.io/ and k8s.io labels a
//    kubelet may not set; on update no change of such labels nor of taints;
//  - leases: only in kube-node-lease and named after the node.
// Refusals are 403 Forbidden, worded as upstream's admission.NewForbidden:
// `<resource> "<name>" is forbidden: <reason>`.
//
// Writes of other users, and of the server's in-process components (no
// user), pass untouched. Thread-safe.
#ifndef DRALLOC_APISERVER_NODE_RESTRICTION_ADMISSION_H_
#define DRALLOC_APISERVER_NODE_RESTRICTION_ADMISSION_H_

#include <optional>
#include <string>
#include <string_view>

#include "apiserver/admission_plugin.h"
#include "store/store.h"

namespace dralloc::apiserver {

class NodeRestrictionAdmission : public AdmissionPlugin {
 public:
  // `store` (the server's, outliving the plugin) is read for the node's uid
  // when a node creates a mirror pod.
  explicit NodeRestrictionAdmission(store::Store& store) : store_(store) {}

  std::optional<ApiError> Admit(const AdmissionRequest& request) override;

 private:
  using Refusal = std::optional<ApiError>;

  Refusal AdmitPod(std::string_view node, const AdmissionRequest& request);
  Refusal AdmitPodCreate(std::string_view node,
                         const AdmissionRequest& request);
  Refusal AdmitMirrorPodOwner(std::string_view node,
                              const AdmissionRequest& request);
  Refusal AdmitPodStatus(std::string_view node,
                         const AdmissionRequest& request);
  Refusal AdmitNode(std::string_view node, const AdmissionRequest& request);
  Refusal AdmitResourceSlice(std::string_view node,
                             const AdmissionRequest& request);
  Refusal AdmitLease(std::string_view node, const AdmissionRequest& request);

  // metadata.uid of the stored Node `node` ("" when absent).
  std::string StoredNodeUid(std::string_view node) const;

  store::Store& store_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_NODE_RESTRICTION_ADMISSION_H_
