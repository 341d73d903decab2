#include "scheduler/cluster_snapshot.h"

#include <algorithm>

namespace dralloc::scheduler {

using client::As;
using client::ObjectPtr;

ClusterSnapshot::ClusterSnapshot(SnapshotSources sources)
    : sources_(sources), claims_(sources.claims) {}

void ClusterSnapshot::ObserveClaim(const std::string& key,
                                   const ObjectPtr& now) {
  claims_.Observe(key, now);
  Recount(key);
}

void ClusterSnapshot::AssumeClaim(const std::string& key, ObjectPtr assumed) {
  claims_.Assume(key, std::move(assumed));
  Recount(key);
}

void ClusterSnapshot::ConfirmClaim(const std::string& key, int64_t revision) {
  claims_.Confirm(key, revision);
  Recount(key);
}

void ClusterSnapshot::RestoreClaim(const std::string& key) {
  claims_.Restore(key);
  Recount(key);
}

void ClusterSnapshot::Recount(const std::string& claim_key) {
  ObjectPtr object = claims_.Get(claim_key);
  const auto* claim = As<api::ResourceClaim>(object);
  const api::AllocationResult* now =
      claim != nullptr && claim->status.allocation ? &*claim->status.allocation
                                                   : nullptr;
  auto counted = counted_.find(claim_key);
  if (counted != counted_.end()) {
    if (counted->second == object) return;  // the same version
    const api::AllocationResult& before =
        *As<api::ResourceClaim>(counted->second)->status.allocation;
    if (now != nullptr && before.devices == now->devices) {
      counted->second = std::move(object);  // keeps what it counts alive
      return;
    }
    allocated_.RemoveAllocation(before);
    counted_.erase(counted);
  }
  if (now != nullptr) {
    allocated_.AddAllocation(*now);
    counted_.emplace(claim_key, std::move(object));
  }
}

void ClusterSnapshot::Refresh() {
  if (inventory_dirty_) {
    std::vector<api::ResourceSlice> slices;
    std::vector<api::ResourceSlicePatch> patches;
    std::vector<api::DeviceTaintRule> rules;
    std::vector<api::DeviceClass> classes;
    for (const ObjectPtr& o : sources_.slices.List()) {
      if (const auto* s = As<api::ResourceSlice>(o)) slices.push_back(*s);
    }
    for (const ObjectPtr& o : sources_.slice_patches.List()) {
      if (const auto* p = As<api::ResourceSlicePatch>(o)) patches.push_back(*p);
    }
    for (const ObjectPtr& o : sources_.taint_rules.List()) {
      if (const auto* r = As<api::DeviceTaintRule>(o)) rules.push_back(*r);
    }
    for (const ObjectPtr& o : sources_.classes.List()) {
      if (const auto* c = As<api::DeviceClass>(o)) classes.push_back(*c);
    }
    inventory_.Update(std::move(slices), std::move(patches), std::move(rules),
                      std::move(classes));
    inventory_dirty_ = false;
  }
  if (nodes_dirty_) {
    nodes_.clear();
    for (ObjectPtr& o : sources_.nodes.List()) {
      const auto* node = As<api::Node>(o);
      if (node == nullptr) continue;
      nodes_.push_back({o, node, allocator::NodeInfo::FromNode(*node)});
    }
    std::sort(nodes_.begin(), nodes_.end(),
              [](const NodeEntry& a, const NodeEntry& b) {
                return a.info.name < b.info.name;
              });
    nodes_dirty_ = false;
  }
}

int64_t ClusterSnapshot::DeviceFillPercent(
    const allocator::NodeInfo& node) const {
  auto view = inventory_.ViewFor(node);
  size_t used = 0, total = 0;
  for (const auto& pool : view->pools) {
    total += pool.devices.size();
    for (uint32_t d : pool.devices) {
      if (allocated_.IsInUse(inventory_.devices()[d].id)) ++used;
    }
  }
  return total == 0 ? 0 : static_cast<int64_t>(used * 100 / total);
}

}  // namespace dralloc::scheduler
