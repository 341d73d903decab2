#include "apiserver/patch_request.h"

#include <fmt/format.h>

#include <utility>

#include "common/clock.h"
#include "encoding/document_reader.h"
#include "patch/json_patch.h"
#include "patch/merge_patch.h"
#include "patch/server_side_apply.h"
#include "patch/strategic_merge_patch.h"

namespace dralloc::apiserver {

ApiOr<PatchRequest> PatchRequest::Parse(const RequestScope& scope,
                                        std::string_view content_type,
                                        std::string_view body,
                                        const WriteOptions& options) {
  std::string_view media_type = content_type.substr(0, content_type.find(';'));
  Type type;
  if (media_type == "application/json-patch+json") {
    type = Type::kJsonPatch;
  } else if (media_type == "application/merge-patch+json") {
    type = Type::kMergePatch;
  } else if (media_type == "application/strategic-merge-patch+json") {
    type = Type::kStrategicMergePatch;
  } else if (media_type == "application/apply-patch+yaml" ||
             media_type == "application/apply-patch+json") {
    type = Type::kApply;
  } else {
    return UnsupportedMediaType(fmt::format(
        "the body of the request was in an unknown format - accepted media "
        "types include: application/json-patch+json, "
        "application/merge-patch+json, application/apply-patch+yaml, "
        "application/strategic-merge-patch+json (got \"{}\")",
        content_type));
  }
  std::string patch_text(body);
  if (type == Type::kApply) {
    const size_t first = body.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && body[first] != '{') {
      auto documents = encoding::ReadDocuments(body, "apply patch");
      if (!documents.ok()) return BadRequest(documents.status().message());
      if (documents->size() != 1) {
        return BadRequest("the apply patch must hold exactly one object");
      }
      patch_text = std::move((*documents)[0].json);
    }
    if (options.field_manager.empty()) {
      return Invalid(*scope.info, scope.name,
                     {api::Required(api::FieldPath("fieldManager"),
                                    "is required for apply patch")});
    }
  }
  Json patch_json = Json::parse(patch_text, nullptr, false);
  if (patch_json.is_discarded()) {
    return BadRequest("the patch is not valid JSON");
  }
  return PatchRequest(type, std::move(patch_text), std::move(patch_json),
                      patch::SchemaFor(*scope.info),
                      scope.info->GroupVersion(scope.version));
}

ApiOr<Json> PatchRequest::ApplyTo(const Json& current,
                                  const RequestScope& scope,
                                  const WriteOptions& options) const {
  StatusOr<Json> patched = Status();
  switch (type_) {
    case Type::kJsonPatch:
      patched = patch::ApplyJsonPatch(current, json_);
      break;
    case Type::kMergePatch:
      patched = patch::ApplyMergePatch(current, json_);
      break;
    case Type::kStrategicMergePatch:
      patched = patch::ApplyStrategicMergePatch(current, json_, *schema_);
      break;
    case Type::kApply: {
      auto outcome = patch::ServerSideApply(
          current, json_, *schema_,
          {options.field_manager, options.force, group_version_, NowRfc3339(),
           scope.subresource});
      if (!outcome.ok()) {
        patched = outcome.status();
      } else if (!outcome->conflicts.empty() && !options.force) {
        ApiError error{409, "Conflict",
                       patch::ConflictMessage(outcome->conflicts),
                       Json::object()};
        Json causes = Json::array();
        for (const auto& conflict : outcome->conflicts) {
          causes.push_back({{"reason", "FieldManagerConflict"},
                            {"message", fmt::format("conflict with \"{}\"",
                                                    conflict.manager)},
                            {"field", conflict.field}});
        }
        error.details = {{"name", scope.name},
                         {"group", scope.info->group},
                         {"kind", scope.info->plural},
                         {"causes", causes}};
        return error;
      } else {
        patched = std::move(outcome->object);
      }
      break;
    }
  }
  if (!patched.ok()) {
    if (patched.status().code() == StatusCode::kInvalidArgument) {
      return BadRequest(patched.status().message());
    }
    return ApiError{422, "Invalid", patched.status().message(), nullptr};
  }
  return std::move(*patched);
}

}  // namespace dralloc::apiserver
