#include "scheduler/binding_conditions.h"

#include <fmt/format.h>

#include <algorithm>

namespace dralloc::scheduler {
namespace {

// The status entry the driver wrote for `result`, or null.
const api::AllocatedDeviceStatus* DeviceStatusOf(
    const api::ResourceClaim& claim,
    const api::DeviceRequestAllocationResult& result) {
  for (const api::AllocatedDeviceStatus& status : claim.status.devices) {
    if (status.driver == result.driver && status.pool == result.pool &&
        status.device == result.device && status.share_id == result.share_id) {
      return &status;
    }
  }
  return nullptr;
}

bool ConditionIsTrue(const api::AllocatedDeviceStatus* status,
                     const std::string& type) {
  if (status == nullptr) return false;
  return std::any_of(status->conditions.begin(), status->conditions.end(),
                     [&](const api::Condition& condition) {
                       return condition.type == type &&
                              condition.status == "True";
                     });
}

}  // namespace

bool HasBindingConditions(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  const auto& results = claim.status.allocation->devices.results;
  return std::any_of(results.begin(), results.end(), [](const auto& result) {
    return !result.binding_conditions.empty();
  });
}

BindingCheck CheckBindingConditions(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) {
    return {
        BindingReadiness::kFailed,
        fmt::format("claim {} is no longer allocated", claim.metadata.name)};
  }
  bool pending = false;
  for (const auto& result : claim.status.allocation->devices.results) {
    if (result.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = DeviceStatusOf(claim, result);
    for (const std::string& type : result.binding_failure_conditions) {
      if (ConditionIsTrue(status, type)) {
        return {BindingReadiness::kFailed,
                fmt::format("claim {}: device {}/{}/{} has binding failure "
                            "condition {}",
                            claim.metadata.name, result.driver, result.pool,
                            result.device, type)};
      }
    }
    for (const std::string& type : result.binding_conditions) {
      if (!ConditionIsTrue(status, type)) pending = true;
    }
  }
  return {pending ? BindingReadiness::kPending : BindingReadiness::kReady, {}};
}

}  // namespace dralloc::scheduler
