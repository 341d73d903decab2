// PatchRequest: the body of a PATCH in one of the four patch media types
// (JSON patch, merge patch, strategic merge patch, server-side apply),
// parsed once and applied to the current object on every attempt of the
// update that carries it.
#ifndef DRALLOC_APISERVER_PATCH_REQUEST_H_
#define DRALLOC_APISERVER_PATCH_REQUEST_H_

#include <string>
#include <string_view>

#include "apiserver/api_error.h"
#include "apiserver/request_scope.h"
#include "patch/patch_schema.h"

namespace dralloc::apiserver {

class PatchRequest {
 public:
  // The patch of a request to `scope`: 415 for a media type that is not a
  // patch, 422 for an apply without options.field_manager, 400 for a body
  // that is not one JSON (or, for an apply, YAML) object.
  static ApiOr<PatchRequest> Parse(const RequestScope& scope,
                                   std::string_view content_type,
                                   std::string_view body,
                                   const WriteOptions& options);

  // A server-side apply, which records managedFields itself and creates
  // an absent object from text().
  bool apply() const { return type_ == Type::kApply; }
  // The patch as JSON text.
  const std::string& text() const { return text_; }

  // `current` (the object in the request's version, as JSON) with the
  // patch applied: 400 for a patch that does not fit it, 422 for a result
  // that is not an object, 409 with the conflicting fields for an apply
  // that is not forced.
  ApiOr<Json> ApplyTo(const Json& current, const RequestScope& scope,
                      const WriteOptions& options) const;

 private:
  enum class Type { kJsonPatch, kMergePatch, kStrategicMergePatch, kApply };

  PatchRequest(Type type, std::string text, Json json,
               const patch::PatchSchema& schema, std::string group_version)
      : type_(type),
        text_(std::move(text)),
        json_(std::move(json)),
        schema_(&schema),
        group_version_(std::move(group_version)) {}

  Type type_;
  std::string text_;
  Json json_;
  const patch::PatchSchema* schema_;
  std::string group_version_;  // of the request, for managedFields entries
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_PATCH_REQUEST_H_
