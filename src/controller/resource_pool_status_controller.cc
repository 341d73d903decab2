#include "controller/resource_pool_status_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "common/clock.h"
#include "common/log.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

constexpr char kLogName[] = "resourcepoolstatus-controller";
constexpr char kReasonComplete[] = "CalculationComplete";
// The longest validationError (+k8s:maxBytes=256).
constexpr size_t kMaxValidationErrorBytes = 256;

// Pools are keyed by driver and pool name, which sorts them as the status
// lists them.
using PoolKey = std::pair<std::string, std::string>;

bool IsUnavailableEffect(const std::string& effect) {
  return effect == "NoSchedule" || effect == "NoExecute";
}

// A rule without a selector selects nothing.
bool RuleMakesUnavailable(const api::DeviceTaintRule& rule, const PoolKey& pool,
                          const std::string& device) {
  if (!IsUnavailableEffect(rule.spec.taint.effect)) return false;
  if (!rule.spec.device_selector.has_value()) return false;
  const api::DeviceTaintSelector& selector = *rule.spec.device_selector;
  if (selector.driver.has_value() && *selector.driver != pool.first) {
    return false;
  }
  if (selector.pool.has_value() && *selector.pool != pool.second) return false;
  return !selector.device.has_value() || *selector.device == device;
}

bool DeviceUnavailable(const api::Device& device, const PoolKey& pool,
                       const std::vector<const api::DeviceTaintRule*>& rules) {
  for (const api::DeviceTaint& taint : device.taints) {
    if (IsUnavailableEffect(taint.effect)) return true;
  }
  return std::any_of(rules.begin(), rules.end(), [&](const auto* rule) {
    return RuleMakesUnavailable(*rule, pool, device.name);
  });
}

// The slices of one pool at its newest generation.
struct PoolSlices {
  int64_t generation = 0;
  int64_t expected_slices = 0;
  std::vector<const api::ResourceSlice*> slices;
};

std::map<PoolKey, PoolSlices> NewestPools(
    const api::ResourcePoolStatusRequestSpec& spec,
    const std::vector<const api::ResourceSlice*>& slices) {
  std::map<PoolKey, PoolSlices> pools;
  for (const api::ResourceSlice* slice : slices) {
    if (slice->spec.driver != spec.driver) continue;
    const api::ResourcePool& pool = slice->spec.pool;
    if (spec.pool_name.has_value() && pool.name != *spec.pool_name) continue;
    auto [it, added] = pools.try_emplace({slice->spec.driver, pool.name});
    PoolSlices& entry = it->second;
    if (!added && pool.generation < entry.generation) continue;
    if (added || pool.generation > entry.generation) {
      entry.generation = pool.generation;
      entry.slices.clear();
    }
    entry.expected_slices = pool.resource_slice_count;
    entry.slices.push_back(slice);
  }
  return pools;
}

// What the claims hold of each pool: allocated device names, and the
// capacity consumed per device.
struct PoolUsage {
  std::set<std::string> devices;
  std::map<std::string, std::map<std::string, Quantity>> consumed;
};

std::map<PoolKey, PoolUsage> UsageByPool(
    const std::vector<const api::ResourceClaim*>& claims) {
  std::map<PoolKey, PoolUsage> usage;
  for (const api::ResourceClaim* claim : claims) {
    if (!claim->status.allocation.has_value()) continue;
    for (const auto& result : claim->status.allocation->devices.results) {
      if (result.admin_access.value_or(false)) continue;
      PoolUsage& pool = usage[{result.driver, result.pool}];
      pool.devices.insert(result.device);
      auto& consumed = pool.consumed[result.device];
      for (const auto& [name, amount] : result.consumed_capacity) {
        Quantity& total = consumed[name];
        StatusOr<Quantity> sum = total.Add(amount);
        if (sum.ok()) total = *sum;
      }
    }
  }
  return usage;
}

Quantity Sum(const Quantity& a, const Quantity& b) {
  StatusOr<Quantity> sum = a.Add(b);
  return sum.ok() ? *sum : a;
}

// The amounts of one capacity name over the shareable devices of a pool.
struct CapacityTotals {
  Quantity total;
  Quantity consumed;
};

// Whether a shared device still has some of every capacity it declares.
bool HasCapacityLeft(const api::Device& device,
                     const std::map<std::string, Quantity>& consumed) {
  for (const auto& [name, capacity] : device.capacity) {
    auto it = consumed.find(name);
    if (it != consumed.end() && it->second >= capacity.value) return false;
  }
  return true;
}

std::optional<api::ShareableSummaryStatus> ShareableSummary(
    const std::vector<const api::Device*>& devices, const PoolUsage* usage) {
  api::ShareableSummaryStatus summary;
  int32_t fully = 0;
  int32_t partially = 0;
  std::map<std::string, CapacityTotals> totals;
  bool any = false;
  for (const api::Device* device : devices) {
    if (!device->allow_multiple_allocations.value_or(false)) continue;
    any = true;
    static const std::map<std::string, Quantity> kNone;
    const std::map<std::string, Quantity>* consumed = &kNone;
    if (usage != nullptr) {
      auto it = usage->consumed.find(device->name);
      if (it != usage->consumed.end()) consumed = &it->second;
    }
    const bool in_use =
        usage != nullptr && usage->devices.count(device->name) > 0;
    if (!in_use) {
      ++fully;
    } else if (HasCapacityLeft(*device, *consumed)) {
      ++partially;
    }
    for (const auto& [name, capacity] : device->capacity) {
      CapacityTotals& entry = totals[name];
      entry.total = Sum(entry.total, capacity.value);
      if (auto it = consumed->find(name); it != consumed->end()) {
        entry.consumed = Sum(entry.consumed, it->second);
      }
    }
  }
  if (!any) return std::nullopt;
  summary.fully_available_devices = fully;
  summary.partially_available_devices = partially;
  for (const auto& [name, entry] : totals) {
    StatusOr<Quantity> left = entry.total.Sub(entry.consumed);
    Quantity available = left.ok() && left->Sign() > 0 ? *left : Quantity();
    summary.capacity.push_back({.name = name,
                                .total = entry.total,
                                .consumed = entry.consumed,
                                .available = available});
  }
  return summary;
}

// The value of attribute `name` ("domain/id") on `device`: written in full,
// or as the bare id when the domain is the driver's.
const api::DeviceAttribute* FindAttribute(const api::Device& device,
                                          const std::string& driver,
                                          const std::string& name) {
  if (auto it = device.attributes.find(name); it != device.attributes.end()) {
    return &it->second;
  }
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.compare(0, slash, driver) != 0 ||
      slash != driver.size()) {
    return nullptr;
  }
  auto it = device.attributes.find(name.substr(slash + 1));
  return it == device.attributes.end() ? nullptr : &it->second;
}

// Counter set → counter → amount.
using CounterAmounts = std::map<std::string, std::map<std::string, Quantity>>;

// What a device draws, without the counter set names (partitions of
// different physical devices draw from different sets at the same cost).
std::vector<std::map<std::string, Quantity>> CostOf(const api::Device& device) {
  std::vector<std::map<std::string, Quantity>> cost;
  for (const api::DeviceCounterConsumption& use : device.consumes_counters) {
    auto& amounts = cost.emplace_back();
    for (const auto& [name, counter] : use.counters) {
      amounts[name] = counter.value;
    }
  }
  std::sort(cost.begin(), cost.end());
  return cost;
}

// Takes what `device` draws from `left` when all of it fits.
bool Draw(const api::Device& device, CounterAmounts& left) {
  CounterAmounts after = left;
  for (const api::DeviceCounterConsumption& use : device.consumes_counters) {
    for (const auto& [name, counter] : use.counters) {
      Quantity& amount = after[use.counter_set][name];
      StatusOr<Quantity> rest = amount.Sub(counter.value);
      if (!rest.ok() || rest->Sign() < 0) return false;
      amount = *rest;
    }
  }
  left = std::move(after);
  return true;
}

// One partitionable device with its grouping attribute and type.
struct Partition {
  const api::Device* device;
  std::string attribute;
  std::string type;
};

// The partitionable devices of a pool with their resolved types, or the
// validationError of a device without a string type.
StatusOr<std::vector<Partition>> Partitions(
    const PoolKey& key, const std::vector<const api::ResourceSlice*>& slices,
    const std::optional<std::string>& default_attribute) {
  std::vector<Partition> partitions;
  for (const api::ResourceSlice* slice : slices) {
    const std::optional<std::string>& attribute =
        slice->spec.partition_type_attribute.has_value()
            ? slice->spec.partition_type_attribute
            : default_attribute;
    if (!attribute.has_value()) continue;
    for (const api::Device& device : slice->spec.devices) {
      if (device.consumes_counters.empty()) continue;
      const api::DeviceAttribute* value =
          FindAttribute(device, key.first, *attribute);
      if (value == nullptr || !value->string_value.has_value()) {
        return InvalidArgumentError(fmt::format(
            "PartitionTypeMissing: device {} of pool {}/{} has no string "
            "attribute {}",
            device.name, key.first, key.second, *attribute));
      }
      partitions.push_back({&device, *attribute, *value->string_value});
    }
  }
  return partitions;
}

// Shared counters minus what the allocated devices draw.
CounterAmounts CountersLeft(
    const std::vector<const api::ResourceSlice*>& slices,
    const PoolUsage* usage) {
  CounterAmounts left;
  for (const api::ResourceSlice* slice : slices) {
    for (const api::CounterSet& set : slice->spec.shared_counters) {
      for (const auto& [name, counter] : set.counters) {
        left[set.name][name] = counter.value;
      }
    }
  }
  if (usage == nullptr) return left;
  for (const api::ResourceSlice* slice : slices) {
    for (const api::Device& device : slice->spec.devices) {
      if (usage->devices.count(device.name) == 0) continue;
      for (const auto& use : device.consumes_counters) {
        for (const auto& [name, counter] : use.counters) {
          Quantity& amount = left[use.counter_set][name];
          StatusOr<Quantity> rest = amount.Sub(counter.value);
          if (rest.ok()) amount = *rest;
        }
      }
    }
  }
  return left;
}

// partitionSummary of a pool (empty when no device has a grouping
// attribute), or a validationError: a type without string value
// (PartitionTypeMissing), no shared counters (PartitionTypeMissing), or two
// devices of one type at different costs (PartitionCostMismatch).
// allocatable counts, per type, the free devices that still fit one after
// another into the counters left.
StatusOr<std::vector<api::PartitionTypeStatus>> PartitionSummary(
    const PoolKey& key, const std::vector<const api::ResourceSlice*>& slices,
    const std::optional<std::string>& default_attribute,
    const PoolUsage* usage) {
  ASSIGN_OR_RETURN(std::vector<Partition> partitions,
                   Partitions(key, slices, default_attribute));
  std::map<std::pair<std::string, std::string>, std::vector<const api::Device*>>
      by_type;
  for (const Partition& partition : partitions) {
    by_type[{partition.attribute, partition.type}].push_back(partition.device);
  }
  if (by_type.empty()) return std::vector<api::PartitionTypeStatus>{};
  const CounterAmounts left = CountersLeft(slices, usage);
  if (left.empty()) {
    return InvalidArgumentError(fmt::format(
        "PartitionTypeMissing: pool {}/{} resolves a partition type attribute "
        "but publishes no sharedCounters",
        key.first, key.second));
  }
  std::vector<api::PartitionTypeStatus> summary;
  for (const auto& [type, devices] : by_type) {
    CounterAmounts free = left;
    int32_t allocatable = 0;
    for (const api::Device* device : devices) {
      if (CostOf(*device) != CostOf(*devices.front())) {
        return InvalidArgumentError(fmt::format(
            "PartitionCostMismatch: devices {} and {} of type {} differ in "
            "consumesCounters",
            devices.front()->name, device->name, type.second));
      }
      const bool in_use =
          usage != nullptr && usage->devices.count(device->name) > 0;
      if (!in_use && Draw(*device, free)) ++allocatable;
    }
    summary.push_back({.attribute = type.first,
                       .type = type.second,
                       .total = static_cast<int32_t>(devices.size()),
                       .allocatable = allocatable});
  }
  return summary;
}

// The node every slice names, or nullopt when they differ or name none.
std::optional<std::string> CommonNode(const PoolSlices& pool) {
  std::optional<std::string> node = pool.slices.front()->spec.node_name;
  for (const api::ResourceSlice* slice : pool.slices) {
    if (slice->spec.node_name != node) return std::nullopt;
  }
  if (node.has_value() && node->empty()) return std::nullopt;
  return node;
}

api::PoolStatus CountPool(
    const PoolKey& key, const PoolSlices& pool, const PoolUsage* usage,
    const api::ResourcePoolStatusRequestSpec& spec,
    const std::vector<const api::DeviceTaintRule*>& rules) {
  api::PoolStatus status{.driver = key.first,
                         .pool_name = key.second,
                         .generation = pool.generation};
  status.node_name = CommonNode(pool);
  const auto slice_count = static_cast<int32_t>(pool.slices.size());
  if (slice_count < pool.expected_slices) {
    std::string message = fmt::format(
        "PoolIncomplete: pool {}/{} is incomplete: observed {}/{} slices at "
        "generation {}",
        key.first, key.second, slice_count, pool.expected_slices,
        pool.generation);
    if (message.size() > kMaxValidationErrorBytes) {
      message.resize(kMaxValidationErrorBytes);
    }
    status.validation_error = std::move(message);
    return status;
  }
  std::vector<const api::Device*> devices;
  int32_t unavailable = 0;
  for (const api::ResourceSlice* slice : pool.slices) {
    for (const api::Device& device : slice->spec.devices) {
      devices.push_back(&device);
      if (DeviceUnavailable(device, key, rules)) ++unavailable;
    }
  }
  const auto total = static_cast<int32_t>(devices.size());
  const int32_t allocated =
      usage == nullptr ? 0 : static_cast<int32_t>(usage->devices.size());
  status.resource_slice_count = slice_count;
  status.total_devices = total;
  status.allocated_devices = allocated;
  status.unavailable_devices = unavailable;
  status.available_devices = std::max(0, total - allocated - unavailable);
  status.shareable_summary = ShareableSummary(devices, usage);
  // The counts stay valid when the partition view reports an error.
  auto partitions = PartitionSummary(
      key, pool.slices, spec.default_partition_type_attribute, usage);
  if (partitions.ok()) {
    status.partition_summary = std::move(*partitions);
  } else {
    std::string message(partitions.status().message());
    if (message.size() > kMaxValidationErrorBytes) {
      message.resize(kMaxValidationErrorBytes);
    }
    status.validation_error = std::move(message);
  }
  return status;
}

}  // namespace

api::ResourcePoolStatusRequestStatus
ResourcePoolStatusController::ComputeStatus(
    const api::ResourcePoolStatusRequestSpec& spec,
    const PoolStatusInputs& inputs, const api::Time& now) {
  const std::map<PoolKey, PoolSlices> pools = NewestPools(spec, inputs.slices);
  const std::map<PoolKey, PoolUsage> usage = UsageByPool(inputs.claims);
  const int32_t limit =
      spec.limit.value_or(api::kResourcePoolStatusRequestLimitDefault);
  api::ResourcePoolStatusRequestStatus status;
  status.pool_count = static_cast<int32_t>(pools.size());
  int incomplete = 0;
  for (const auto& [key, pool] : pools) {
    if (static_cast<int32_t>(status.pools.size()) >= limit) break;
    auto used = usage.find(key);
    status.pools.push_back(
        CountPool(key, pool, used == usage.end() ? nullptr : &used->second,
                  spec, inputs.taint_rules));
    if (status.pools.back().validation_error.has_value()) ++incomplete;
  }
  std::string message =
      fmt::format("Calculated status for {} pools", status.pools.size());
  if (incomplete > 0) message += fmt::format(" ({} incomplete)", incomplete);
  status.conditions.push_back({.type = api::kPoolStatusConditionComplete,
                               .status = "True",
                               .last_transition_time = now,
                               .reason = kReasonComplete,
                               .message = std::move(message)});
  return status;
}

ResourcePoolStatusController::ResourcePoolStatusController(
    client::ApiClient& client, client::Informer& requests,
    client::Informer& slices, client::Informer& claims,
    client::Informer& taint_rules, ResourcePoolStatusControllerOptions options)
    : client_(client),
      requests_(requests),
      slices_(slices),
      claims_(claims),
      taint_rules_(taint_rules),
      options_(std::move(options)) {
  requests_.AddHandler(
      [this](const ObjectPtr&, const ObjectPtr& now) { OnRequest(now); });
}

ResourcePoolStatusController::~ResourcePoolStatusController() { Stop(); }

void ResourcePoolStatusController::OnRequest(const ObjectPtr& now) {
  const auto* request = As<api::ResourcePoolStatusRequest>(now);
  if (request != nullptr && !request->status.has_value()) {
    queue_.Add(request->metadata.name);
  }
}

Status ResourcePoolStatusController::Sync(const std::string& name) {
  ObjectPtr object = requests_.Get("", name);
  const auto* request = As<api::ResourcePoolStatusRequest>(object);
  if (request == nullptr || request->status.has_value()) return OkStatus();
  // The pointers below stay valid while these lists hold the objects.
  const std::vector<ObjectPtr> slices = slices_.List();
  const std::vector<ObjectPtr> claims = claims_.List();
  const std::vector<ObjectPtr> rules = taint_rules_.List();
  PoolStatusInputs inputs;
  for (const ObjectPtr& o : slices) {
    if (const auto* slice = As<api::ResourceSlice>(o)) {
      inputs.slices.push_back(slice);
    }
  }
  for (const ObjectPtr& o : claims) {
    if (const auto* claim = As<api::ResourceClaim>(o)) {
      inputs.claims.push_back(claim);
    }
  }
  for (const ObjectPtr& o : rules) {
    if (const auto* rule = As<api::DeviceTaintRule>(o)) {
      inputs.taint_rules.push_back(rule);
    }
  }
  api::ResourcePoolStatusRequest answered = *request;
  answered.status = ComputeStatus(request->spec, inputs, NowRfc3339());
  StatusOr<ObjectPtr> written = client_.UpdateStatus(std::move(answered));
  if (!written.ok()) return written.status();
  MutexLock lock(mu_);
  ++metrics_.status_updates;
  return OkStatus();
}

bool ResourcePoolStatusController::ProcessOne(std::chrono::milliseconds wait) {
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  bool retry = false;
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (status.ok()) {
      failures_.erase(*key);
    } else {
      ++metrics_.sync_errors;
      retry = ++failures_[*key] < options_.max_retries;
      if (!retry) failures_.erase(*key);
    }
  }
  if (!status.ok()) {
    // A conflict means the request changed; its update queues it again.
    log::Debug(kLogName, "request {}: {}", *key, status.message());
  }
  queue_.Done(*key);
  if (retry) queue_.Add(*key);
  return true;
}

void ResourcePoolStatusController::Start() {
  worker_ = std::thread([this] {
    while (!stopping_) ProcessOne(std::chrono::milliseconds(200));
  });
}

void ResourcePoolStatusController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
}

ResourcePoolStatusControllerMetrics ResourcePoolStatusController::metrics()
    const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
