// ApiError: a failed request as Kubernetes reports it (a meta/v1 Status).
#ifndef DRALLOC_APISERVER_API_ERROR_H_
#define DRALLOC_APISERVER_API_ERROR_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "api/field_error.h"
#include "api/resource_registry.h"
#include "common/status.h"

namespace dralloc::apiserver {

using Json = nlohmann::ordered_json;

struct ApiError {
  int code = 500;
  std::string reason;  // "NotFound", "AlreadyExists", "Invalid", ...
  std::string message;
  Json details = nullptr;  // Status.details, or null
  // Status.metadata (a ListMeta: an expired list's fresh continue token),
  // or null for {}.
  Json metadata = nullptr;

  // The Status object sent as the response body.
  Json ToStatus() const;
};

// A value or the ApiError explaining why there is none.
template <typename T>
class ApiOr {
 public:
  ApiOr(T value) : value_(std::move(value)) {}         // NOLINT
  ApiOr(ApiError error) : value_(std::move(error)) {}  // NOLINT
  bool ok() const { return value_.index() == 0; }
  T& value() { return std::get<0>(value_); }
  const T& value() const { return std::get<0>(value_); }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }
  const ApiError& error() const { return std::get<1>(value_); }

 private:
  std::variant<T, ApiError> value_;
};

ApiError NotFound(const api::ResourceInfo& info, std::string_view name);
ApiError AlreadyExists(const api::ResourceInfo& info, std::string_view name);
// A request by name through `info` for an object the other family of a
// shared resource holds (docs/classic-dra.md, section 3): 406 NotAcceptable
// naming the family that holds it and the resource to ask instead.
ApiError HeldByOtherFamily(const api::ResourceInfo& info,
                           std::string_view name);
// A create through `info` of a name the other family holds: 409
// AlreadyExists naming that family.
ApiError AlreadyExistsInOtherFamily(const api::ResourceInfo& info,
                                    std::string_view name);
ApiError Conflict(const api::ResourceInfo& info, std::string_view name,
                  std::string_view detail =
                      "the object has been modified; please apply your "
                      "changes to the latest version and try again");
// 422 with one cause per field error.
ApiError Invalid(const api::ResourceInfo& info, std::string_view name,
                 const api::ErrorList& errors);
ApiError BadRequest(std::string message);
ApiError Forbidden(std::string message);
// 403 for a create in a namespace that is being deleted, as upstream's
// NamespaceLifecycle admission reports it (cause NamespaceTerminating).
ApiError NamespaceTerminating(const api::ResourceInfo& info,
                              std::string_view name,
                              std::string_view namespace_);
ApiError Gone(std::string message);
// 504 for a read at a resourceVersion the store has not reached, as
// upstream reports it (cause ResourceVersionTooLarge, retry after 1 s).
ApiError TooLargeResourceVersion(int64_t requested, int64_t current);
ApiError MethodNotAllowed(std::string message);
ApiError UnsupportedMediaType(std::string message);
ApiError NotFoundPath(std::string_view path);
// 504 (the outcome is unknown: kDeadlineExceeded) or 503 for a store that
// cannot serve the request.
ApiError StorageUnavailable(const Status& status);
// Maps a failed storage operation to the HTTP error a client should see.
ApiError StorageError(const api::ResourceInfo& info, std::string_view name,
                      const Status& status);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_API_ERROR_H_
