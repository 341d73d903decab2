// Strategic merge patch, as served for application/strategic-merge-patch+json.
//
// Like JSON merge patch (null deletes, objects merge recursively, scalars and
// lists replace), except for lists whose rule in the PatchSchema has
// smp_merge (upstream patchStrategy:merge):
//  - lists of objects merge by the merge key (rule.keys[0]): a patch item
//    whose key matches an existing item is merged into it; other patch items
//    are added;
//  - lists of scalars (e.g. metadata.finalizers) merge as a union.
// Merged lists are ordered as upstream orders them: items named by the patch
// (or by $setElementOrder) in that order, interleaved with the items only the
// original has at their original positions; new items come after.
//
// Directives (never present in the result):
//  - {"$patch": "replace"} in a map: the map is replaced by the rest of the
//    patch map; as an item of a merge list: the list is replaced by the other
//    patch items.
//  - {"$patch": "delete"} in a map: the map is removed; as an item of a merge
//    list of objects: the item with that merge key is removed.
//  - {"$patch": "merge"} in a map: the default, a no-op.
//  - "$retainKeys": [names]: keys of the original map not listed are dropped.
//  - "$setElementOrder/<list>": [items or {key: value}]: order of the merged
//    list.
//  - "$deleteFromPrimitiveList/<list>": [values]: removes those values from
//    a merge list of scalars.
#ifndef DRALLOC_PATCH_STRATEGIC_MERGE_PATCH_H_
#define DRALLOC_PATCH_STRATEGIC_MERGE_PATCH_H_

#include "common/status.h"
#include "patch/patch_json.h"
#include "patch/patch_schema.h"

namespace dralloc::patch {

// Errors: kInvalidArgument for a malformed patch (not an object, unknown
// $patch value, merge-list item without the merge key, directive of the
// wrong type, "$patch: merge" inside a list, nesting deeper than
// kMaxNestingDepth).
StatusOr<Json> ApplyStrategicMergePatch(const Json& original, const Json& patch,
                                        const PatchSchema& schema);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_STRATEGIC_MERGE_PATCH_H_
