// NodeAuthorizerGraph: which pods are bound to which node, and which
// objects those pods use (upstream's node authorizer graph with the edges
// node <- pod <- ResourceClaim, Secret, ConfigMap, ServiceAccount, fed by its
// graph populator), so that the node authorizer answers "is this object used
// on node N" without a store scan per request.
//
// Kept current from the store: a list of the pods, then a watch of the
// `/pods/` prefix; a watch that falls behind the store's event window
// (kOutOfRange, HTTP 410) relists. A pod enters the graph once it has a
// spec.nodeName (unbound pods relate to no node) and leaves it when deleted.
// What a pod uses:
//  - resourceclaims: what its spec.resourceClaims entries resolve to, as
//    upstream's resourceclaim.Name resolves them: a resourceClaimName
//    directly, a template through the pod.status.resourceClaimStatuses entry
//    of the same name (no entry yet, or no claim needed: no edge);
//  - secrets: imagePullSecrets, secret volumes and projected secret sources,
//    env secretKeyRef and envFrom secretRef of every container;
//  - configmaps: configMap volumes and projected sources, env
//    configMapKeyRef and envFrom configMapRef;
//  - serviceaccounts: spec.serviceAccountName.
//
// Thread-safe: queries take the lock briefly; one thread applies the events.
#ifndef DRALLOC_APISERVER_NODE_AUTHORIZER_GRAPH_H_
#define DRALLOC_APISERVER_NODE_AUTHORIZER_GRAPH_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "store/store.h"

namespace dralloc::apiserver {

class NodeAuthorizerGraph {
 public:
  // `store` must outlive the graph (or be shut down before it is).
  explicit NodeAuthorizerGraph(store::Store& store);
  ~NodeAuthorizerGraph();
  NodeAuthorizerGraph(const NodeAuthorizerGraph&) = delete;
  NodeAuthorizerGraph& operator=(const NodeAuthorizerGraph&) = delete;

  // Lists the pods (the graph is complete as of that list when Start
  // returns), then follows their changes on a thread of its own.
  void Start();
  // Ends the thread; idempotent. Queries keep answering from the last state.
  void Stop();

  // Whether pod `namespace_`/`name` is bound to `node`.
  bool PodOnNode(std::string_view namespace_, std::string_view name,
                 std::string_view node) const;
  // Whether a pod bound to `node` uses the object `namespace_`/`name` of
  // `resource` ("resourceclaims", "secrets", "configmaps",
  // "serviceaccounts").
  bool UsedOnNode(std::string_view resource, std::string_view namespace_,
                  std::string_view name, std::string_view node) const;
  bool ClaimUsedOnNode(std::string_view namespace_, std::string_view claim,
                       std::string_view node) const {
    return UsedOnNode("resourceclaims", namespace_, claim, node);
  }

  // The store revision the graph reflects: every pod write up to it is in.
  int64_t revision() const;
  // Waits until revision() >= `revision`, at most `timeout`; true if reached.
  // Tests call it after a write; the authorizer calls it before denying, so
  // that a pod bound a moment ago is not refused for a lagging graph.
  bool WaitForRevision(int64_t revision,
                       std::chrono::milliseconds timeout) const;

 private:
  struct PodEdges {
    std::string node;
    // (resource, name) of what the pod uses, in its namespace.
    std::vector<std::pair<std::string, std::string>> uses;
  };

  // "namespace/name" of a pod key "/pods/<namespace>/<name>".
  static std::string PodId(std::string_view key);
  // The node and the used objects of a stored pod (no node: not bound).
  static PodEdges EdgesOf(std::string_view stored_pod);

  // Rebuilds the graph from a list of the pods; returns the list revision.
  int64_t Relist();
  void Run(std::unique_ptr<store::Watcher> watcher);
  // Replaces the edges of pod `id` (empty node: removes the pod).
  void SetPod(const std::string& id, PodEdges edges) REQUIRES(mu_);
  void RemovePod(const std::string& id) REQUIRES(mu_);
  void Advance(int64_t revision) EXCLUDES(mu_);

  store::Store& store_;
  mutable Mutex mu_;
  mutable CondVar advanced_;
  // pod id -> its edges (bound pods only)
  std::unordered_map<std::string, PodEdges> pods_ GUARDED_BY(mu_);
  // "<resource>/<namespace>/<name>" -> node -> number of pods on that node
  // using it
  std::unordered_map<std::string, std::unordered_map<std::string, int>> used_on_
      GUARDED_BY(mu_);
  int64_t revision_ GUARDED_BY(mu_) = 0;

  // The watch Run reads (owned by Run), for Stop to wake it.
  Mutex watcher_mu_;
  store::Watcher* watcher_ GUARDED_BY(watcher_mu_) = nullptr;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_NODE_AUTHORIZER_GRAPH_H_
