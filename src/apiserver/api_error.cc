#include "apiserver/api_error.h"

#include <fmt/format.h>

#include "registry/rest_errors.h"

namespace dralloc::apiserver {
namespace {

Json Details(const api::ResourceInfo& info, std::string_view name,
             std::string_view kind) {
  Json details = Json::object();
  if (!name.empty()) details["name"] = name;
  details["group"] = info.group;
  details["kind"] = kind;
  return details;
}

std::string_view CauseReason(api::FieldErrorType type) {
  using T = api::FieldErrorType;
  switch (type) {
    case T::kNotFound:
      return "FieldValueNotFound";
    case T::kRequired:
      return "FieldValueRequired";
    case T::kDuplicate:
      return "FieldValueDuplicate";
    case T::kInvalid:
      return "FieldValueInvalid";
    case T::kNotSupported:
      return "FieldValueNotSupported";
    case T::kForbidden:
      return "FieldValueForbidden";
    case T::kTooLong:
      return "FieldValueTooLong";
    case T::kTooMany:
      return "FieldValueTooMany";
    case T::kInternal:
      return "InternalError";
    case T::kTypeInvalid:
      return "FieldValueTypeInvalid";
    case T::kUnknownField:
      return "FieldValueInvalid";
  }
  return "FieldValueInvalid";
}

// "resource.k8s.io/v1alpha2 (classic DRA)" or "resource.k8s.io/v1
// (structured DRA)": the family of `info` by its preferred version.
std::string FamilyOf(const api::ResourceInfo& info) {
  return fmt::format("{} ({} DRA)", info.GroupVersion(info.versions.front()),
                     info.IsClassic() ? "classic" : "structured");
}

// "resourceclaims.v1alpha2.resource.k8s.io": the resource in the preferred
// version of `info`, as kubectl names it.
std::string VersionedResource(const api::ResourceInfo& info) {
  return fmt::format("{}.{}.{}", info.plural, info.versions.front(),
                     info.group);
}

}  // namespace

ApiError HeldByOtherFamily(const api::ResourceInfo& info,
                           std::string_view name) {
  const api::ResourceInfo& holder = info.sibling ? *info.sibling : info;
  return {406, "NotAcceptable",
          fmt::format("{} \"{}\" is a {} object and has no {} form; use {}",
                      info.QualifiedResource(), name, FamilyOf(holder),
                      info.GroupVersion(info.versions.front()),
                      VersionedResource(holder)),
          Details(info, name, info.plural)};
}

ApiError AlreadyExistsInOtherFamily(const api::ResourceInfo& info,
                                    std::string_view name) {
  const api::ResourceInfo& holder = info.sibling ? *info.sibling : info;
  return {409, "AlreadyExists",
          fmt::format("{} \"{}\" already exists as a {} object",
                      info.QualifiedResource(), name, FamilyOf(holder)),
          Details(info, name, info.plural)};
}

Json ApiError::ToStatus() const {
  Json status = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", metadata.is_null() ? Json::object() : metadata},
                 {"status", "Failure"},
                 {"message", message},
                 {"reason", reason}};
  if (!details.is_null()) status["details"] = details;
  status["code"] = code;
  return status;
}

ApiError NotFound(const api::ResourceInfo& info, std::string_view name) {
  return {404, "NotFound",
          fmt::format("{} \"{}\" not found", info.QualifiedResource(), name),
          Details(info, name, info.plural)};
}

ApiError AlreadyExists(const api::ResourceInfo& info, std::string_view name) {
  return {
      409, "AlreadyExists",
      fmt::format("{} \"{}\" already exists", info.QualifiedResource(), name),
      Details(info, name, info.plural)};
}

ApiError Conflict(const api::ResourceInfo& info, std::string_view name,
                  std::string_view detail) {
  return {409, "Conflict", registry::ConflictMessage(info, name, detail),
          Details(info, name, info.plural)};
}

ApiError Invalid(const api::ResourceInfo& info, std::string_view name,
                 const api::ErrorList& errors) {
  std::string message = registry::InvalidMessage(info, name, errors);
  Json details = Details(info, name, info.kind);
  Json causes = Json::array();
  for (const api::FieldError& error : errors) {
    std::string cause_message(api::FieldErrorTypeText(error.type));
    if (!error.bad_value.empty()) cause_message += ": " + error.bad_value;
    if (!error.detail.empty()) cause_message += ": " + error.detail;
    causes.push_back({{"reason", CauseReason(error.type)},
                      {"message", cause_message},
                      {"field", error.field}});
  }
  details["causes"] = std::move(causes);
  return {422, "Invalid", std::move(message), std::move(details)};
}

ApiError BadRequest(std::string message) {
  return {400, "BadRequest", std::move(message), nullptr};
}
ApiError Forbidden(std::string message) {
  return {403, "Forbidden", std::move(message), nullptr};
}
ApiError NamespaceTerminating(const api::ResourceInfo& info,
                              std::string_view name,
                              std::string_view namespace_) {
  Json details = Details(info, name, info.plural);
  details["causes"] =
      Json::array({{{"reason", "NamespaceTerminating"},
                    {"message", fmt::format("namespace {} is being terminated",
                                            namespace_)},
                    {"field", "metadata.namespace"}}});
  return {403, "Forbidden",
          registry::NamespaceTerminatingMessage(info, name, namespace_),
          std::move(details)};
}
ApiError Gone(std::string message) {
  return {410, "Expired", std::move(message), nullptr};
}
ApiError TooLargeResourceVersion(int64_t requested, int64_t current) {
  Json details = {
      {"causes", Json::array({{{"reason", "ResourceVersionTooLarge"},
                               {"message", "Too large resource version"}}})},
      {"retryAfterSeconds", 1}};
  return {504, "Timeout",
          fmt::format("Timeout: Too large resource version: {}, current: {}",
                      requested, current),
          std::move(details)};
}
ApiError MethodNotAllowed(std::string message) {
  return {405, "MethodNotAllowed", std::move(message), nullptr};
}
ApiError UnsupportedMediaType(std::string message) {
  return {415, "UnsupportedMediaType", std::move(message), nullptr};
}
ApiError NotFoundPath(std::string_view path) {
  return {404, "NotFound",
          fmt::format("the server could not find the requested resource ({})",
                      path),
          nullptr};
}

ApiError StorageUnavailable(const Status& status) {
  if (status.code() == StatusCode::kDeadlineExceeded) {
    // As kube-apiserver: a write may or may not have been applied.
    return {504, "Timeout",
            fmt::format("Timeout: request did not complete within the "
                        "allotted timeout ({})",
                        status.message()),
            nullptr};
  }
  return {503, "ServiceUnavailable",
          fmt::format("storage error: {}", status.message()), nullptr};
}

ApiError StorageError(const api::ResourceInfo& info, std::string_view name,
                      const Status& status) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      return NotFound(info, name);
    case StatusCode::kAlreadyExists:
      return AlreadyExists(info, name);
    case StatusCode::kAborted:
      return Conflict(info, name);
    case StatusCode::kOutOfRange:
      return Gone(status.message());
    default:
      return StorageUnavailable(status);
  }
}

}  // namespace dralloc::apiserver
