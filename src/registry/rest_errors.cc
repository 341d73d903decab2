#include "registry/rest_errors.h"

#include <fmt/format.h>

namespace dralloc::registry {

std::string ConflictMessage(const api::ResourceInfo& info,
                            std::string_view name, std::string_view detail) {
  return fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                     info.QualifiedResource(), name, detail);
}

std::string UidPreconditionFailed(std::string_view sent,
                                  std::string_view actual) {
  return fmt::format(
      "Precondition failed: UID in precondition: {}, UID in object meta: {}",
      sent, actual);
}

std::string InvalidMessage(const api::ResourceInfo& info, std::string_view name,
                           const api::ErrorList& errors) {
  std::string kind(info.kind);
  if (!info.group.empty()) kind += "." + std::string(info.group);
  std::string message = fmt::format("{} \"{}\" is invalid: ", kind, name);
  if (errors.size() == 1) {
    message += errors[0].ToString();
  } else {
    message += "[";
    for (size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) message += ", ";
      message += errors[i].ToString();
    }
    message += "]";
  }
  return message;
}

std::string NamespaceTerminatingMessage(const api::ResourceInfo& info,
                                        std::string_view name,
                                        std::string_view namespace_) {
  const std::string subject =
      name.empty() ? info.QualifiedResource()
                   : fmt::format("{} \"{}\"", info.QualifiedResource(), name);
  return fmt::format(
      "{} is forbidden: unable to create new content in namespace {} because "
      "it is being terminated",
      subject, namespace_);
}

}  // namespace dralloc::registry
