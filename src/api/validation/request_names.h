// RequestNames: the request and subrequest names of one claim, and the
// rules for names and references to them shared by the validation of the
// claim's spec and of its status.
#ifndef DRALLOC_API_VALIDATION_REQUEST_NAMES_H_
#define DRALLOC_API_VALIDATION_REQUEST_NAMES_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/resource_claim.h"

namespace dralloc::api {

// The request names of a claim and, for requests with firstAvailable, the
// names of their subrequests. Views point into the claim being validated.
class RequestNames {
 public:
  explicit RequestNames(const DeviceClaim& claim) {
    for (const DeviceRequest& request : claim.requests) {
      Entry& entry = names_[request.name];
      for (const DeviceSubRequest& sub : request.first_available) {
        entry.subrequests.insert(sub.name);
      }
    }
  }

  // True for "<request>" and for "<request>/<subrequest>" when the request
  // has that subrequest.
  bool Has(std::string_view ref) const {
    const size_t slash = ref.find('/');
    const std::string_view request = ref.substr(0, slash);
    auto it = names_.find(request);
    if (it == names_.end()) return false;
    if (slash == std::string_view::npos) return true;
    const std::string_view sub = ref.substr(slash + 1);
    if (sub.find('/') != std::string_view::npos) return false;
    return it->second.subrequests.contains(sub);
  }

 private:
  struct Entry {
    std::unordered_set<std::string_view> subrequests;
  };
  std::unordered_map<std::string_view, Entry> names_;
};

// Names of requests, subrequests and devices: required DNS labels.
void ValidateRequiredLabel(std::string_view name, const FieldPath& path,
                           ErrorList& errors);
// A reference to a request ("req") or subrequest ("req/sub") of the claim.
void ValidateRequestRef(std::string_view ref, const FieldPath& path,
                        const RequestNames& names, ErrorList& errors);
// A list of request references: ≤ kDeviceRequestsMaxSize, each valid, no
// duplicates.
void ValidateRequestRefs(const std::vector<std::string>& refs,
                         const FieldPath& path, const RequestNames& names,
                         ErrorList& errors);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_REQUEST_NAMES_H_
