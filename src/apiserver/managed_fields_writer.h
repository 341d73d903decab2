// ManagedFieldsWriter: the JSON that a write stores, with the object's
// metadata.managedFields brought up to date for the field manager that
// writes it.
//
// Objects are encoded before the store serialises the write, so the text
// carries a marker where its resourceVersion goes; WithRevision puts the
// write's revision in its place. Ownership is recorded as upstream's
// fieldmanager does for an Update operation: a create owns every field it
// sets, an update the fields it changes (server-side apply records its own
// entries and passes no manager).
#ifndef DRALLOC_APISERVER_MANAGED_FIELDS_WRITER_H_
#define DRALLOC_APISERVER_MANAGED_FIELDS_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "api/object.h"
#include "apiserver/request_scope.h"

namespace dralloc::apiserver {

// Writes by `manager` ("" keeps managedFields as they are) to the resource
// of `scope`. Holds references: both must outlive the writer.
class ManagedFieldsWriter {
 public:
  // What StoredText returns when the object cannot be encoded.
  static constexpr std::string_view kUnencodable = "{}";

  ManagedFieldsWriter(const RequestScope& scope, const std::string& manager)
      : scope_(scope), manager_(manager) {}

  // The JSON to store for `next` (with a revision marker for WithRevision),
  // with managedFields updated in `next` for a write that turns `old` (null
  // for a create) into it; the text is the encoding of `next` unless
  // kUnencodable.
  std::string StoredText(const api::Object* old, api::Object& next) const;

  // `text` (from StoredText) with `revision` as its resourceVersion.
  static std::string WithRevision(std::string text, int64_t revision);

 private:
  // StoredText of a create that sends no managedFields: the object is
  // encoded once, with a placeholder where its managedFields entry goes,
  // since the entry follows from the text (patch::RecordCreateEntries).
  std::string CreatedText(api::Object& next) const;
  // Sets next's managedFields for an Update that turns `old` (null for a
  // create) into `next`; unchanged if `next` cannot be encoded.
  void RecordManagedFields(const api::Object* old, api::Object& next) const;

  const RequestScope& scope_;
  const std::string& manager_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_MANAGED_FIELDS_WRITER_H_
