// ClassicGpuPool: the GPUs `dralloc driver classic-example` hands out as a
// classic DRA (resource.k8s.io/v1alpha2, issue #27) control-plane driver:
// a fixed list of nodes with gpu-0 ... gpu-(N-1) each, allocated by the
// driver itself (as Kubernetes 1.30's e2e test driver did) and described to
// its node part by a resource handle (ClassicHandle).
//
// Allocate is idempotent per claim uid. A claim for a selected node takes
// the node's lowest free GPUs; an Immediate claim (no node) takes them on
// the listed node with the most free GPUs (the first such node on a tie).
// The pool is memory only: after a restart the driver restores it from the
// handles of the claims it allocated (Restore).
#ifndef DRALLOC_EXAMPLEDRIVER_CLASSIC_GPU_POOL_H_
#define DRALLOC_EXAMPLEDRIVER_CLASSIC_GPU_POOL_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/node_selector.h"
#include "common/status.h"

namespace dralloc::exampledriver {

// The resource handle data of one allocation, as JSON:
//   {"nodeName":"worker-0","gpus":["gpu-0"],"env":{"user_mode":"fast"}}
// `env` holds the claim's parameters (ConfigMap data) as user_<key> and the
// class's as admin_<key>, for the containers' environment.
struct ClassicHandle {
  std::string node_name;
  std::vector<std::string> gpus;
  std::map<std::string, std::string> env;

  std::string ToJson() const;
  // Fails with the JSON path of what is missing or malformed.
  static StatusOr<ClassicHandle> FromJson(std::string_view data);
  friend bool operator==(const ClassicHandle&, const ClassicHandle&) = default;
};

// What a claim asks of the driver, from the data of the ConfigMaps its
// parametersRef and its class's parametersRef name (either may be absent):
// "count" in the claim's is the number of GPUs (default 1); every other key
// becomes the environment variable user_<key> (claim) or admin_<key>
// (class), lowercased, as 1.30's e2e test driver did.
struct ClassicParameters {
  int count = 1;
  std::map<std::string, std::string> env;

  // Fails with the key's path when count is not a number from 1 to 128.
  static StatusOr<ClassicParameters> FromConfigMapData(
      const std::map<std::string, std::string>* claim_data,
      const std::map<std::string, std::string>* class_data);
};

class ClassicGpuPool {
 public:
  // Fails on an empty node list, a repeated node or a count out of 1..128.
  static StatusOr<ClassicGpuPool> Create(std::vector<std::string> nodes,
                                         int gpus_per_node);

  // `count` GPUs for claim `claim_uid` on `selected_node`, or on the best
  // node when it is empty. Errors say which node (or the cluster) is
  // exhausted.
  StatusOr<ClassicHandle> Allocate(const std::string& claim_uid, int count,
                                   std::string_view selected_node);
  // Frees the claim's GPUs; an unknown claim is fine (idempotent).
  void Deallocate(const std::string& claim_uid);
  // Takes back an allocation found in a claim's handle (after a restart).
  // Fails when the handle names GPUs the pool does not have or holds.
  Status Restore(const std::string& claim_uid, const ClassicHandle& handle);

  // The nodes among `potential_nodes` where `count` more GPUs do not fit
  // (unknown nodes are unsuitable too).
  std::vector<std::string> UnsuitableNodes(
      const std::vector<std::string>& potential_nodes, int count) const;

  // availableOnNodes of an allocation on `node` (matchFields metadata.name).
  static api::NodeSelector OnNode(std::string_view node);

  int FreeOn(std::string_view node) const;
  size_t allocated_claims() const { return by_claim_.size(); }

 private:
  ClassicGpuPool() = default;
  // The node's GPUs, true when taken.
  std::map<std::string, std::vector<bool>, std::less<>> used_;
  std::map<std::string, ClassicHandle> by_claim_;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_CLASSIC_GPU_POOL_H_
