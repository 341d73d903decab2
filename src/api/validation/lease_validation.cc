// ValidateLease: upstream pkg/apis/coordination/validation semantics.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

// The strategies Kubernetes itself defines; others must carry a prefix.
constexpr std::string_view kOldestEmulationVersion = "OldestEmulationVersion";

void ValidateLeaseStrategy(const std::string& strategy, const FieldPath& path,
                           ErrorList& errors) {
  if (strategy.find('/') == std::string::npos) {
    if (strategy != kOldestEmulationVersion) {
      errors.push_back(NotSupported(path, strategy, {kOldestEmulationVersion}));
    }
    return;
  }
  ValidateQualifiedName(strategy, path, errors);
}

}  // namespace

ErrorList ValidateLease(const Lease& lease) {
  ErrorList errors;
  ValidateObjectMeta(lease.metadata, /*namespaced=*/true,
                     NameRule::kDns1123Subdomain, FieldPath("metadata"),
                     errors);
  const LeaseSpec& spec = lease.spec;
  FieldPath spec_path("spec");
  if (spec.lease_duration_seconds.has_value() &&
      *spec.lease_duration_seconds <= 0) {
    errors.push_back(Invalid(spec_path.Child("leaseDurationSeconds"),
                             std::to_string(*spec.lease_duration_seconds),
                             "must be greater than 0"));
  }
  if (spec.lease_transitions.has_value() && *spec.lease_transitions < 0) {
    errors.push_back(Invalid(spec_path.Child("leaseTransitions"),
                             std::to_string(*spec.lease_transitions),
                             "must be greater than or equal to 0"));
  }
  if (spec.strategy.has_value()) {
    ValidateLeaseStrategy(*spec.strategy, spec_path.Child("strategy"), errors);
  }
  const bool has_strategy =
      spec.strategy.has_value() && !spec.strategy->empty();
  if (spec.preferred_holder.has_value() && !spec.preferred_holder->empty() &&
      !has_strategy) {
    errors.push_back(Forbidden(spec_path.Child("preferredHolder"),
                               "may only be specified if `strategy` is "
                               "defined"));
  }
  // acquireTime and renewTime are MicroTimes: the codec's time rules apply.
  if (spec.acquire_time.has_value()) {
    ValidateTime(*spec.acquire_time, spec_path.Child("acquireTime"), errors);
  }
  if (spec.renew_time.has_value()) {
    ValidateTime(*spec.renew_time, spec_path.Child("renewTime"), errors);
  }
  return errors;
}

}  // namespace dralloc::api
