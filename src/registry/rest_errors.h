// The messages of the REST errors both API implementations report, so that
// the server (as HTTP statuses) and the in-memory API (as Status values)
// say the same words, as upstream's apimachinery errors.
#ifndef DRALLOC_REGISTRY_REST_ERRORS_H_
#define DRALLOC_REGISTRY_REST_ERRORS_H_

#include <string>
#include <string_view>

#include "api/field_error.h"
#include "api/resource_registry.h"

namespace dralloc::registry {

// The detail of a conflict on a stale resourceVersion.
inline constexpr std::string_view kStaleObject =
    "the object has been modified; please apply your changes to the latest "
    "version and try again";

// `Operation cannot be fulfilled on <resource> "<name>": <detail>` (409).
std::string ConflictMessage(const api::ResourceInfo& info,
                            std::string_view name, std::string_view detail);
// The detail of a conflict on a uid precondition.
std::string UidPreconditionFailed(std::string_view sent,
                                  std::string_view actual);
// `<Kind>.<group> "<name>" is invalid: <errors>` (422).
std::string InvalidMessage(const api::ResourceInfo& info, std::string_view name,
                           const api::ErrorList& errors);
// A create in a namespace being deleted (403, NamespaceLifecycle).
std::string NamespaceTerminatingMessage(const api::ResourceInfo& info,
                                        std::string_view name,
                                        std::string_view namespace_);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_REST_ERRORS_H_
