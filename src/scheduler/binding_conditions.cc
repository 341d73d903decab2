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

// The condition `type` of `status` when it is True, else null.
const api::Condition* TrueCondition(const api::AllocatedDeviceStatus* status,
                                    const std::string& type) {
  if (status == nullptr) return nullptr;
  for (const api::Condition& condition : status->conditions) {
    if (condition.type == type && condition.status == "True") {
      return &condition;
    }
  }
  return nullptr;
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
      if (const api::Condition* failed = TrueCondition(status, type)) {
        // Upstream's wording, with the device added.
        return {
            BindingReadiness::kFailed,
            fmt::format("claim {} binding failed: reason={}, message={} "
                        "(device {}/{}/{}, condition {})",
                        claim.metadata.name, failed->reason, failed->message,
                        result.driver, result.pool, result.device, type)};
      }
    }
    for (const std::string& type : result.binding_conditions) {
      if (TrueCondition(status, type) == nullptr) pending = true;
    }
  }
  return {pending ? BindingReadiness::kPending : BindingReadiness::kReady, {}};
}

}  // namespace dralloc::scheduler
