#include "patch/merge_patch.h"

namespace dralloc::patch {

namespace {

// RFC 7386 MergePatch(target, patch) for an object `patch`, in place.
// Recursion depth is bounded by the patch's (checked) nesting.
void MergeObjectInto(Json& target, const Json& patch) {
  if (!target.is_object()) target = Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      MergeObjectInto(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

}  // namespace

StatusOr<Json> ApplyMergePatch(const Json& original, const Json& patch) {
  if (!patch.is_object()) {
    return InvalidArgumentError(
        "invalid JSON merge patch: the patch must be a JSON object, got " +
        std::string(patch.type_name()));
  }
  RETURN_IF_ERROR(CheckNestingDepth(patch, "merge patch"));
  Json result = original;
  MergeObjectInto(result, patch);
  return result;
}

}  // namespace dralloc::patch
