// Server-side apply and field ownership (metadata.managedFields), as served
// for application/apply-patch+yaml and recorded for every other write.
//
// Ownership is tracked per manager as a set of field paths, stored in each
// managedFields entry as FieldsV1:
//   {"f:metadata":{"f:labels":{"f:app":{}}},
//    "f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}}
// "f:<name>" is an object field, k:{...} a map-list item (compact JSON of its
// key fields, sorted by name), v:<json> a set-list item, "." the element
// itself when it also has owned children. Atomic lists and scalars are
// owned as leaves. apiVersion, kind, metadata.name/namespace/uid/
// resourceVersion/generation/creationTimestamp/managedFields are never
// recorded.
//
// Semantics follow Kubernetes (sigs.k8s.io/structured-merge-diff):
//  - The applied configuration's field set becomes the manager's Apply set.
//  - The applied object merges into the live one: objects recursively,
//    map-lists by key, set-lists as a union, everything else replaces.
//  - Fields the manager applied before but omits now are removed from the
//    object unless another manager owns them.
//  - A field whose value the apply changes (or adds) and that another
//    manager owns is a conflict; with force, ownership moves to the applier.
//    Applying the same value as another manager shares ownership.
//  - Non-apply writes (RecordUpdate) give the writer operation "Update"
//    ownership of what changed and take it from everybody else.
#ifndef DRALLOC_PATCH_SERVER_SIDE_APPLY_H_
#define DRALLOC_PATCH_SERVER_SIDE_APPLY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "patch/patch_json.h"
#include "patch/patch_schema.h"

namespace dralloc::patch {

struct ApplyOptions {
  std::string manager;      // fieldManager of the request
  bool force = false;       // force=true: take conflicting fields over
  std::string api_version;  // of the request, recorded in managedFields
  std::string now;          // RFC 3339 time recorded in managedFields
  std::string subresource;  // "" or "status"
};

struct FieldConflict {
  std::string manager;      // the other manager that owns the field
  std::string field;        // ".spec.devices.requests" style
  std::string api_version;  // the other manager's apiVersion
  std::string subresource;  // the other manager's subresource, if any
};

struct ApplyOutcome {
  // The merged object with updated metadata.managedFields. Unspecified when
  // `conflicts` is non-empty.
  Json object;
  // Non-empty means the apply was refused (never when options.force).
  std::vector<FieldConflict> conflicts;
};

// Applies `applied` (the full applied configuration) to `live` (null when
// the object does not exist yet). metadata.managedFields, resourceVersion,
// uid, creationTimestamp and generation in `applied` are ignored; null
// values in `applied` are dropped. Validation and metadata defaults are the
// caller's job.
//
// Errors (kInvalidArgument): `applied` is not an object, no manager, a
// map-list item without any key field or with a duplicate key, a set-list
// item that is not a scalar, nesting deeper than kMaxNestingDepth.
StatusOr<ApplyOutcome> ServerSideApply(const Json& live, const Json& applied,
                                       const PatchSchema& schema,
                                       const ApplyOptions& options);

// Records an Update operation (PUT/POST/non-apply PATCH) by options.manager
// in `new_object`'s managedFields: the fields that changed between
// `old_object` (null for create) and `new_object` become owned by the
// manager (operation "Update") and are removed from the other managers'
// sets. Managed fields supplied in `new_object` replace the old ones; a
// single empty entry ([{}]) resets them, and the write is then recorded on
// the empty set (its writer owns what it changed). Never fails: malformed
// managedFields
// entries and list items that cannot be identified are ignored, and an
// object nested too deeply is returned unchanged.
Json RecordUpdate(const Json& old_object, Json new_object,
                  const PatchSchema& schema, const ApplyOptions& options);

// RecordUpdate of an update for callers that keep managedFields apart from
// the object, as JSON text per entry: `old_object` and `new_object` carry no
// metadata.managedFields; `new_entries` are the entries sent with the new
// object and `old_entries` the stored ones. Returns the entries to store, as
// compact JSON, exactly what RecordUpdate would have written. Entries that
// were seen before are decoded from a per-thread cache, and an entry that
// did not change keeps its text, so updates that leave ownership alone cost
// no decoding or encoding of FieldsV1.
std::vector<std::string> RecordUpdateEntries(
    const Json& old_object, const Json& new_object,
    const std::vector<std::string>& new_entries,
    const std::vector<std::string>& old_entries, const PatchSchema& schema,
    const ApplyOptions& options);

// RecordUpdate of a create without managedFields, for callers that keep
// managedFields apart from the object: the entries to store (none when the
// create owns no fields, else one), as compact JSON, exactly what
// RecordUpdate would have written. `object_text` is the object's compact
// JSON encoding; the entry depends only on its structure (which members are
// set, lists in full), which keys a per-thread cache, so alike creates (pods
// of one manifest) build no JSON tree: `object_tree` (the object as a tree,
// without managedFields) is called only for a structure not seen before.
// `schema` must live as long as the process (SchemaForKind's do): the cache
// tells schemas apart by address.
std::vector<std::string> RecordCreateEntries(
    std::string_view object_text, const std::function<Json()>& object_tree,
    const PatchSchema& schema, const ApplyOptions& options);

// Kubernetes' conflict message:
//   Apply failed with 1 conflict: conflict with "m" using v1: .spec.x
//   Apply failed with 2 conflicts: conflicts with "m" using v1:
//   - .spec.x
//   - .spec.y
// "" for no conflicts.
std::string ConflictMessage(const std::vector<FieldConflict>& conflicts);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_SERVER_SIDE_APPLY_H_
