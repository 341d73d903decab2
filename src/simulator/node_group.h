// NodeGroup: a group of identical nodes an autoscaler can add, read from
// YAML documents
//
//   apiVersion: dralloc.io/v1alpha1
//   kind: NodeGroup
//   metadata: {name: gpu}
//   spec:
//     minSize: 0
//     maxSize: 10
//     priority: 10          # for the priority expander (higher first)
//     template:
//       node: {...}         # a Node (name, labels, taints, allocatable)
//       resourceSlices: [...]
//
// A new node is named `<group>-<n>` and labelled kubernetes.io/hostname with
// that name (as a kubelet registers it); in its slices every occurrence of the
// template node's name in metadata.name, spec.nodeName and spec.pool.name is
// replaced by the new name. Slices without spec.nodeName (network-attached
// pools) are taken as they are, once per group.
#ifndef DRALLOC_SIMULATOR_NODE_GROUP_H_
#define DRALLOC_SIMULATOR_NODE_GROUP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "common/status.h"

namespace dralloc::simulator {

struct NodeGroup {
  std::string name;
  int64_t min_size = 0;
  int64_t max_size = 0;
  int64_t priority = 0;
  api::Node template_node;
  std::vector<api::ResourceSlice> node_slices;    // with spec.nodeName
  std::vector<api::ResourceSlice> shared_slices;  // network-attached

  // The node named `name` and its slices, renamed from the template.
  api::Node NewNode(const std::string& name) const;
  std::vector<api::ResourceSlice> NewSlices(const std::string& name) const;
};

// Parses the NodeGroup documents of `text` (named `source` in errors).
// Errors are kInvalidArgument, Kubernetes style: "NodeGroup gpu:
// spec.maxSize: Invalid value: -1: must be greater than or equal to 0".
StatusOr<std::vector<NodeGroup>> ParseNodeGroups(std::string_view text,
                                                 std::string_view source);

}  // namespace dralloc::simulator

#endif  // DRALLOC_SIMULATOR_NODE_GROUP_H_
