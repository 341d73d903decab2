// UnschedulableReasons: why no node fits a pod, summarised the way
// kube-scheduler reports it ("0/3 nodes are available: 1 node(s) had
// untolerated taint {gpu: true}, 2 cannot allocate claim \"gpu\": ...").
#ifndef DRALLOC_SCHEDULER_UNSCHEDULABLE_MESSAGE_H_
#define DRALLOC_SCHEDULER_UNSCHEDULABLE_MESSAGE_H_

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "allocator/allocator.h"

namespace dralloc::scheduler {

class UnschedulableReasons {
 public:
  // One node failed for `reason` (node-independent text).
  void Add(const std::string& reason, std::string detail = "");
  // One node failed because the allocator found no devices: the reason
  // names the pod's claim (via `pod_claim_name`, which maps a claim object
  // name to the pod's name for it) and keeps the allocator's first line
  // (without the node name) as the detail.
  void AddAllocatorExplanation(
      const allocator::Allocation& allocation, std::string_view node,
      const std::function<std::string(std::string_view)>& pod_claim_name);
  // "0/N nodes are available: <count> <reason>[: detail], ...", reasons in
  // alphabetical order as upstream sorts them.
  std::string Message(size_t nodes) const;

 private:
  struct Entry {
    size_t count = 0;
    std::string detail;  // from the first node with this reason
  };
  std::map<std::string, Entry> reasons_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_UNSCHEDULABLE_MESSAGE_H_
