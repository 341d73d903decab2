#include "scheduler/unschedulable_message.h"

#include <fmt/format.h>

#include <vector>

namespace dralloc::scheduler {

void UnschedulableReasons::Add(const std::string& reason, std::string detail) {
  Entry& entry = reasons_[reason];
  if (entry.count++ == 0) entry.detail = std::move(detail);
}

void UnschedulableReasons::AddAllocatorExplanation(
    const allocator::Allocation& allocation, std::string_view node,
    const std::function<std::string(std::string_view)>& pod_claim_name) {
  if (allocation.explanation.empty()) {
    Add("cannot allocate all claims");
    return;
  }
  std::string line = allocation.explanation.front();
  // The allocator names the node ("... on node-7: ..."); per-node text
  // would not aggregate.
  const std::string on_node = fmt::format(" on {}", node);
  for (size_t at = line.find(on_node); at != std::string::npos;
       at = line.find(on_node)) {
    line.erase(at, on_node.size());
  }
  // Lines start "claim <namespace>/<name> ...".
  constexpr std::string_view kClaim = "claim ";
  if (line.starts_with(kClaim)) {
    const size_t end = line.find(' ', kClaim.size());
    const std::string_view qualified =
        std::string_view(line).substr(kClaim.size(), end - kClaim.size());
    const size_t slash = qualified.find('/');
    const std::string_view name = slash == std::string_view::npos
                                      ? qualified
                                      : qualified.substr(slash + 1);
    std::string detail = end == std::string::npos ? "" : line.substr(end + 1);
    Add(fmt::format("cannot allocate claim \"{}\"", pod_claim_name(name)),
        std::move(detail));
    return;
  }
  Add("cannot allocate all claims", std::move(line));
}

std::string UnschedulableReasons::Message(size_t nodes) const {
  std::vector<std::string> parts;
  for (const auto& [reason, entry] : reasons_) {
    parts.push_back(
        entry.detail.empty()
            ? fmt::format("{} {}", entry.count, reason)
            : fmt::format("{} {}: {}", entry.count, reason, entry.detail));
  }
  std::sort(parts.begin(), parts.end());
  if (parts.empty()) return fmt::format("0/{} nodes are available.", nodes);
  return fmt::format("0/{} nodes are available: {}.", nodes,
                     fmt::join(parts, ", "));
}

}  // namespace dralloc::scheduler
