#include "quota/resource_claim_evaluator.h"

#include <map>
#include <string_view>

#include "api/validation/limits.h"
#include "quota/resource_names.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

constexpr std::string_view kExactCount = "ExactCount";
constexpr std::string_view kAll = "All";

// The devices one request or subrequest may take. The hub form is
// defaulted (mode ExactCount, count 1); an undefaulted one is read the way
// defaulting would complete it.
int64_t DevicesOf(const std::string& mode, int64_t count) {
  if (mode.empty()) return count > 0 ? count : 1;
  if (mode == kExactCount) return count;
  if (mode == kAll) return api::kAllocationResultsMaxSize;
  return 0;  // a mode from a newer version: not charged, as upstream
}

void Charge(std::map<std::string, int64_t>& devices, const std::string& name,
            int64_t count) {
  devices[DevicesOfClass(name)] += count;
}

// Per class, the largest count any subrequest of that class may take.
void ChargeFirstAvailable(const api::DeviceRequest& request,
                          std::map<std::string, int64_t>& devices) {
  std::map<std::string, int64_t> worst;
  for (const api::DeviceSubRequest& sub : request.first_available) {
    int64_t& slot = worst[sub.device_class_name];
    slot = std::max(slot, DevicesOf(sub.allocation_mode, sub.count));
  }
  for (const auto& [device_class, count] : worst) {
    Charge(devices, device_class, count);
  }
}

}  // namespace

api::ResourceList ResourceClaimEvaluator::Usage(
    const api::ResourceClaim& claim, const ExtendedNameOf& extended_name_of,
    const api::ResourceList* owner_pod_usage) {
  std::map<std::string, int64_t> devices;
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    if (!request.first_available.empty()) {
      ChargeFirstAvailable(request, devices);
    } else if (request.exactly.has_value()) {
      const api::ExactDeviceRequest& exact = *request.exactly;
      Charge(devices, exact.device_class_name,
             DevicesOf(exact.allocation_mode, exact.count));
    }
    // Any other request shape is from a newer version: not charged.
  }
  // Two classes may name the same extended resource: their devices add up.
  std::map<std::string, int64_t> extended;
  api::ResourceList usage;
  usage.emplace(std::string(kClaimObjectCount), Quantity::FromInt64(1));
  for (const auto& [name, count] : devices) {
    usage.emplace(name, Quantity::FromInt64(count));
    if (count <= 0) continue;
    const std::string_view device_class = std::string_view(name).substr(
        0, name.size() - kDevicesPerClassSuffix.size());
    extended[ImplicitExtendedOfClass(device_class)] += count;
    if (!extended_name_of) continue;
    if (std::optional<std::string> explicit_name =
            extended_name_of(device_class)) {
      extended[std::string(kRequestsPrefix) + *explicit_name] += count;
    }
  }
  for (const auto& [name, count] : extended) {
    Quantity left = Quantity::FromInt64(count);
    if (owner_pod_usage != nullptr) {
      if (auto it = owner_pod_usage->find(name); it != owner_pod_usage->end()) {
        StatusOr<Quantity> difference = left.Sub(it->second);
        left = difference.ok() ? *std::move(difference) : Quantity();
      }
    }
    if (left.Sign() > 0) usage.emplace(name, left);
  }
  return usage;
}

std::vector<std::string> ResourceClaimEvaluator::MatchingResources(
    const std::vector<std::string>& names, const IsMapped& is_mapped) {
  std::vector<std::string> result;
  for (const std::string& name : names) {
    const bool per_class = name.ends_with(kDevicesPerClassSuffix) &&
                           name.size() > kDevicesPerClassSuffix.size();
    const bool implicit_extended =
        name.starts_with(kImplicitExtendedPerClassPrefix) &&
        name.size() > kImplicitExtendedPerClassPrefix.size();
    const bool extended = implicit_extended || IsExtendedRequestName(name);
    if (name == kClaimObjectCount || per_class ||
        (extended && is_mapped &&
         is_mapped(std::string_view(name).substr(kRequestsPrefix.size())))) {
      result.push_back(name);
    }
  }
  return result;
}

bool ResourceClaimEvaluator::Matches(const api::ResourceQuota& quota,
                                     const IsMapped& is_mapped) {
  if (!quota.spec.scopes.empty()) return false;
  if (quota.spec.scope_selector.has_value() &&
      !quota.spec.scope_selector->match_expressions.empty()) {
    return false;
  }
  return !MatchingResources(ResourceNames(quota.status.hard), is_mapped)
              .empty();
}

}  // namespace dralloc::quota
