#include "cdi/spec.h"

#include <algorithm>

#include "cdi/spec_version.h"

namespace dralloc::cdi {

std::string QualifiedName(std::string_view kind, std::string_view device) {
  std::string name;
  name.reserve(kind.size() + 1 + device.size());
  name.append(kind).append("=").append(device);
  return name;
}

std::string MinimumRequiredVersion(const Spec& spec) {
  return RequiredSpecVersion(spec).version;
}

std::string TransientSpecFileName(std::string_view kind,
                                  std::string_view transient_id) {
  std::string name(kind);
  size_t slash = name.find('/');
  if (slash != std::string::npos) name[slash] = '-';
  name.push_back('_');
  std::string id(transient_id);
  std::ranges::replace(id, '/', '_');
  return name + id + ".json";
}

}  // namespace dralloc::cdi
