#include "api/validation/request_names.h"

#include <cstdint>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kRequestRefDetail =
    "must be the name of a request in the claim or the name of a request and a "
    "subrequest separated by '/'";

}  // namespace

// Names of requests, subrequests and devices: required DNS labels.
void ValidateRequiredLabel(std::string_view name, const FieldPath& path,
                           ErrorList& errors) {
  if (name.empty()) {
    errors.push_back(Required(path));
    return;
  }
  ValidateDeviceName(name, path, errors);
}

// A reference to a request ("req") or subrequest ("req/sub") of the claim.
void ValidateRequestRef(std::string_view ref, const FieldPath& path,
                        const RequestNames& names, ErrorList& errors) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (true) {
    const size_t slash = ref.find('/', start);
    segments.push_back(ref.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (segments.size() > 2) {
    errors.push_back(InvalidString(path, ref, std::string(kRequestRefDetail)));
    return;
  }
  for (std::string_view segment : segments) {
    ValidateDns1123Label(segment, path, errors);
  }
  if (!names.Has(ref)) {
    errors.push_back(InvalidString(path, ref, std::string(kRequestRefDetail)));
  }
}

// A list of request references: ≤ kDeviceRequestsMaxSize, each valid, no
// duplicates.
void ValidateRequestRefs(const std::vector<std::string>& refs,
                         const FieldPath& path, const RequestNames& names,
                         ErrorList& errors) {
  ValidateKeyedList(
      refs, kDeviceRequestsMaxSize, path, errors,
      [&](const std::string& ref, const FieldPath& item_path) {
        ValidateRequestRef(ref, item_path, names, errors);
      },
      [](const std::string& ref) -> std::string_view { return ref; });
}

}  // namespace dralloc::api
