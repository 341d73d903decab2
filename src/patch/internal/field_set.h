// Field sets of server-side apply: the FieldsV1 paths a manager owns, the
// set operations apply needs, and how paths and names read in messages.
#ifndef DRALLOC_PATCH_INTERNAL_FIELD_SET_H_
#define DRALLOC_PATCH_INTERNAL_FIELD_SET_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::patch::internal {

// A field path as FieldsV1 tokens: "f:spec", "k:{\"name\":\"a\"}", "v:\"x\"".
using FieldPath = std::vector<std::string>;
// std::set keeps every extension of a path right after the path itself,
// which HasOwnedDescendant relies on.
using FieldSet = std::set<FieldPath>;

bool StartsWith(const FieldPath& path, const FieldPath& prefix);
// True when `set` holds `path` or a path below it.
bool HasOwnedDescendant(const FieldSet& set, const FieldPath& path);
// Inserts `path` unless it is the root (empty).
void Insert(FieldSet& set, const FieldPath& path);
FieldSet Difference(const FieldSet& a, const FieldSet& b);
FieldSet Intersection(const FieldSet& a, const FieldSet& b);
// Drops the fields that are never recorded as managed (upstream stripmeta).
void RemoveIgnored(FieldSet& set);

// `text` in double quotes with '"' and '\\' escaped (Go's %q on printable
// ASCII).
std::string Quoted(std::string_view text);
// The path as upstream prints it in conflicts:
// ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"]".
std::string HumanPath(const FieldPath& path);

}  // namespace dralloc::patch::internal

#endif  // DRALLOC_PATCH_INTERNAL_FIELD_SET_H_
