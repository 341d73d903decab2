// The quota resource names of ResourceClaims, as upstream's claim evaluator
// (pkg/quota/v1/evaluator/core/resource_claims.go) names them.
#ifndef DRALLOC_QUOTA_RESOURCE_NAMES_H_
#define DRALLOC_QUOTA_RESOURCE_NAMES_H_

#include <string>
#include <string_view>

namespace dralloc::quota {

// Object count of claims: 1 per claim.
inline constexpr std::string_view kClaimObjectCount =
    "count/resourceclaims.resource.k8s.io";
// "<class>" + this: the devices a claim requests of that DeviceClass.
inline constexpr std::string_view kDevicesPerClassSuffix =
    ".deviceclass.resource.k8s.io/devices";
// This + "<class>": the implicit extended resource name of a DeviceClass
// (KEP-5004).
inline constexpr std::string_view kImplicitExtendedResourcePrefix =
    "deviceclass.resource.kubernetes.io/";
// This + "<class>": the same devices under the implicit extended resource
// name of the class, which upstream charges alongside.
inline constexpr std::string_view kImplicitExtendedPerClassPrefix =
    "requests.deviceclass.resource.kubernetes.io/";

// The prefix of quota names for requests ("requests.example.com/gpu").
inline constexpr std::string_view kRequestsPrefix = "requests.";

// Whether `name` is "requests." and a resource name outside kubernetes.io
// (upstream's isExtendedResourceNameForQuota; the implicit
// "requests.deviceclass.resource.kubernetes.io/<class>" is matched apart).
inline bool IsExtendedRequestName(std::string_view name) {
  return name.starts_with(kRequestsPrefix) &&
         name.find('/') != std::string_view::npos &&
         name.find("kubernetes.io/") == std::string_view::npos;
}

// "gpu" → "gpu.deviceclass.resource.k8s.io/devices".
inline std::string DevicesOfClass(std::string_view device_class) {
  return std::string(device_class) + std::string(kDevicesPerClassSuffix);
}
// "gpu" → "requests.deviceclass.resource.kubernetes.io/gpu".
inline std::string ImplicitExtendedOfClass(std::string_view device_class) {
  return std::string(kImplicitExtendedPerClassPrefix) +
         std::string(device_class);
}

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_RESOURCE_NAMES_H_
