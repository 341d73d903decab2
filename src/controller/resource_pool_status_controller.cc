#include "controller/resource_pool_status_controller.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "common/clock.h"
#include "common/log.h"
#include "common/text_escape.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

// Upstream's controller name, which its role and logs use too.
constexpr char kLogName[] = "resourcepoolstatusrequest-controller";
constexpr char kReasonComplete[] = "CalculationComplete";
// The longest validationError (+k8s:maxBytes=256).
constexpr size_t kMaxValidationErrorBytes = 256;
// The validationError prefix of a pool whose driver is still publishing its
// newest generation: the only error that is retried instead of written.
constexpr std::string_view kPoolIncompletePrefix = "PoolIncomplete:";

// `message` cut to what validationError may hold.
std::string ValidationError(std::string message) {
  if (message.size() > kMaxValidationErrorBytes) {
    message.resize(kMaxValidationErrorBytes);
  }
  return message;
}

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

// The slices of one pool at its newest generation, in slice name order.
struct PoolSlices {
  int64_t generation = 0;
  // resourceSliceCount as the first slice of that generation states it:
  // upstream takes it from the first slice it sees. Slices of one
  // generation normally agree; while they do not, the first one decides.
  int64_t expected_slices = 0;
  std::vector<const api::ResourceSlice*> slices;
};

// The pools of the requested driver (and pool name) at their newest
// generation. Slices are visited in name order, so "the first slice" and
// the device order the views report errors in do not depend on the order
// of the informer cache (upstream's lister order is unspecified).
std::map<PoolKey, PoolSlices> NewestPools(
    const api::ResourcePoolStatusRequestSpec& spec,
    const std::vector<const api::ResourceSlice*>& slices) {
  std::vector<const api::ResourceSlice*> ordered = slices;
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const api::ResourceSlice* a, const api::ResourceSlice* b) {
        return a->metadata.name < b->metadata.name;
      });
  std::map<PoolKey, PoolSlices> pools;
  for (const api::ResourceSlice* slice : ordered) {
    if (slice->spec.driver != spec.driver) continue;
    const api::ResourcePool& pool = slice->spec.pool;
    if (spec.pool_name.has_value() && pool.name != *spec.pool_name) continue;
    auto [it, added] = pools.try_emplace({slice->spec.driver, pool.name});
    PoolSlices& entry = it->second;
    if (!added && pool.generation < entry.generation) continue;
    if (added || pool.generation > entry.generation) {
      entry.generation = pool.generation;
      entry.expected_slices = pool.resource_slice_count;
      entry.slices.clear();
    }
    entry.slices.push_back(slice);
  }
  return pools;
}

// What the claims hold of each pool: allocated device names, and the
// capacity consumed per capacity name over all results in the pool.
struct PoolUsage {
  std::set<std::string> devices;
  std::map<std::string, Quantity> consumed;
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
      for (const auto& [name, amount] : result.consumed_capacity) {
        Quantity& total = pool.consumed[name];
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

// A device of a pool with its resolved grouping attribute (empty: none).
struct PoolDevice {
  const api::Device* device;
  std::string partition_attribute;
};

// The devices of `slices`, in order, each with its grouping attribute: the
// partitionTypeAttribute of its own slice; or, only when no device of the
// pool has one that way, the request's defaultPartitionTypeAttribute (for
// drivers that do not declare it themselves). So once any slice with
// devices declares an attribute, the devices of undeclared slices stay
// ungrouped; slices declaring different attributes group their devices
// each by their own. A declaring slice without devices declares for none.
std::vector<PoolDevice> ResolvePartitionAttributes(
    const std::vector<const api::ResourceSlice*>& slices,
    const std::optional<std::string>& default_attribute) {
  std::vector<PoolDevice> devices;
  bool pool_declares = false;
  for (const api::ResourceSlice* slice : slices) {
    const std::string declared =
        slice->spec.partition_type_attribute.value_or("");
    for (const api::Device& device : slice->spec.devices) {
      devices.push_back({&device, declared});
      if (!declared.empty()) pool_declares = true;
    }
  }
  if (!pool_declares && default_attribute.has_value()) {
    for (PoolDevice& device : devices) {
      device.partition_attribute = *default_attribute;
    }
  }
  return devices;
}

bool InUse(const PoolUsage* usage, const std::string& device) {
  return usage != nullptr && usage->devices.count(device) > 0;
}

// shareableSummary of a pool (nullopt when no device allows multiple
// allocations), or ShareableSummaryOverCap. As upstream: a shareable device
// is fully available when no claim uses it and partially available when
// one does, whatever capacity it has left; consumed is what all results in
// the pool consume, reported for the capacity names shareable devices have.
StatusOr<std::optional<api::ShareableSummaryStatus>> ShareableSummary(
    const PoolKey& key, const std::vector<PoolDevice>& devices,
    const PoolUsage* usage) {
  int32_t fully = 0;
  int32_t partially = 0;
  std::map<std::string, Quantity> totals;
  bool any = false;
  for (const PoolDevice& entry : devices) {
    const api::Device& device = *entry.device;
    if (!device.allow_multiple_allocations.value_or(false)) continue;
    any = true;
    ++(InUse(usage, device.name) ? partially : fully);
    for (const auto& [name, capacity] : device.capacity) {
      totals[name] = Sum(totals[name], capacity.value);
    }
  }
  if (!any) return std::optional<api::ShareableSummaryStatus>();
  if (totals.size() > kMaxPoolStatusListItems) {
    return InvalidArgumentError(fmt::format(
        "ShareableSummaryOverCap: pool {}/{} has {} shareable "
        "capacity keys, exceeding the maximum of {}",
        key.first, key.second, totals.size(), kMaxPoolStatusListItems));
  }
  api::ShareableSummaryStatus summary{.fully_available_devices = fully,
                                      .partially_available_devices = partially};
  for (const auto& [name, total] : totals) {
    Quantity consumed;
    if (usage != nullptr) {
      if (auto it = usage->consumed.find(name); it != usage->consumed.end()) {
        consumed = it->second;
      }
    }
    StatusOr<Quantity> left = total.Sub(consumed);
    Quantity available = left.ok() && left->Sign() > 0 ? *left : Quantity();
    summary.capacity.push_back({.name = name,
                                .total = total,
                                .consumed = consumed,
                                .available = available});
  }
  return std::optional<api::ShareableSummaryStatus>(std::move(summary));
}

// The value of attribute `name` ("domain/id") on `device`: written in full,
// or as the bare id when the domain is the driver's. The full form wins, so
// a full-form value that is not a string is not looked past.
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

// What `device` draws, as "set/counter=amount" terms, sorted and joined by
// ','. Two devices of one partition type must have the same key. The set
// name is part of it, as upstream: partitions of two physical GPUs draw
// from two sets, so they count as different costs. Amounts are compared as
// their canonical text, again as upstream, so 1Gi and 1073741824 differ.
std::string CostKey(const api::Device& device) {
  std::vector<std::string> terms;
  for (const api::DeviceCounterConsumption& use : device.consumes_counters) {
    for (const auto& [name, counter] : use.counters) {
      terms.push_back(fmt::format("{}/{}={}", use.counter_set, name,
                                  counter.value.ToString()));
    }
  }
  std::sort(terms.begin(), terms.end());
  return fmt::format("{}", fmt::join(terms, ","));
}

// Counter set → counter → amount left.
using CounterAmounts = std::map<std::string, std::map<std::string, Quantity>>;

// Whether each counter `device` draws is in `left` with at least the amount
// drawn. A counter (or whole set) missing from `left` never fits, whatever
// the amount, zero included: the pool does not offer it.
bool Fits(const api::Device& device, const CounterAmounts& left) {
  for (const api::DeviceCounterConsumption& use : device.consumes_counters) {
    const auto set = left.find(use.counter_set);
    for (const auto& [name, counter] : use.counters) {
      if (set == left.end()) return false;
      const auto amount = set->second.find(name);
      if (amount == set->second.end()) return false;
      if (amount->second.Compare(counter.value) < 0) return false;
    }
  }
  return true;
}

// Takes what `device` draws from `left`. Sets and counters that `left`
// lacks are skipped, never created. Amounts may go below zero (in-use
// devices over-committing a set), after which nothing more fits there.
void Deduct(const api::Device& device, CounterAmounts& left) {
  for (const api::DeviceCounterConsumption& use : device.consumes_counters) {
    const auto set = left.find(use.counter_set);
    if (set == left.end()) continue;
    for (const auto& [name, counter] : use.counters) {
      const auto amount = set->second.find(name);
      if (amount == set->second.end()) continue;
      if (StatusOr<Quantity> rest = amount->second.Sub(counter.value);
          rest.ok()) {
        amount->second = *rest;
      }
    }
  }
}

// The pool's shared counters minus what its in-use devices draw (once per
// device, however many claims share it).
CounterAmounts CountersLeft(
    const std::vector<const api::ResourceSlice*>& slices,
    const std::vector<PoolDevice>& devices, const PoolUsage* usage) {
  CounterAmounts left;
  for (const api::ResourceSlice* slice : slices) {
    for (const api::CounterSet& set : slice->spec.shared_counters) {
      auto& counters = left[set.name];
      for (const auto& [name, counter] : set.counters) {
        counters[name] = counter.value;
      }
    }
  }
  for (const PoolDevice& entry : devices) {
    if (InUse(usage, entry.device->name)) Deduct(*entry.device, left);
  }
  return left;
}

// partitionSummary of a pool, or its validationError. Empty when no device
// has a grouping attribute. Otherwise, in this order:
// - no slice publishes sharedCounters: PartitionTypeMissing (pool form),
//   whether or not any device consumes counters;
// - then each counter-consuming device with a grouping attribute, in pool
//   order: one without that attribute as a string is PartitionTypeMissing
//   (device form), one costing other than the first device of its type is
//   PartitionCostMismatch (see CostKey);
// - more types than a status list may hold: PartitionSummaryOverCap.
// Devices consuming no counters are not partitions and are not listed.
// allocatable counts, per type on its own, the free devices that still fit
// one after another (Fits, Deduct) into the counters left.
StatusOr<std::vector<api::PartitionTypeStatus>> PartitionSummary(
    const PoolKey& key, const std::vector<const api::ResourceSlice*>& slices,
    const std::vector<PoolDevice>& devices, const PoolUsage* usage) {
  const bool grouped = std::any_of(
      devices.begin(), devices.end(),
      [](const PoolDevice& d) { return !d.partition_attribute.empty(); });
  if (!grouped) return std::vector<api::PartitionTypeStatus>{};
  const bool has_counters = std::any_of(
      slices.begin(), slices.end(),
      [](const auto* slice) { return !slice->spec.shared_counters.empty(); });
  if (!has_counters) {
    return InvalidArgumentError(fmt::format(
        "PartitionTypeMissing: pool {}/{} declares partitionTypeAttribute "
        "but publishes no sharedCounters",
        key.first, key.second));
  }
  struct Group {
    std::string cost;
    int32_t total = 0;
    std::vector<const api::Device*> free;
  };
  // Keyed by (attribute, type): the order of the status list.
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const PoolDevice& entry : devices) {
    const api::Device& device = *entry.device;
    if (device.consumes_counters.empty() || entry.partition_attribute.empty()) {
      continue;
    }
    const api::DeviceAttribute* value =
        FindAttribute(device, key.first, entry.partition_attribute);
    if (value == nullptr || !value->string_value.has_value()) {
      return InvalidArgumentError(fmt::format(
          "PartitionTypeMissing: device {} in pool {}/{} does not carry "
          "partition type attribute {}",
          GoQuote(device.name), key.first, key.second,
          GoQuote(entry.partition_attribute)));
    }
    const std::string& type = *value->string_value;
    Group& group = groups[{entry.partition_attribute, type}];
    std::string cost = CostKey(device);
    if (group.total == 0) {
      group.cost = std::move(cost);
    } else if (cost != group.cost) {
      return InvalidArgumentError(fmt::format(
          "PartitionCostMismatch: devices of partition type {} in pool {}/{} "
          "consume different counters",
          GoQuote(type), key.first, key.second));
    }
    ++group.total;
    if (!InUse(usage, device.name)) group.free.push_back(&device);
  }
  if (groups.size() > kMaxPoolStatusListItems) {
    return InvalidArgumentError(fmt::format(
        "PartitionSummaryOverCap: pool {}/{} has {} partition "
        "types, exceeding the maximum of {}",
        key.first, key.second, groups.size(), kMaxPoolStatusListItems));
  }
  const CounterAmounts left = CountersLeft(slices, devices, usage);
  std::vector<api::PartitionTypeStatus> summary;
  for (const auto& [type, group] : groups) {
    CounterAmounts free = left;
    int32_t allocatable = 0;
    for (const api::Device* device : group.free) {
      if (!Fits(*device, free)) continue;
      Deduct(*device, free);
      ++allocatable;
    }
    summary.push_back({.attribute = type.first,
                       .type = type.second,
                       .total = group.total,
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
    status.validation_error = ValidationError(fmt::format(
        "{} pool {}/{} is incomplete: observed {}/{} slices at generation {}",
        kPoolIncompletePrefix, key.first, key.second, slice_count,
        pool.expected_slices, pool.generation));
    return status;
  }
  const std::vector<PoolDevice> devices = ResolvePartitionAttributes(
      pool.slices, spec.default_partition_type_attribute);
  const auto unavailable = static_cast<int32_t>(
      std::count_if(devices.begin(), devices.end(), [&](const PoolDevice& d) {
        return DeviceUnavailable(*d.device, key, rules);
      }));
  const auto total = static_cast<int32_t>(devices.size());
  const int32_t allocated =
      usage == nullptr ? 0 : static_cast<int32_t>(usage->devices.size());
  status.resource_slice_count = slice_count;
  status.total_devices = total;
  status.allocated_devices = allocated;
  status.unavailable_devices = unavailable;
  status.available_devices = std::max(0, total - allocated - unavailable);
  // The counts stay valid when a view reports an error. The first error
  // (partitions before shareable) is the pool's validationError; any error
  // drops partitionSummary, and only its own drops shareableSummary.
  auto partitions = PartitionSummary(key, pool.slices, devices, usage);
  auto shareable = ShareableSummary(key, devices, usage);
  std::optional<std::string> view_error;
  if (!partitions.ok()) view_error = std::string(partitions.status().message());
  if (shareable.ok()) {
    status.shareable_summary = std::move(*shareable);
  } else if (!view_error.has_value()) {
    view_error = std::string(shareable.status().message());
  }
  if (view_error.has_value()) {
    status.validation_error = ValidationError(std::move(*view_error));
  } else {
    status.partition_summary = std::move(*partitions);
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
  // Upstream's message calls every listed pool with a validationError
  // "incomplete". A written status has no PoolIncomplete pools (the
  // controller retries instead), so there it counts the view errors.
  int with_errors = 0;
  for (const auto& [key, pool] : pools) {
    if (static_cast<int32_t>(status.pools.size()) >= limit) break;
    auto used = usage.find(key);
    status.pools.push_back(
        CountPool(key, pool, used == usage.end() ? nullptr : &used->second,
                  spec, inputs.taint_rules));
    if (status.pools.back().validation_error.has_value()) ++with_errors;
  }
  std::string message =
      fmt::format("Calculated status for {} pools", status.pools.size());
  if (with_errors > 0) message += fmt::format(" ({} incomplete)", with_errors);
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
      options_(std::move(options)),
      queue_({.max_retries = options_.max_retries,
              .base_delay = options_.retry_base_delay,
              .max_delay = options_.retry_max_delay,
              .clock = options_.clock}) {
  requests_.AddHandler(
      [this](const ObjectPtr&, const ObjectPtr& now) { OnRequest(now); });
}

ResourcePoolStatusController::~ResourcePoolStatusController() { Stop(); }

bool ResourcePoolStatusController::HasIncompletePool(
    const api::ResourcePoolStatusRequestStatus& status) {
  return std::any_of(
      status.pools.begin(), status.pools.end(),
      [](const api::PoolStatus& pool) {
        return pool.validation_error.has_value() &&
               pool.validation_error->starts_with(kPoolIncompletePrefix);
      });
}

bool ResourcePoolStatusController::RequestExpired(
    const api::ResourcePoolStatusRequest& request, SystemTime now,
    const ResourcePoolStatusControllerOptions& options) {
  const auto older_than = [now](std::string_view stamp,
                                std::chrono::milliseconds ttl) {
    const std::optional<SystemTime> time = ParseUtcTime(stamp);
    return time.has_value() && now - *time > ttl;
  };
  const std::string created = request.metadata.creation_timestamp.value_or("");
  if (!request.status.has_value()) {
    return older_than(created, options.pending_request_ttl);
  }
  for (const api::Condition& condition : request.status->conditions) {
    if (condition.type == api::kPoolStatusConditionComplete ||
        condition.type == api::kPoolStatusConditionFailed) {
      return older_than(condition.last_transition_time,
                        options.finished_request_ttl);
    }
  }
  return older_than(created, options.finished_request_ttl);
}

void ResourcePoolStatusController::OnRequest(const ObjectPtr& now) {
  // Every addition or update of a request without a status queues it, also
  // one that was dropped after its retries.
  const auto* request = As<api::ResourcePoolStatusRequest>(now);
  if (request != nullptr && !request->status.has_value()) {
    queue_.Add(request->metadata.name);
  }
}

Status ResourcePoolStatusController::Sync(const std::string& name) {
  ObjectPtr object = requests_.Get("", name);
  const auto* request = As<api::ResourcePoolStatusRequest>(object);
  if (request == nullptr || request->status.has_value()) return OkStatus();
  // Listing an informer cache cannot fail, so upstream's Failed answer
  // (CalculationFailed, for a failed lister) has no cause here.
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
  answered.status =
      ComputeStatus(request->spec, inputs, FormatUtcTime(options_.clock()));
  // A driver still publishing its newest generation: the answer would be
  // final (the status is immutable), so wait for the rest of the slices.
  if (HasIncompletePool(*answered.status)) {
    MutexLock lock(mu_);
    ++metrics_.incomplete_syncs;
    return UnavailableError("incomplete pools detected, requeueing");
  }
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
  const client::RetryQueue::Outcome outcome = queue_.Finish(*key, status.ok());
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (!status.ok()) ++metrics_.sync_errors;
    if (outcome == client::RetryQueue::Outcome::kRetrying) ++metrics_.requeues;
    if (outcome == client::RetryQueue::Outcome::kDropped) ++metrics_.dropped;
  }
  if (outcome == client::RetryQueue::Outcome::kRetrying) {
    log::Debug(kLogName, "request {}: {}", *key, status.message());
  } else if (outcome == client::RetryQueue::Outcome::kDropped) {
    log::Warn(kLogName,
              "request {}: dropped after {} requeues, until it changes: {}",
              *key, options_.max_retries, status.message());
  }
  return true;
}

size_t ResourcePoolStatusController::SweepExpired() {
  const SystemTime now = options_.clock();
  size_t deleted = 0;
  for (const ObjectPtr& object : requests_.List()) {
    const auto* request = As<api::ResourcePoolStatusRequest>(object);
    if (request == nullptr || !RequestExpired(*request, now, options_)) {
      continue;
    }
    const std::string& name = request->metadata.name;
    // The uid precondition spares a newer request of the same name, which
    // the cache may not show yet.
    const Status status =
        client_.Delete(client::ResourcePoolStatusRequestsResource(), "", name,
                       request->metadata.uid);
    if (status.ok()) {
      ++deleted;
      log::Debug(kLogName, "deleted expired request {}", name);
    } else if (status.code() != StatusCode::kNotFound) {
      log::Warn(kLogName, "deleting expired request {}: {}", name,
                status.message());
    }
  }
  if (deleted > 0) {
    log::Info(kLogName, "cleanup completed: deleted {} expired requests",
              deleted);
  }
  MutexLock lock(mu_);
  ++metrics_.sweeps;
  metrics_.requests_deleted += deleted;
  return deleted;
}

void ResourcePoolStatusController::Loop() {
  // As upstream waits for its caches: an answer computed before the caches
  // have their first list would count nothing, and the answer is final.
  for (client::Informer* informer :
       {&requests_, &slices_, &claims_, &taint_rules_}) {
    while (!stopping_ &&
           !informer->WaitForSync(std::chrono::milliseconds(200))) {
    }
  }
  SystemTime next_sweep = options_.clock();
  while (!stopping_) {
    const SystemTime now = options_.clock();
    if (now >= next_sweep) {
      SweepExpired();
      next_sweep = now + options_.sweep_period;
    }
    const auto until_sweep = std::chrono::ceil<std::chrono::milliseconds>(
        next_sweep - options_.clock());
    ProcessOne(std::clamp(until_sweep, std::chrono::milliseconds(1),
                          std::chrono::milliseconds(200)));
  }
}

void ResourcePoolStatusController::Start() {
  worker_ = std::thread([this] { Loop(); });
}

void ResourcePoolStatusController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
}

bool ResourcePoolStatusController::Idle() const { return queue_.Idle(); }

size_t ResourcePoolStatusController::PendingRetries() const {
  return queue_.PendingRetries();
}

ResourcePoolStatusControllerMetrics ResourcePoolStatusController::metrics()
    const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
