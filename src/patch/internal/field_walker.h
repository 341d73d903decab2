// FieldWalker: walks JSON objects with the list rules of a PatchSchema to
// collect, compare, merge and remove the fields of server-side apply.
#ifndef DRALLOC_PATCH_INTERNAL_FIELD_WALKER_H_
#define DRALLOC_PATCH_INTERNAL_FIELD_WALKER_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "patch/internal/field_set.h"
#include "patch/patch_json.h"
#include "patch/patch_schema.h"

namespace dralloc::patch::internal {

// Walks objects with the list rules of a PatchSchema.
class FieldWalker {
 public:
  // `lenient`: list items that cannot be identified are skipped instead of
  // reported (used on live objects and for Update bookkeeping).
  FieldWalker(const PatchSchema& schema, bool lenient)
      : schema_(schema), lenient_(lenient) {}

  static const ListRule* MergeableRule(const PatchSchema& schema,
                                       const std::string& schema_path) {
    const ListRule* rule = schema.FindList(schema_path);
    if (rule == nullptr || rule->kind == ListKind::kAtomic) return nullptr;
    if (rule->kind == ListKind::kMap && rule->keys.empty()) return nullptr;
    return rule;
  }

  // The FieldsV1 token of a list item, or an error when it has no identity.
  static StatusOr<std::string> ItemToken(const Json& item, const ListRule& rule,
                                         const std::string& schema_path);

  // Tokens of all items of a list; unidentifiable items get a token no
  // other item can have (lenient) or fail; duplicates fail unless lenient.
  StatusOr<std::vector<std::string>> ItemTokens(
      const Json& list, const ListRule& rule,
      const std::string& schema_path) const;

  // Adds the fields `value` consists of (scalars, empty objects, atomic
  // lists, and every item of mergeable lists) under `path`.
  // With `containers`, non-empty objects are included as well (how a
  // comparison reports a subtree that appeared or disappeared).
  Status Collect(const Json& value, FieldPath& path,
                 const std::string& schema_path, FieldSet& out,
                 bool containers = false) const;

  struct Comparison {
    FieldSet modified;
    FieldSet added;
    FieldSet removed;
  };

  // Records how `rhs` differs from `lhs` (either may be null = absent).
  void Compare(const Json* lhs, const Json* rhs, FieldPath& path,
               const std::string& schema_path, Comparison& out) const;

  // Merges the applied `config` into `live` (apply's merge semantics).
  Json Merge(const Json& live, const Json& config,
             const std::string& schema_path) const;

  // Removes the field at `path` from `object` if present; then removes
  // containers it leaves empty, up to (excluding) the first one that is
  // itself owned in `owned`.
  void RemoveField(Json& object, const FieldPath& path,
                   const FieldSet& owned) const;

 private:
  const PatchSchema& schema_;
  bool lenient_;
};

}  // namespace dralloc::patch::internal

#endif  // DRALLOC_PATCH_INTERNAL_FIELD_WALKER_H_
