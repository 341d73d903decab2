// PatchSchema: how each list field of a kind merges, keyed by field path.
//
// The strategic merge patch and server-side apply engines need to know, for
// every list, whether it is replaced whole (atomic), merged as a set of
// scalars, or merged as a map keyed by some of its items' fields. Upstream
// takes this from Go struct tags (patchStrategy/patchMergeKey and
// +listType/+listMapKey); here from the same facts in the API types' field
// tables (api/reflect.h ListRule), collected once per kind.
//
// Paths are dotted field names from the object root, with each list level
// written as "[]": "metadata.finalizers", "status.devices[].conditions",
// "spec.containers[].ports". A list without a rule is atomic.
#ifndef DRALLOC_PATCH_PATCH_SCHEMA_H_
#define DRALLOC_PATCH_PATCH_SCHEMA_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource_registry.h"
#include "patch/patch_json.h"

namespace dralloc::patch {

enum class ListKind {
  kAtomic,  // +listType=atomic: replaced whole, owned as one leaf by SSA.
  kSet,     // +listType=set: a set of scalars.
  kMap,     // +listType=map: items identified by the `keys` fields.
};

struct ListRule {
  ListKind kind = ListKind::kAtomic;
  // Merge keys for kMap (+listMapKey, in declaration order). Strategic merge
  // patch uses keys[0] (the single patchMergeKey).
  std::vector<std::string> keys;
  // patchStrategy:merge in the upstream Go tags. When false, strategic merge
  // patch replaces the list even if it is a set or a map for apply.
  bool smp_merge = false;
};

class PatchSchema {
 public:
  // Every rule, by path.
  const std::map<std::string, ListRule, std::less<>>& lists() const {
    return lists_;
  }
  // Adds or replaces the rule for the list at `path`.
  void AddList(std::string path, ListRule rule);
  // The rule for the list at `path`, or nullptr (atomic).
  const ListRule* FindList(std::string_view path) const;

 private:
  std::map<std::string, ListRule, std::less<>> lists_;
};

// Rules for the objects of `resource`, one of api::AllResources(). The
// returned reference is to an immutable static; safe to share between
// threads.
const PatchSchema& SchemaFor(const api::ResourceInfo& resource);
// The same for a kind named `kind` (the structured family's kind for a name
// both families use). Every kind, including unknown ones, has the
// ObjectMeta rules (finalizers, ownerReferences, managedFields).
const PatchSchema& SchemaForKind(std::string_view kind);

// Appends `field` to a schema path: "" + "spec" -> "spec",
// "spec" + "devices" -> "spec.devices".
std::string JoinSchemaPath(std::string_view path, std::string_view field);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_PATCH_SCHEMA_H_
