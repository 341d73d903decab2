// NodeEntry: one node as the scheduling plugins see it: the Node, its
// labels for selectors, the pods bound or assumed to it, and what they use.
#ifndef DRALLOC_SCHEDULER_NODE_ENTRY_H_
#define DRALLOC_SCHEDULER_NODE_ENTRY_H_

#include <vector>

#include "allocator/node_info.h"
#include "api/object.h"
#include "client/api_client.h"
#include "scheduler/node_usage.h"

namespace dralloc::scheduler {

// A pod on a node; `object` keeps `pod` alive.
struct NodePod {
  client::ObjectPtr object;
  const api::Pod* pod = nullptr;
};

// Whether the pod has any pod affinity or anti-affinity term, and whether
// it has a required anti-affinity term.
bool HasPodAffinity(const api::Pod& pod);
bool HasRequiredAntiAffinity(const api::Pod& pod);

struct NodeEntry {
  client::ObjectPtr object;  // keeps `node` alive
  const api::Node* node = nullptr;
  allocator::NodeInfo info;
  // Pods bound to the node (spec.nodeName) or assumed there by the
  // scheduler, not finished; in no particular order.
  std::vector<NodePod> pods;
  // The subset of `pods` with any pod affinity or anti-affinity term, and
  // with a required anti-affinity term (upstream's PodsWithAffinity and
  // PodsWithRequiredAntiAffinity), so that plugins need not scan every pod.
  std::vector<NodePod> pods_with_affinity;
  std::vector<NodePod> pods_with_required_anti_affinity;
  NodeUsage usage;
  // Identifies the entry for caches indexed per node (FilterCache): unique
  // among the entries the snapshot created since its last full node
  // rebuild (nodes_generation), and kept while the entry lives, also when
  // nodes added or removed one at a time move it in nodes().
  size_t cache_slot = 0;

  // Counts `pod` (the Pod in `object`) here: pods, the affinity subsets and
  // usage. Returns whether it has any pod affinity term.
  bool AddPod(const client::ObjectPtr& object);
  // Stops counting it; `removed` false when it was not counted here.
  // Returns whether it was in pods_with_affinity.
  bool RemovePod(const client::ObjectPtr& object, bool& removed);
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_ENTRY_H_
