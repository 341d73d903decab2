// DeviceInventory: the allocator's indexed model of the cluster's devices.
//
// Built from ResourceSlices with ResourceSlicePatches and DeviceTaintRules
// applied, it is updated when those objects change (patched slices and their
// CEL views are reused for slices that did not change) and answers, per node,
// which pools and devices the node can use (upstream's pool gathering). It
// also caches selector results per (expression, device), which stay valid
// until the next update.
#ifndef DRALLOC_ALLOCATOR_DEVICE_INVENTORY_H_
#define DRALLOC_ALLOCATOR_DEVICE_INVENTORY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocator/node_info.h"
#include "allocator/slice_patcher.h"
#include "api/types/device_class.h"
#include "api/types/device_taint_rule.h"
#include "api/types/resource_slice.h"
#include "api/types/resource_slice_patch.h"
#include "cel/dra/dra_environment.h"
#include "common/mutex.h"
#include "common/quantity.h"

namespace dralloc::allocator {

// One device as published (after patches and taint rules).
struct InventoryDevice {
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  uint32_t pool = 0;  // index into DeviceInventory::pools()
  std::string id;     // "<driver>/<pool>/<device>", the allocated-state key
  const cel::DraDevice* cel = nullptr;
  // Copies of facts of *device that the search reads for every candidate,
  // kept here so that its inner loop does not load the (large) api::Device.
  bool is_shareable = false;       // allowMultipleAllocations
  bool has_taints = false;         // !taints.empty()
  bool consumes_counters = false;  // !consumesCounters.empty()
  bool shareable() const { return is_shareable; }
};

// All slices of one (driver, pool name), any generation.
struct InventoryPool {
  std::string driver;
  std::string name;
  std::vector<uint32_t> slices;  // indices into slices(), sorted by name
};

// A pool as seen from one node (upstream GatherPools + buildPool).
struct GatheredPool {
  uint32_t pool = 0;
  int64_t generation = 0;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  bool has_binding_conditions = false;
  // Devices the node may use, in upstream order: slices by name, devices in
  // listed order; devices of per-device-node-selection slices that do not
  // match the node are left out.
  std::vector<uint32_t> devices;
  // Every device of the pool at this generation (also on other nodes), for
  // counter consumption by allocated devices.
  std::vector<uint32_t> all_devices;
  // Shared counters: counter_names[i] = "<set>/<counter>", capacity[i].
  std::vector<std::string> counter_names;
  std::vector<Quantity> counter_capacity;
};

struct NodeView {
  NodeInfo node;
  std::vector<GatheredPool>
      pools;  // by (driver, pool); binding-condition pools last
  // Counter consumption of a device: (counter index in its pool, amount).
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, Quantity>>>
      consumption;
  bool any_invalid = false;
  size_t num_devices = 0;
};

// Verdict of one selector on one device.
enum class SelectorVerdict : uint8_t { kUnknown, kNoMatch, kMatch, kError };

class DeviceInventory {
 public:
  DeviceInventory();
  ~DeviceInventory();
  DeviceInventory(const DeviceInventory&) = delete;
  DeviceInventory& operator=(const DeviceInventory&) = delete;

  // Replaces all inputs. Patches are re-applied only to slices that changed,
  // or to every slice when patches, taint rules or classes changed.
  void Update(std::vector<api::ResourceSlice> slices,
              std::vector<api::ResourceSlicePatch> patches,
              std::vector<api::DeviceTaintRule> taint_rules,
              std::vector<api::DeviceClass> classes);

  const api::DeviceClass* FindClass(std::string_view name) const;
  // The published device `device` of pool `pool` of `driver` (its newest
  // generation), or null.
  const api::Device* FindDevice(std::string_view driver, std::string_view pool,
                                std::string_view device) const;
  // Whether some device declares nodeAllocatableResources (KEP-5517).
  bool any_node_allocatable_resources() const {
    return any_node_allocatable_resources_;
  }
  // Whether some device declares compatibilityGroups (KEP-5963).
  bool any_compatibility_groups() const { return any_compatibility_groups_; }
  const std::vector<InventoryDevice>& devices() const { return devices_; }
  const std::vector<InventoryPool>& pools() const { return pools_; }
  const std::vector<const api::ResourceSlice*>& slices() const {
    return slices_;
  }
  // Patches or rules that failed on some device during the last Update.
  const std::vector<PatchProblem>& patch_problems() const {
    return patch_problems_;
  }
  // Number of slices whose patches were (re)computed by the last Update.
  size_t last_repatched() const { return last_repatched_; }
  uint64_t generation() const { return generation_; }

  // The pools `node` can use; cached per node until the next Update.
  std::shared_ptr<const NodeView> ViewFor(const NodeInfo& node) const
      EXCLUDES(mu_);

  // Cached verdicts of one selector expression, one slot per device; valid
  // until the next Update.
  using VerdictTable = std::atomic<uint8_t>*;
  struct Selector {
    std::shared_ptr<const cel::Program> program;
    VerdictTable verdicts = nullptr;
  };
  // The compiled selector and its verdict table (one lookup per request;
  // compile errors are returned, not cached).
  StatusOr<Selector> SelectorFor(const std::string& expression) const
      EXCLUDES(mu_);
  // Evaluates a compiled selector on a device, caching the verdict in
  // `table`. On kError, `error` receives the CEL runtime error (errors are
  // not cached, so the message is always available).
  SelectorVerdict MatchSelector(VerdictTable table, const cel::Program& program,
                                uint32_t device, Status* error) const;

 private:
  struct SliceEntry;
  std::shared_ptr<const NodeView> BuildView(const NodeInfo& node) const;
  // The pool's shared counters (declared by `pool_slices`) into `gathered`,
  // and what each of its devices consumes into `view.consumption`; unknown
  // or duplicate counter sets make the pool invalid.
  void GatherCounters(const std::vector<uint32_t>& pool_slices,
                      GatheredPool& gathered, NodeView& view) const;
  void Reindex() EXCLUDES(mu_);

  std::map<std::string, std::shared_ptr<SliceEntry>> entries_;  // by slice name
  std::vector<api::ResourceSlicePatch> patches_;
  std::vector<api::DeviceTaintRule> taint_rules_;
  std::map<std::string, api::DeviceClass, std::less<>> classes_;
  std::unique_ptr<SlicePatcher> patcher_;
  std::vector<PatchProblem> patch_problems_;
  size_t last_repatched_ = 0;
  uint64_t generation_ = 0;

  std::vector<const api::ResourceSlice*> slices_;  // sorted by name
  std::vector<InventoryDevice> devices_;
  std::vector<InventoryPool> pools_;
  std::map<std::pair<std::string, std::string>, uint32_t> pool_index_;
  bool any_node_allocatable_resources_ = false;
  bool any_compatibility_groups_ = false;
  // devices_ index of each slice's first device; one past the end last.
  std::vector<uint32_t> first_device_;
  // Pools (sorted indices) with a slice for the named node, and with a slice
  // for no single node (all nodes, a node selector, per-device selection).
  std::unordered_map<std::string, std::vector<uint32_t>> pools_by_node_name_;
  std::vector<uint32_t> pools_any_node_;

  mutable Mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const NodeView>>
      views_ GUARDED_BY(mu_);
  struct SelectorEntry {
    std::shared_ptr<const cel::Program> program;
    std::unique_ptr<std::atomic<uint8_t>[]> verdicts;
  };
  mutable std::unordered_map<std::string, SelectorEntry> selectors_
      GUARDED_BY(mu_);
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_DEVICE_INVENTORY_H_
