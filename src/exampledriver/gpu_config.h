// GpuConfig: the opaque device configuration the example driver accepts
// (upstream's GpuConfig), and the container environment it turns into.
//
//   {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig",
//    "sharing": {"strategy": "TimeSlicing",
//                "timeSlicingConfig": {"interval": "Long"}}}
//
// strategy is TimeSlicing (interval Default, Short, Medium or Long) or
// SpacePartitioning (spacePartitioningConfig.partitionCount >= 1). Unknown
// fields are errors that name the field.
#ifndef DRALLOC_EXAMPLEDRIVER_GPU_CONFIG_H_
#define DRALLOC_EXAMPLEDRIVER_GPU_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::exampledriver {

struct GpuConfig {
  std::string strategy;                // "" = no sharing settings
  std::string time_slice_interval;     // TimeSlicing only
  std::optional<int> partition_count;  // SpacePartitioning only

  // Parses `json`; errors are prefixed with `path` (e.g.
  // "status.allocation.devices.config[0].opaque.parameters").
  static StatusOr<GpuConfig> Parse(std::string_view json,
                                   std::string_view path);

  // Env entries ("KEY=VALUE") for the device whose env prefix is `prefix`
  // (e.g. "GPU_DEVICE_0").
  std::vector<std::string> Env(const std::string& prefix) const;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_GPU_CONFIG_H_
