#include "patch/patch_json.h"

#include <utility>
#include <vector>

namespace dralloc::patch {

Status CheckNestingDepth(const Json& document, std::string_view what) {
  std::vector<std::pair<const Json*, int>> pending = {{&document, 1}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth > kMaxNestingDepth) {
      return InvalidArgumentError(
          std::string(what) + " is nested too deeply (more than " +
          std::to_string(kMaxNestingDepth) + " levels)");
    }
    for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
  }
  return OkStatus();
}

namespace {

bool JsonEqualAtDepth(const Json& a, const Json& b, int depth) {
  if (depth > kMaxNestingDepth + 1) return false;
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      auto other = b.find(key);
      if (other == b.end() || !JsonEqualAtDepth(value, *other, depth + 1))
        return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!JsonEqualAtDepth(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (a.is_structured() || b.is_structured()) return false;
  return a == b;
}

}  // namespace

bool JsonEqual(const Json& a, const Json& b) {
  return JsonEqualAtDepth(a, b, 1);
}

std::string DumpCompact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace dralloc::patch
