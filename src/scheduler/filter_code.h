// FilterCode: what a Filter plugin says about one node for one pod.
//
// Every Filter plugin (node_plugin.h, dra_plugin.h) has the same shape:
// it is a final class held by value, its Filter takes the node as a
// NodeEntry and an UnschedulableReasons, and on kUnfit it has recorded one
// reason there (the node counts once, under the first plugin that rejects
// it). Plugins run in upstream's order and the first non-kFits stops the
// node.
#ifndef DRALLOC_SCHEDULER_FILTER_CODE_H_
#define DRALLOC_SCHEDULER_FILTER_CODE_H_

#include <cstdint>

namespace dralloc::scheduler {

enum class FilterCode : uint8_t {
  kFits,   // the pod may run on the node as far as this plugin knows
  kUnfit,  // not on this node; the reason is recorded
  kError,  // a problem no node can fix (the cycle ends, nothing recorded)
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_FILTER_CODE_H_
