// Upstream limits of resource.k8s.io (k8s.io/api/resource/v1 constants).
#ifndef DRALLOC_API_VALIDATION_LIMITS_H_
#define DRALLOC_API_VALIDATION_LIMITS_H_

#include <cstdint>

namespace dralloc::api {

inline constexpr int64_t kResourceSliceMaxDevices = 128;
inline constexpr int64_t kResourceSliceMaxDevicesWithAdvancedFeatures = 64;
inline constexpr int64_t kResourceSliceMaxCounterSets = 8;
inline constexpr int64_t kResourceSliceMaxCountersPerCounterSet = 32;
inline constexpr int64_t kResourceSliceMaxDeviceCounterConsumptionsPerDevice =
    2;
inline constexpr int64_t kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr int64_t kResourceSliceMaxAttributeValuesPerDevice = 48;
inline constexpr int64_t kDeviceMaxDomainLength = 63;
inline constexpr int64_t kDeviceMaxIDLength = 32;
inline constexpr int64_t kDeviceAttributeMaxValueLength = 64;
inline constexpr int64_t kDeviceTaintsMaxLength = 16;
inline constexpr int64_t kDeviceTolerationsMaxLength = 16;
inline constexpr int64_t kBindingConditionsMaxSize = 4;
inline constexpr int64_t kBindingFailureConditionsMaxSize = 4;
inline constexpr int64_t kDeviceSelectorsMaxSize = 32;
// consumesCounters[].compatibilityGroups (KEP-5963).
inline constexpr int64_t kCompatibilityGroupsMaxSize = 2;
// exactly.derivedAttributes (KEP-6080).
inline constexpr int64_t kDerivedAttributesMaxSize = 8;
inline constexpr int64_t kDeviceConfigMaxSize = 32;
inline constexpr int64_t kDeviceRequestsMaxSize = 32;
inline constexpr int64_t kDeviceConstraintsMaxSize = 32;
inline constexpr int64_t kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr int64_t kAllocationResultsMaxSize = 32;
inline constexpr int64_t kAllocationConfigMaxSize = 64;
inline constexpr int64_t kResourceClaimReservedForMaxSize = 256;
inline constexpr int64_t kOpaqueParametersMaxLength = 10 * 1024;
inline constexpr int64_t kCELSelectorExpressionMaxLength = 10 * 1024;
inline constexpr int64_t kCapacityRequestPolicyValidValuesMaxSize = 10;
inline constexpr int64_t kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr int64_t kAllocatedDeviceStatusDataMaxLength = 10 * 1024;
inline constexpr int64_t kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr int64_t kNetworkDeviceDataMaxIPs = 16;
inline constexpr int64_t kNetworkDeviceDataHardwareAddressMaxLength = 128;
inline constexpr int64_t kDriverNameMaxLength = 63;
inline constexpr int64_t kPoolNameMaxLength = 253;
inline constexpr int64_t kDeviceTaintRuleMaxConditions = 8;

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_LIMITS_H_
