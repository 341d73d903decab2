// PodEvaluator: what a Pod costs in quota, as upstream's pod evaluator
// (pkg/quota/v1/evaluator/core/pods.go) counts:
//
//   count/pods                        1 per stored pod, always
//   pods                              1 while the pod is not terminal
//   cpu, requests.cpu, limits.cpu     api::TotalPodRequests / TotalPodLimits
//   memory, ..., ephemeral-storage    of cpu, likewise memory and ephemeral
//                                     storage
//   hugepages-<size>, requests.hugepages-<size>
//   requests.<name>                   every extended resource the pod
//                                     requests (example.com/gpu) and every
//                                     implicit DeviceClass name
//                                     (deviceclass.resource.kubernetes.io/
//                                     <class>, KEP-5004)
//
// A pod stops being charged for anything but count/pods once it has
// succeeded or failed, or once its deletion grace period is over.
//
// A quota constrains a pod when its status.hard names one of these and
// every scope (spec.scopes, spec.scopeSelector) matches the pod:
// Terminating / NotTerminating (spec.activeDeadlineSeconds >= 0),
// BestEffort / NotBestEffort (QoS class), PriorityClass (In, NotIn, Exists,
// DoesNotExist on spec.priorityClassName) and CrossNamespacePodAffinity (an
// affinity term naming namespaces or a namespace selector).
#ifndef DRALLOC_QUOTA_POD_EVALUATOR_H_
#define DRALLOC_QUOTA_POD_EVALUATOR_H_

#include <optional>
#include <string>
#include <vector>

#include "api/types/core.h"
#include "api/types/resource_quota.h"
#include "common/clock.h"

namespace dralloc::quota {

class PodEvaluator {
 public:
  static api::ResourceList Usage(const api::Pod& pod, SystemTime now);
  // Whether compute resources are charged for `pod` at `now`: not
  // Succeeded or Failed, and not deleted longer ago than its grace period.
  static bool ChargesCompute(const api::Pod& pod, SystemTime now);
  // The names among `names` that this evaluator charges, in input order.
  static std::vector<std::string> MatchingResources(
      const std::vector<std::string>& names);
  // Whether `quota` constrains `pod`: a matching resource in status.hard
  // and every scope matching.
  static bool Matches(const api::ResourceQuota& quota, const api::Pod& pod);
  // Whether every scope of `quota` matches `pod` (true without scopes; an
  // unknown scope matches no pod).
  static bool MatchesScopes(const api::ResourceQuota& quota,
                            const api::Pod& pod);
  // Upstream's backward-compatible rule: a quota that constrains cpu or
  // memory (among `constrained`) requires every container to state that
  // request or limit. The failure reads "must specify limits.cpu for: a,b;
  // requests.memory for: a"; nullopt when every container does.
  static std::optional<std::string> MissingRequests(
      const std::vector<std::string>& constrained, const api::Pod& pod);
};

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_POD_EVALUATOR_H_
