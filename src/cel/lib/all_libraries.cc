#include "cel/lib/all_libraries.h"

#include "cel/lib/encoders_library.h"
#include "cel/lib/format_library.h"
#include "cel/lib/lists_library.h"
#include "cel/lib/network_library.h"
#include "cel/lib/optional_library.h"
#include "cel/lib/quantity_library.h"
#include "cel/lib/regex_library.h"
#include "cel/lib/semver_library.h"
#include "cel/lib/sets_library.h"
#include "cel/lib/standard_library.h"
#include "cel/lib/strings_library.h"
#include "cel/lib/time_library.h"
#include "cel/lib/url_library.h"

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
