// JSON merge patch (RFC 7386), as served for application/merge-patch+json.
#ifndef DRALLOC_PATCH_MERGE_PATCH_H_
#define DRALLOC_PATCH_MERGE_PATCH_H_

#include "common/status.h"
#include "patch/patch_json.h"

namespace dralloc::patch {

// Merges `patch` into a copy of `original`: null deletes a member, objects
// merge recursively, every other value (lists included) replaces. Members of
// the original keep their order; new members are appended in patch order.
//
// RFC 7386 lets a non-object patch replace the whole document; a Kubernetes
// object patch must be an object, so anything else is kInvalidArgument, as
// is nesting deeper than kMaxNestingDepth.
StatusOr<Json> ApplyMergePatch(const Json& original, const Json& patch);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_MERGE_PATCH_H_
