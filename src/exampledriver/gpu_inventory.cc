#include "exampledriver/gpu_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "api/validation/limits.h"
#include "api/validation/names.h"

namespace dralloc::exampledriver {
namespace {

constexpr int kMaxGpus = 1024;
constexpr int kMaxPartitions = 32;
constexpr int64_t kGpuMemoryMi = 80 * 1024;  // 80Gi
constexpr int64_t kGpuCompute = 100;

// 64-bit FNV-1a of `text`, starting from `seed`.
uint64_t Fnv1a(const std::string& text, uint64_t seed) {
  uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

Quantity MemoryMi(int64_t mebibytes) {
  // Whole Gi render as "80Gi", the rest as "40960Mi"-style text.
  auto text = mebibytes % 1024 == 0 ? fmt::format("{}Gi", mebibytes / 1024)
                                    : fmt::format("{}Mi", mebibytes);
  return *Quantity::Parse(text);
}

api::DeviceAttribute IntAttribute(int64_t value) {
  api::DeviceAttribute a;
  a.int_value = value;
  return a;
}
api::DeviceAttribute StringAttribute(std::string value) {
  api::DeviceAttribute a;
  a.string_value = std::move(value);
  return a;
}
api::DeviceAttribute VersionAttribute(std::string value) {
  api::DeviceAttribute a;
  a.version_value = std::move(value);
  return a;
}
api::DeviceAttribute BoolAttribute(bool value) {
  api::DeviceAttribute a;
  a.bool_value = value;
  return a;
}

std::string CounterSetName(int gpu) {
  return fmt::format("gpu-{}-counters", gpu);
}

// memory/compute amounts for one of `partitions` slices of a GPU (or the
// whole GPU when partitions is 1).
std::map<std::string, api::Counter> Share(int partitions) {
  return {{"memory", {MemoryMi(kGpuMemoryMi / partitions)}},
          {"compute", {Quantity::FromInt64(kGpuCompute / partitions)}}};
}

void SetCapacity(api::Device& device, int partitions) {
  for (const auto& [name, counter] : Share(partitions)) {
    device.capacity[name] = api::DeviceCapacity{counter.value, std::nullopt};
  }
}

// Splits `items` into chunks of at most `size`.
template <typename T>
std::vector<std::vector<T>> Chunks(std::vector<T> items, size_t size) {
  std::vector<std::vector<T>> chunks;
  for (size_t i = 0; i < items.size(); i += size) {
    const size_t end = std::min(items.size(), i + size);
    chunks.emplace_back(std::make_move_iterator(items.begin() + i),
                        std::make_move_iterator(items.begin() + end));
  }
  return chunks;
}

}  // namespace

StatusOr<GpuInventory> GpuInventory::Create(GpuInventoryOptions options) {
  if (options.node_name.empty() ||
      !api::IsDns1123Subdomain(options.node_name)) {
    return InvalidArgumentError("--node-name: Invalid value: \"" +
                                options.node_name +
                                "\": must be a DNS subdomain");
  }
  if (options.driver_name.empty() ||
      !api::IsDns1123Subdomain(options.driver_name) ||
      std::ssize(options.driver_name) > api::kDriverNameMaxLength) {
    return InvalidArgumentError("--driver-name: Invalid value: \"" +
                                options.driver_name +
                                "\": must be a DNS subdomain of at most 63 "
                                "characters");
  }
  if (options.gpus < 1 || options.gpus > kMaxGpus) {
    return InvalidArgumentError(
        fmt::format("--gpus: Invalid value: {}: must be between 1 and {}",
                    options.gpus, kMaxGpus));
  }
  if (options.partitions < 0 || options.partitions > kMaxPartitions) {
    return InvalidArgumentError(
        fmt::format("--partitions: Invalid value: {}: must be between 0 and {}",
                    options.partitions, kMaxPartitions));
  }
  return GpuInventory(std::move(options));
}

std::string GpuInventory::DeviceUuid(const std::string& node_name,
                                     const std::string& device_name) {
  const std::string key = node_name + '\0' + device_name;
  const uint64_t high = Fnv1a(key, 14695981039346656037ULL);
  const uint64_t low = Fnv1a(key, high ^ 0x9e3779b97f4a7c15ULL);
  // Laid out as an RFC 4122 version-4 UUID (variant bits set).
  return fmt::format("gpu-{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", high >> 32,
                     (high >> 16) & 0xffff, high & 0xfff,
                     0x8000 | ((low >> 48) & 0x3fff), low & 0xffffffffffffULL);
}

api::Device GpuInventory::GpuDevice(int index, const std::string& name) const {
  api::Device device;
  device.name = name;
  device.attributes["index"] = IntAttribute(index);
  device.attributes["uuid"] =
      StringAttribute(DeviceUuid(options_.node_name, name));
  device.attributes["model"] = StringAttribute("LATEST-GPU-MODEL");
  device.attributes["driverVersion"] = VersionAttribute("1.0.0");
  return device;
}

std::vector<api::Device> GpuInventory::Devices() const {
  std::vector<api::Device> devices;
  const int parts = options_.partitions;
  for (int i = 0; i < options_.gpus; ++i) {
    if (parts == 0) {
      api::Device device = GpuDevice(i, fmt::format("gpu-{}", i));
      SetCapacity(device, 1);
      devices.push_back(std::move(device));
      continue;
    }
    for (int j = 0; j < parts; ++j) {
      api::Device device =
          GpuDevice(i, fmt::format("gpu-{}-partition-{}", i, j));
      device.attributes["partition"] = IntAttribute(j);
      device.attributes["partitionable"] = BoolAttribute(true);
      SetCapacity(device, parts);
      device.consumes_counters.push_back({CounterSetName(i), Share(parts)});
      devices.push_back(std::move(device));
    }
    api::Device full = GpuDevice(i, fmt::format("gpu-{}-full", i));
    full.attributes["partitionable"] = BoolAttribute(true);
    full.attributes["full"] = BoolAttribute(true);
    SetCapacity(full, 1);
    full.consumes_counters.push_back({CounterSetName(i), Share(1)});
    devices.push_back(std::move(full));
  }
  return devices;
}

std::vector<api::CounterSet> GpuInventory::CounterSets() const {
  std::vector<api::CounterSet> sets;
  if (options_.partitions == 0) return sets;
  for (int i = 0; i < options_.gpus; ++i) {
    sets.push_back({CounterSetName(i), Share(1)});
  }
  return sets;
}

std::vector<std::string> GpuInventory::DeviceNames() const {
  std::vector<std::string> names;
  for (const api::Device& device : Devices()) names.push_back(device.name);
  return names;
}

std::vector<api::ResourceSliceSpec> GpuInventory::SliceSpecs() const {
  api::ResourceSliceSpec base;
  base.driver = options_.driver_name;
  base.pool.name = pool_name();
  base.node_name = options_.node_name;
  std::vector<api::ResourceSliceSpec> specs;
  for (auto& sets : Chunks(CounterSets(), api::kResourceSliceMaxCounterSets)) {
    api::ResourceSliceSpec spec = base;
    spec.shared_counters = std::move(sets);
    specs.push_back(std::move(spec));
  }
  const size_t per_slice =
      options_.partitions > 0
          ? api::kResourceSliceMaxDevicesWithAdvancedFeatures
          : api::kResourceSliceMaxDevices;
  for (auto& devices : Chunks(Devices(), per_slice)) {
    api::ResourceSliceSpec spec = base;
    spec.devices = std::move(devices);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace dralloc::exampledriver
