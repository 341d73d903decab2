// NodeUsage: what the pods on a node take from it, as the resource and
// port plugins see it (upstream's NodeInfo.Requested, NonZeroRequested,
// Allocatable and UsedPorts).
#ifndef DRALLOC_SCHEDULER_NODE_USAGE_H_
#define DRALLOC_SCHEDULER_NODE_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/types/core.h"

namespace dralloc::scheduler {

// Amounts of the resources NodeResourcesFit knows: CPU in millicores,
// memory and ephemeral storage in bytes, a pod count, and every other
// (extended, hugepages-*) resource by name in its integer units.
struct ResourceAmounts {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;
  std::map<std::string, int64_t, std::less<>> scalar;

  void Add(const ResourceAmounts& other);
  void Subtract(const ResourceAmounts& other);
  friend bool operator==(const ResourceAmounts&,
                         const ResourceAmounts&) = default;
};

// What the pod requests, as upstream's 1.37 resource helper computes it:
// the larger of (sum of containers + sidecar init containers) and each
// regular init container (with the sidecars started before it), where each
// container's requests include the perContainer overheads of the claims it
// lists and the claims' mappings and perPod overheads (status.
// nodeAllocatableResourceClaimStatuses, KEP-5517) are added once; then
// pod-level requests (spec.resources) replace cpu, memory and hugepages-*
// where set, and spec.overhead is added. `pods` is 1.
ResourceAmounts PodRequests(const api::Pod& pod);
// The same with upstream's scoring defaults for containers that request
// no CPU (100m) or memory (200Mi): what the scoring plugins count.
ResourceAmounts NonZeroPodRequests(const api::Pod& pod);
// The containers' aggregate with the claims' additions, before pod-level
// requests and spec.overhead: what pod-level requests must cover.
ResourceAmounts AggregateContainerRequests(const api::Pod& pod);
// node.status.allocatable (`pods` from its "pods" entry).
ResourceAmounts NodeAllocatable(const api::Node& node);

// A host port a container binds (hostPort != 0), for NodePorts.
struct HostPort {
  std::string ip;        // "0.0.0.0" when unset
  std::string protocol;  // "TCP" when unset
  int32_t port = 0;
  friend auto operator<=>(const HostPort&, const HostPort&) = default;
};
// The host ports of the pod's containers (and init containers).
std::vector<HostPort> PodHostPorts(const api::Pod& pod);

// The running totals for one node. AddPod and RemovePod must be given the
// same pod object version (the totals are sums).
class NodeUsage {
 public:
  void Reset(const api::Node& node);  // allocatable from the node, no pods
  void AddPod(const api::Pod& pod);
  void RemovePod(const api::Pod& pod);

  const ResourceAmounts& allocatable() const { return allocatable_; }
  // False for a Node without status.allocatable (a hypothetical node in a
  // what-if): dralloc then treats its resources as unlimited, where
  // upstream would find room for no pod at all.
  bool reports_allocatable() const { return reports_allocatable_; }
  const ResourceAmounts& requested() const { return requested_; }
  const ResourceAmounts& non_zero_requested() const {
    return non_zero_requested_;
  }
  // Host ports in use, with how many pods use each.
  const std::map<HostPort, int>& used_ports() const { return used_ports_; }

 private:
  ResourceAmounts allocatable_;
  bool reports_allocatable_ = false;
  ResourceAmounts requested_;
  ResourceAmounts non_zero_requested_;
  std::map<HostPort, int> used_ports_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_USAGE_H_
