#include "allocator/device_inventory.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <unordered_set>

#include "api/cel_device.h"
#include "cel/common/eval_context.h"

namespace dralloc::allocator {

struct DeviceInventory::SliceEntry {
  api::ResourceSlice input;
  api::ResourceSlice patched;
  std::vector<std::unique_ptr<cel::DraDevice>> cel;
  std::vector<PatchProblem> problems;
};

namespace {

bool DeviceTargetsNode(const api::Device& device, const NodeInfo& node) {
  if (device.node_name) return *device.node_name == node.name;
  if (device.all_nodes.value_or(false)) return true;
  if (device.node_selector)
    return NodeSelectorMatches(*device.node_selector, node);
  return false;
}

bool PerDeviceNodeSelection(const api::ResourceSlice& slice) {
  return slice.spec.per_device_node_selection.value_or(false);
}

// Whether a slice is relevant for the node (upstream: slices with none of the
// node fields set are a future extension and skipped).
bool SliceTargetsNode(const api::ResourceSlice& slice, const NodeInfo& node) {
  const auto& spec = slice.spec;
  if (spec.node_name) return *spec.node_name == node.name;
  if (spec.all_nodes.value_or(false)) return true;
  if (spec.node_selector) return NodeSelectorMatches(*spec.node_selector, node);
  if (PerDeviceNodeSelection(slice)) {
    return std::any_of(
        spec.devices.begin(), spec.devices.end(),
        [&](const api::Device& d) { return DeviceTargetsNode(d, node); });
  }
  return false;
}

bool ObjectsChanged(const auto& a, const auto& b) { return !(a == b); }

}  // namespace

DeviceInventory::DeviceInventory() = default;
DeviceInventory::~DeviceInventory() = default;

void DeviceInventory::Update(std::vector<api::ResourceSlice> slices,
                             std::vector<api::ResourceSlicePatch> patches,
                             std::vector<api::DeviceTaintRule> taint_rules,
                             std::vector<api::DeviceClass> classes) {
  std::map<std::string, api::DeviceClass, std::less<>> class_map;
  for (auto& c : classes) {
    std::string name = c.metadata.name;
    class_map.insert_or_assign(std::move(name), std::move(c));
  }
  const bool rules_changed = ObjectsChanged(patches, patches_) ||
                             ObjectsChanged(taint_rules, taint_rules_) ||
                             ObjectsChanged(class_map, classes_) ||
                             generation_ == 0;
  classes_ = std::move(class_map);
  if (rules_changed) {
    patches_ = std::move(patches);
    taint_rules_ = std::move(taint_rules);
    patcher_.reset();
    if (!patches_.empty() || !taint_rules_.empty()) {
      patcher_ = std::make_unique<SlicePatcher>(
          patches_, taint_rules_,
          [this](std::string_view name) { return FindClass(name); });
    }
  }

  std::map<std::string, std::shared_ptr<SliceEntry>> next;
  last_repatched_ = 0;
  for (auto& slice : slices) {
    // Two inputs with one name (possible in offline files) are both kept.
    std::string key = slice.metadata.name;
    for (int n = 1; next.contains(key); ++n) {
      key = slice.metadata.name + "\x01" + std::to_string(n);
    }
    auto old = entries_.find(key);
    if (!rules_changed && old != entries_.end() &&
        old->second->input == slice) {
      next.emplace(std::move(key), old->second);
      continue;
    }
    auto entry = std::make_shared<SliceEntry>();
    entry->patched = patcher_ ? patcher_->Apply(slice, entry->problems) : slice;
    entry->input = std::move(slice);
    for (const auto& device : entry->patched.spec.devices) {
      entry->cel.push_back(
          api::ToCelDevice(entry->patched.spec.driver, device));
    }
    ++last_repatched_;
    next.emplace(std::move(key), std::move(entry));
  }
  entries_ = std::move(next);
  ++generation_;
  Reindex();
}

void DeviceInventory::Reindex() {
  slices_.clear();
  devices_.clear();
  pools_.clear();
  pool_index_.clear();
  any_node_allocatable_resources_ = false;
  any_compatibility_groups_ = false;
  patch_problems_.clear();
  first_device_.assign(1, 0);
  pools_by_node_name_.clear();
  pools_any_node_.clear();
  for (const auto& [key, entry] : entries_) {
    const api::ResourceSlice& slice = entry->patched;
    const uint32_t slice_index = static_cast<uint32_t>(slices_.size());
    slices_.push_back(&slice);
    auto [it, inserted] =
        pool_index_.try_emplace({slice.spec.driver, slice.spec.pool.name},
                                static_cast<uint32_t>(pools_.size()));
    if (inserted) {
      pools_.push_back({slice.spec.driver, slice.spec.pool.name, {}});
    }
    pools_[it->second].slices.push_back(slice_index);
    std::vector<uint32_t>& node_pools =
        slice.spec.node_name ? pools_by_node_name_[*slice.spec.node_name]
                             : pools_any_node_;
    if (node_pools.empty() || node_pools.back() != it->second) {
      node_pools.push_back(it->second);
    }
    for (size_t i = 0; i < slice.spec.devices.size(); ++i) {
      const api::Device& device = slice.spec.devices[i];
      any_node_allocatable_resources_ |=
          !device.node_allocatable_resources.empty();
      for (const auto& consumption : device.consumes_counters) {
        any_compatibility_groups_ |= !consumption.compatibility_groups.empty();
      }
      devices_.push_back(InventoryDevice{
          &device, &slice, it->second,
          slice.spec.driver + "/" + slice.spec.pool.name + "/" + device.name,
          entry->cel[i].get(),
          device.allow_multiple_allocations.value_or(false),
          !device.taints.empty(), !device.consumes_counters.empty()});
    }
    first_device_.push_back(static_cast<uint32_t>(devices_.size()));
    patch_problems_.insert(patch_problems_.end(), entry->problems.begin(),
                           entry->problems.end());
  }
  // Slices are in name order, not pool order: sort the pool lists.
  auto sort_unique = [](std::vector<uint32_t>& pools) {
    std::sort(pools.begin(), pools.end());
    pools.erase(std::unique(pools.begin(), pools.end()), pools.end());
  };
  sort_unique(pools_any_node_);
  for (auto& [name, pools] : pools_by_node_name_) sort_unique(pools);
  MutexLock lock(mu_);
  views_.clear();
  selectors_.clear();
}

const api::Device* DeviceInventory::FindDevice(std::string_view driver,
                                               std::string_view pool,
                                               std::string_view device) const {
  auto it = pool_index_.find({std::string(driver), std::string(pool)});
  if (it == pool_index_.end()) return nullptr;
  const api::Device* found = nullptr;
  int64_t generation = 0;
  for (uint32_t s : pools_[it->second].slices) {
    const api::ResourceSlice& slice = *slices_[s];
    if (found != nullptr && slice.spec.pool.generation <= generation) continue;
    for (const api::Device& d : slice.spec.devices) {
      if (d.name == device) {
        found = &d;
        generation = slice.spec.pool.generation;
        break;
      }
    }
  }
  return found;
}

const api::DeviceClass* DeviceInventory::FindClass(
    std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

std::shared_ptr<const NodeView> DeviceInventory::ViewFor(
    const NodeInfo& node) const {
  {
    MutexLock lock(mu_);
    auto it = views_.find(node.name);
    if (it != views_.end() && it->second->node == node) return it->second;
  }
  auto view = BuildView(node);
  MutexLock lock(mu_);
  views_[node.name] = view;
  return view;
}

void DeviceInventory::GatherCounters(const std::vector<uint32_t>& pool_slices,
                                     GatheredPool& gathered,
                                     NodeView& view) const {
  std::map<std::string, uint32_t, std::less<>> counter_index;
  std::set<std::string, std::less<>> counter_sets;
  for (uint32_t s : pool_slices) {
    for (const auto& set : slices_[s]->spec.shared_counters) {
      if (!counter_sets.insert(set.name).second) {
        gathered.invalid = true;
        gathered.invalid_reason = "duplicate counter set " + set.name;
      }
      for (const auto& [name, counter] : set.counters) {
        std::string key = set.name + "/" + name;
        if (counter_index.contains(key)) continue;
        counter_index.emplace(
            key, static_cast<uint32_t>(gathered.counter_names.size()));
        gathered.counter_names.push_back(std::move(key));
        gathered.counter_capacity.push_back(counter.value);
      }
    }
    for (uint32_t d = first_device_[s]; d < first_device_[s + 1]; ++d) {
      gathered.all_devices.push_back(d);
    }
  }
  for (uint32_t d : gathered.all_devices) {
    const api::Device& device = *devices_[d].device;
    if (device.consumes_counters.empty()) continue;
    std::vector<std::pair<uint32_t, Quantity>> consumption;
    for (const auto& use : device.consumes_counters) {
      if (!counter_sets.contains(use.counter_set)) {
        gathered.invalid = true;
        gathered.invalid_reason = "device " + device.name +
                                  " consumes unknown counter set " +
                                  use.counter_set;
        continue;
      }
      for (const auto& [name, counter] : use.counters) {
        auto it = counter_index.find(use.counter_set + "/" + name);
        if (it == counter_index.end()) {
          gathered.invalid = true;
          gathered.invalid_reason = "device " + device.name +
                                    " consumes unknown counter " +
                                    use.counter_set + "/" + name;
          continue;
        }
        consumption.emplace_back(it->second, counter.value);
      }
    }
    view.consumption.emplace(d, std::move(consumption));
  }
}

std::shared_ptr<const NodeView> DeviceInventory::BuildView(
    const NodeInfo& node) const {
  auto view = std::make_shared<NodeView>();
  view->node = node;
  const std::vector<uint32_t>& first_device = first_device_;
  // Only pools with a slice that names this node or names no node can
  // target it; the rest are skipped without looking (in pool order).
  std::vector<uint32_t> candidates = pools_any_node_;
  if (auto named = pools_by_node_name_.find(node.name);
      named != pools_by_node_name_.end()) {
    std::vector<uint32_t> merged;
    merged.reserve(candidates.size() + named->second.size());
    std::set_union(candidates.begin(), candidates.end(), named->second.begin(),
                   named->second.end(), std::back_inserter(merged));
    candidates = std::move(merged);
  }

  for (uint32_t p : candidates) {
    const InventoryPool& pool = pools_[p];
    // Highest generation among the slices that target the node.
    std::vector<uint32_t> targeting;
    int64_t generation = -1;
    for (uint32_t s : pool.slices) {
      const api::ResourceSlice& slice = *slices_[s];
      if (!SliceTargetsNode(slice, node)) continue;
      if (slice.spec.pool.generation > generation) {
        generation = slice.spec.pool.generation;
        targeting.clear();
      }
      if (slice.spec.pool.generation == generation) targeting.push_back(s);
    }
    if (targeting.empty()) continue;

    GatheredPool gathered;
    gathered.pool = p;
    gathered.generation = generation;
    const int64_t expected =
        slices_[targeting.front()]->spec.pool.resource_slice_count;
    // Slices whose counter sets and counter consumption count: the node's
    // slices, plus the pool's other slices of this generation when the
    // node's alone are not the whole pool (upstream's buildPool).
    std::vector<uint32_t> pool_slices = targeting;
    if (static_cast<int64_t>(targeting.size()) != expected) {
      std::vector<uint32_t> same_generation;
      bool obsolete = false;
      for (uint32_t s : pool.slices) {
        int64_t g = slices_[s]->spec.pool.generation;
        if (g > generation) obsolete = true;
        if (g == generation) same_generation.push_back(s);
      }
      if (obsolete) continue;  // a newer generation is being published
      if (static_cast<int64_t>(same_generation.size()) != expected) {
        gathered.incomplete = true;
      }
      pool_slices = std::move(same_generation);
    }

    // Devices usable on the node, and the duplicate-name check.
    std::unordered_set<std::string_view> names;
    for (uint32_t s : targeting) {
      const api::ResourceSlice& slice = *slices_[s];
      // KEP-5945: a node whose kubelet would still call the driver cannot
      // use devices that declare they need no node operations.
      if (!slice.spec.skip_node_operations.empty() &&
          !node.optional_node_operations) {
        continue;
      }
      const bool per_device = PerDeviceNodeSelection(slice);
      for (uint32_t d = first_device[s]; d < first_device[s + 1]; ++d) {
        const api::Device& device = *devices_[d].device;
        if (!names.insert(device.name).second) {
          gathered.invalid = true;
          gathered.invalid_reason = "duplicate device name " + device.name;
        }
        if (per_device && !DeviceTargetsNode(device, node)) continue;
        if (!device.binding_conditions.empty()) {
          gathered.has_binding_conditions = true;
        }
        gathered.devices.push_back(d);
      }
    }

    GatherCounters(pool_slices, gathered, *view);
    view->any_invalid |= gathered.invalid;
    view->num_devices += gathered.devices.size();
    view->pools.push_back(std::move(gathered));
  }

  // pools_ is ordered by (driver, pool) already (std::map keys); pools with
  // binding conditions go last, keeping their order.
  std::sort(view->pools.begin(), view->pools.end(),
            [&](const GatheredPool& a, const GatheredPool& b) {
              const auto& pa = pools_[a.pool];
              const auto& pb = pools_[b.pool];
              return std::tie(a.has_binding_conditions, pa.driver, pa.name) <
                     std::tie(b.has_binding_conditions, pb.driver, pb.name);
            });
  return view;
}

StatusOr<DeviceInventory::Selector> DeviceInventory::SelectorFor(
    const std::string& expression) const {
  {
    MutexLock lock(mu_);
    auto it = selectors_.find(expression);
    if (it != selectors_.end()) {
      return Selector{it->second.program, it->second.verdicts.get()};
    }
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const cel::Program> program,
                   cel::SelectorCache().GetOrCompile(expression));
  MutexLock lock(mu_);
  SelectorEntry& entry = selectors_[expression];
  if (!entry.verdicts) {
    entry.program = std::move(program);
    entry.verdicts =
        std::make_unique<std::atomic<uint8_t>[]>(devices_.size() + 1);
    for (size_t i = 0; i <= devices_.size(); ++i) entry.verdicts[i].store(0);
  }
  return Selector{entry.program, entry.verdicts.get()};
}

SelectorVerdict DeviceInventory::MatchSelector(VerdictTable table,
                                               const cel::Program& program,
                                               uint32_t device,
                                               Status* error) const {
  auto cached = static_cast<SelectorVerdict>(
      table[device].load(std::memory_order_relaxed));
  if (cached == SelectorVerdict::kMatch ||
      cached == SelectorVerdict::kNoMatch) {
    return cached;
  }
  cel::EvalContext ctx;
  StatusOr<bool> result =
      cel::MatchSelector(program, *devices_[device].cel, ctx);
  if (!result.ok()) {
    if (error != nullptr) *error = result.status();
    table[device].store(static_cast<uint8_t>(SelectorVerdict::kError),
                        std::memory_order_relaxed);
    return SelectorVerdict::kError;
  }
  SelectorVerdict verdict =
      *result ? SelectorVerdict::kMatch : SelectorVerdict::kNoMatch;
  table[device].store(static_cast<uint8_t>(verdict), std::memory_order_relaxed);
  return verdict;
}

}  // namespace dralloc::allocator
