// JSON patch (RFC 6902), as served for application/json-patch+json.
#ifndef DRALLOC_PATCH_JSON_PATCH_H_
#define DRALLOC_PATCH_JSON_PATCH_H_

#include "common/status.h"
#include "patch/patch_json.h"

namespace dralloc::patch {

// Applies the operations of `patch` (a JSON array of operation objects) to a
// copy of `original`, in order, all or nothing.
//
// Supports add, remove, replace, move, copy and test; JSON pointers
// (RFC 6901) with ~0/~1 escapes; "-" as the index past the end of an array
// for add/move/copy destinations; test by structural equality (JsonEqual).
//
// Errors:
//  - kInvalidArgument: the patch document is malformed (not an array, an
//    operation that is not an object, unknown "op", missing or non-string
//    "path"/"from", missing "value", bad pointer syntax, a move into its own
//    child, nesting deeper than kMaxNestingDepth).
//  - kFailedPrecondition: a well-formed operation does not apply to this
//    document (test failed, path missing for remove/replace/move/copy/test,
//    missing parent for add, array index out of range or not a number).
StatusOr<Json> ApplyJsonPatch(const Json& original, const Json& patch);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_JSON_PATCH_H_
