// RegisterAllLibraries: every library the engine offers, in one registry.
#include "cel/encoders_library.h"
#include "cel/environment.h"
#include "cel/format_library.h"
#include "cel/lists_library.h"
#include "cel/network_library.h"
#include "cel/optional_library.h"
#include "cel/quantity_library.h"
#include "cel/regex_library.h"
#include "cel/semver_library.h"
#include "cel/sets_library.h"
#include "cel/standard_library.h"
#include "cel/strings_library.h"
#include "cel/time_library.h"
#include "cel/url_library.h"

namespace dralloc::cel {

void RegisterAllLibraries(FunctionRegistry& registry) {
  RegisterStandardLibrary(registry);
  RegisterTimeLibrary(registry);
  RegisterStringsLibrary(registry);
  RegisterListsLibrary(registry);
  RegisterSetsLibrary(registry);
  RegisterOptionalLibrary(registry);
  RegisterRegexLibrary(registry);
  RegisterEncodersLibrary(registry);
  RegisterQuantityLibrary(registry);
  RegisterSemverLibrary(registry);
  RegisterNetworkLibrary(registry);
  RegisterUrlLibrary(registry);
  RegisterFormatLibrary(registry);
}

}  // namespace dralloc::cel
