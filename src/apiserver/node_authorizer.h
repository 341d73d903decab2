// NodeAuthorizer: `--authorization-mode=Node`, upstream's node authorizer
// (plugin/pkg/auth/authorizer/node) with AuthorizeNodeWithSelectors on, for
// the resources dralloc serves. It decides only for node users
// (`system:node:<name>` in system:nodes); every other user gets NoOpinion,
// and so does every node request it does not allow (upstream never denies:
// the next authorizer, or the union's final "no", decides).
//
// What a node may do:
//  - resourceslices: create (NodeRestriction admission checks
//    spec.nodeName); get, update, patch, delete of a slice whose stored
//    spec.nodeName is the node; list, watch, deletecollection only with the
//    field selector spec.nodeName=<node>; no subresources.
//  - resourceclaims: get of a claim a pod bound to the node uses (the
//    graph, NodeAuthorizerGraph).
//  - pods: get of a pod bound to the node; list and watch with the field
//    selector spec.nodeName=<node> (or of one pod bound to it); create and
//    delete (mirror pods), status update and patch, eviction create (all
//    limited by NodeRestriction).
//  - nodes: get, list, watch of its own Node; create, update, patch (and of
//    status) of any name (NodeRestriction limits them to itself).
//  - leases in kube-node-lease named after the node.
//  - secrets and configmaps: get, list and watch of one object (by name) a
//    pod bound to the node uses; serviceaccounts/token: create for the
//    service account of a pod bound to the node (the graph).
//  - everything else: the static rules of upstream's system:node role
//    (bootstrappolicy NodeRules) for the resources dralloc serves.
//
// Slices and pods are checked against the stored object (one key read);
// claims, secrets, configmaps and service accounts against the graph, which
// follows the store: before refusing one the authorizer waits (bounded) for
// the graph to reach the store's current revision, so a pod bound a moment
// ago is not refused for a lagging graph.
//
// Thread-safe.
#ifndef DRALLOC_APISERVER_NODE_AUTHORIZER_H_
#define DRALLOC_APISERVER_NODE_AUTHORIZER_H_

#include <chrono>
#include <string>
#include <string_view>

#include "apiserver/node_authorizer_graph.h"
#include "auth/authorizer.h"
#include "store/store.h"

namespace dralloc::apiserver {

class NodeAuthorizer : public auth::Authorizer {
 public:
  // `store` is the API server's store; it must outlive the authorizer.
  explicit NodeAuthorizer(store::Store& store);

  // Builds the graph from the store and starts following it. Call before
  // the server serves requests; the destructor stops it.
  void Start() { graph_.Start(); }
  void Stop() { graph_.Stop(); }

  auth::AuthorizationResult Authorize(
      const auth::RequestAttributes& attributes) const override;
  // Node users: the static rules, with `incomplete` set (the rest depends
  // on the objects). Others: nothing.
  void RulesFor(const auth::UserInfo& user, std::string_view namespace_,
                auth::RuleSet& rules) const override;

  const NodeAuthorizerGraph& graph() const { return graph_; }
  // How long a refusal waits for the graph to catch up (default 1 s).
  void set_graph_wait(std::chrono::milliseconds wait) { graph_wait_ = wait; }

 private:
  using Result = auth::AuthorizationResult;
  using Attributes = auth::RequestAttributes;

  Result AuthorizeResourceSlice(std::string_view node,
                                const Attributes& attributes) const;
  Result AuthorizeClaim(std::string_view node,
                        const Attributes& attributes) const;
  Result AuthorizePod(std::string_view node,
                      const Attributes& attributes) const;
  Result AuthorizeNode(std::string_view node,
                       const Attributes& attributes) const;
  Result AuthorizeLease(std::string_view node,
                        const Attributes& attributes) const;
  Result AuthorizeReadNamespaced(std::string_view node,
                                 const Attributes& attributes) const;
  Result AuthorizeCreateToken(std::string_view node,
                              const Attributes& attributes) const;
  Result AuthorizeByStaticRules(const Attributes& attributes) const;

  // The nodeName of the object stored at `key`: spec.nodeName, or the
  // top-level nodeName of a v1alpha2 slice (`top_level`).
  std::string StoredNodeName(const std::string& key,
                             bool top_level = false) const;
  // Whether a pod bound to `node` uses the object (see
  // NodeAuthorizerGraph::UsedOnNode), asking the graph again once it has
  // caught up with the store.
  bool Related(std::string_view resource, std::string_view node,
               std::string_view namespace_, std::string_view name) const;

  store::Store& store_;
  NodeAuthorizerGraph graph_;
  std::chrono::milliseconds graph_wait_{1000};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_NODE_AUTHORIZER_H_
