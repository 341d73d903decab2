// GpuInventory: the simulated GPUs of one node, as dra-example-driver's GPU
// profile describes them, and the ResourceSlices that publish them.
//
// Devices are gpu-0 ... gpu-(N-1) with attributes index, uuid, model and
// driverVersion and capacity memory (80Gi) and compute (100). With
// partitions > 0 every GPU also gets a counter set gpu-<i>-counters and
// devices gpu-<i>-partition-<j> and gpu-<i>-full that consume it; counter
// sets and devices go in separate slices of the pool (the node's name).
#ifndef DRALLOC_EXAMPLEDRIVER_GPU_INVENTORY_H_
#define DRALLOC_EXAMPLEDRIVER_GPU_INVENTORY_H_

#include <string>
#include <vector>

#include "api/types/resource_slice.h"
#include "common/status.h"

namespace dralloc::exampledriver {

struct GpuInventoryOptions {
  std::string node_name;
  std::string driver_name = "gpu.example.com";
  int gpus = 8;
  int partitions = 0;  // 0: whole GPUs only
};

class GpuInventory {
 public:
  // Checks the options (node and driver names set, counts in range).
  static StatusOr<GpuInventory> Create(GpuInventoryOptions options);

  const GpuInventoryOptions& options() const { return options_; }
  // The pool's name: the node's.
  const std::string& pool_name() const { return options_.node_name; }
  // Every device name, in slice order.
  std::vector<std::string> DeviceNames() const;

  // The slice specs of the pool, generation and slice count left at zero
  // (SlicePublisher sets them).
  std::vector<api::ResourceSliceSpec> SliceSpecs() const;

  // "gpu-" + a UUID derived from node name and device name: stable across
  // restarts, different between nodes.
  static std::string DeviceUuid(const std::string& node_name,
                                const std::string& device_name);

 private:
  explicit GpuInventory(GpuInventoryOptions options)
      : options_(std::move(options)) {}

  std::vector<api::Device> Devices() const;
  std::vector<api::CounterSet> CounterSets() const;
  api::Device GpuDevice(int index, const std::string& name) const;

  GpuInventoryOptions options_;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_GPU_INVENTORY_H_
