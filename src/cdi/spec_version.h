// The CDI spec versions this library reads, and which version a spec's
// contents require (the rules of the spec's MinimumRequiredVersion).
#ifndef DRALLOC_CDI_SPEC_VERSION_H_
#define DRALLOC_CDI_SPEC_VERSION_H_

#include <span>
#include <string>
#include <string_view>

#include "cdi/spec.h"

namespace dralloc::cdi {

// Every released spec version we read, oldest first: "0.3.0" ... "1.1.0".
std::span<const std::string_view> SupportedSpecVersions();

// The newest supported version ("1.1.0").
std::string_view LatestSpecVersion();

// Index of `version` in SupportedSpecVersions(), or -1 when unsupported. A
// leading "v" is accepted, as the CDI library accepts it.
int SpecVersionIndex(std::string_view version);

// The minimum version a spec needs and the first field (a path such as
// "devices[0].containerEdits.mounts[1].type") that needs it. `field` is empty
// when the spec needs nothing beyond the earliest version.
struct VersionRequirement {
  std::string version;
  std::string field;
};
VersionRequirement RequiredSpecVersion(const Spec& spec);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_VERSION_H_
