// DraPlugin, node allocatable resources through claims (KEP-5517): the fit
// check after Filter, the status entries Reserve computes, and PreBind's
// pod status write (which also records the extended resource claim).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler/dra_plugin.h"
#include "scheduler/node_allocatable_claims.h"
#include "scheduler/node_usage.h"

namespace dralloc::scheduler {
namespace {

constexpr int kStatusWriteAttempts = 5;

// Whether a pod other than `uid` holds a reservation of `claim`.
bool ReservedForAnother(const api::ResourceClaim& claim, std::string_view uid) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const api::ResourceClaimConsumerReference& ref) {
                       return ref.uid != uid;
                     });
}

// The resources `need` exceeds on a node with `free` left, by name.
std::vector<std::string> Shortfalls(const ResourceAmounts& need,
                                    const ResourceAmounts& allocatable,
                                    const ResourceAmounts& requested) {
  std::vector<std::string> names;
  if (need.milli_cpu > allocatable.milli_cpu - requested.milli_cpu) {
    names.push_back("cpu");
  }
  if (need.memory > allocatable.memory - requested.memory) {
    names.push_back("memory");
  }
  if (need.ephemeral_storage > 0 &&
      need.ephemeral_storage >
          allocatable.ephemeral_storage - requested.ephemeral_storage) {
    names.push_back("ephemeral-storage");
  }
  for (const auto& [name, amount] : need.scalar) {
    if (!name.starts_with("hugepages-")) continue;
    auto have = allocatable.scalar.find(name);
    auto used = requested.scalar.find(name);
    const int64_t left = (have == allocatable.scalar.end() ? 0 : have->second) -
                         (used == requested.scalar.end() ? 0 : used->second);
    if (amount > left) names.push_back(name);
  }
  return names;
}

}  // namespace

StatusOr<std::vector<api::NodeAllocatableResourceClaimStatus>>
DraPlugin::NodeAllocatableStatuses(
    const DraCycleState& state,
    const std::vector<api::AllocationResult>& allocations) const {
  std::vector<api::NodeAllocatableResourceClaimStatus> statuses;
  const allocator::DeviceInventory& inventory = snapshot_.inventory();
  if (!inventory.any_node_allocatable_resources()) return statuses;
  const AllocatedDeviceLookup lookup =
      [&](const api::DeviceRequestAllocationResult& r) {
        return inventory.FindDevice(r.driver, r.pool, r.device);
      };
  for (size_t i = 0; i < state.claims.size(); ++i) {
    const PodClaim& pc = state.claims[i];
    const api::AllocationResult* allocation =
        pc.claim->status.allocation ? &*pc.claim->status.allocation : nullptr;
    auto pos = std::find(state.to_allocate_index.begin(),
                         state.to_allocate_index.end(), i);
    if (pos != state.to_allocate_index.end()) {
      const size_t r = pos - state.to_allocate_index.begin();
      allocation = r < allocations.size() ? &allocations[r] : nullptr;
    }
    if (allocation == nullptr) continue;
    ASSIGN_OR_RETURN(
        auto status,
        NodeAllocatableStatusFor(state.pod, pc.name, pc.claim->metadata.name,
                                 *allocation, lookup));
    if (status) statuses.push_back(std::move(*status));
  }
  // Upstream orders the entries by claim name.
  std::sort(statuses.begin(), statuses.end(), [](const auto& a, const auto& b) {
    return a.resource_claim_name < b.resource_claim_name;
  });
  return statuses;
}

bool DraPlugin::NodeAllocatableFits(
    const DraCycleState& state, const NodeEntry& node,
    const std::vector<api::AllocationResult>& allocations,
    UnschedulableReasons& reasons) const {
  const allocator::DeviceInventory& inventory = snapshot_.inventory();
  if (!inventory.any_node_allocatable_resources()) return true;
  const AllocatedDeviceLookup lookup =
      [&](const api::DeviceRequestAllocationResult& r) {
        return inventory.FindDevice(r.driver, r.pool, r.device);
      };
  for (const PodClaim& pc : state.claims) {
    const auto& allocation = pc.claim->status.allocation;
    if (allocation && ReservedForAnother(*pc.claim, state.pod.metadata.uid) &&
        HasNodeAllocatableMapping(*allocation, lookup)) {
      reasons.Add(fmt::format(
          "node allocatable resource claim {} has a mapped device and cannot "
          "be shared across pods",
          pc.claim->metadata.name));
      return false;
    }
  }
  StatusOr<std::vector<api::NodeAllocatableResourceClaimStatus>> computed =
      NodeAllocatableStatuses(state, allocations);
  if (!computed.ok()) {
    reasons.Add(std::string(computed.status().message()));
    return false;
  }
  std::vector<api::NodeAllocatableResourceClaimStatus> statuses =
      *std::move(computed);
  if (statuses.empty()) return true;
  api::Pod with_claims = state.pod;
  with_claims.status.node_allocatable_resource_claim_statuses =
      std::move(statuses);
  const std::vector<std::string> uncovered =
      PodLevelResourcesShortfalls(with_claims);
  for (const std::string& reason : uncovered) reasons.Add(reason);
  if (!uncovered.empty()) return false;
  if (!node.usage.reports_allocatable()) return true;
  const std::vector<std::string> short_of =
      Shortfalls(PodRequests(with_claims), node.usage.allocatable(),
                 node.usage.requested());
  for (const std::string& name : short_of) {
    reasons.Add(fmt::format("Insufficient {}", name));
  }
  return short_of.empty();
}

Status DraPlugin::WritePodStatus(const BindTask& task) const {
  if (task.node_allocatable.empty() && !task.extended_claim.has_value()) {
    return OkStatus();
  }
  const api::Pod& scheduled = std::get<api::Pod>(*task.pod);
  const std::string& ns = scheduled.metadata.namespace_;
  const std::string& name = scheduled.metadata.name;
  for (int attempt = 0; attempt < kStatusWriteAttempts; ++attempt) {
    auto current = client_.Get(client::PodsResource(), ns, name);
    if (!current.ok()) return current.status();
    api::Pod next = std::get<api::Pod>(**current);
    if (next.metadata.uid != scheduled.metadata.uid) {
      return Status(StatusCode::kAborted,
                    fmt::format("pod {} was replaced", name));
    }
    if (!task.node_allocatable.empty()) {
      next.status.node_allocatable_resource_claim_statuses =
          task.node_allocatable;
    }
    if (task.extended_claim.has_value()) {
      next.status.extended_resource_claim_status =
          task.extended_claim->pod_status;
    }
    auto written = client_.UpdateStatus(api::Object(std::move(next)));
    if (written.ok()) return OkStatus();
    if (written.status().code() != StatusCode::kAborted) {
      return written.status();
    }
  }
  return Status(StatusCode::kAborted,
                fmt::format("pod {} status kept changing", name));
}

void DraPlugin::ClearNodeAllocatableStatus(const BindTask& task) const {
  const api::Pod& scheduled = std::get<api::Pod>(*task.pod);
  const std::string& ns = scheduled.metadata.namespace_;
  const std::string& name = scheduled.metadata.name;
  for (int attempt = 0; attempt < kStatusWriteAttempts; ++attempt) {
    auto current = client_.Get(client::PodsResource(), ns, name);
    if (!current.ok()) return;
    api::Pod next = std::get<api::Pod>(**current);
    if (next.metadata.uid != scheduled.metadata.uid ||
        next.status.node_allocatable_resource_claim_statuses.empty()) {
      return;
    }
    next.status.node_allocatable_resource_claim_statuses.clear();
    auto written = client_.UpdateStatus(api::Object(std::move(next)));
    if (written.ok() || written.status().code() != StatusCode::kAborted) {
      return;
    }
  }
}

}  // namespace dralloc::scheduler
