#include "classiccontroller/controller_decisions.h"

#include <algorithm>
#include <utility>

#include "api/claim_helpers.h"

namespace dralloc::classiccontroller {
namespace v1alpha2 = api::v1alpha2;

std::string DriverFinalizer(std::string_view driver) {
  return std::string(driver) + "/deletion-protection";
}

ClaimSync DecideClaimSync(const v1alpha2::ResourceClaim& claim,
                          const v1alpha2::ResourceClass* resource_class,
                          std::string_view driver) {
  ClaimSync out;
  if (!claim.status.reserved_for.empty()) return out;  // in use
  if (claim.metadata.deletion_timestamp ||
      claim.status.deallocation_requested) {
    if (!api::HasFinalizer(claim.metadata, DriverFinalizer(driver))) return out;
    out.action = ClaimSync::Action::kDeallocate;
    out.clear_allocation = claim.status.allocation.has_value();
    out.clear_deallocation_requested = claim.status.deallocation_requested;
    return out;
  }
  if (claim.status.allocation) return out;
  if (claim.spec.allocation_mode != v1alpha2::kAllocationModeImmediate) {
    return out;  // waits for its first consumer
  }
  if (resource_class == nullptr || resource_class->driver_name != driver) {
    out.action = ClaimSync::Action::kRetryLater;
    return out;
  }
  out.action = ClaimSync::Action::kAllocate;
  return out;
}

bool SchedulingContextNeedsDriver(const v1alpha2::PodSchedulingContext& context,
                                  const api::Pod& pod) {
  if (context.metadata.deletion_timestamp) return false;
  if (context.spec.selected_node.empty() &&
      context.spec.potential_nodes.empty()) {
    return false;  // the scheduler has not asked anything yet
  }
  if (pod.metadata.deletion_timestamp) return false;
  // Obsolete when it is not the current pod's.
  return api::IsControlledBy(context.metadata, pod.metadata.uid);
}

bool ClaimPendingForDriver(const v1alpha2::ResourceClaim& claim,
                           const v1alpha2::ResourceClass* resource_class,
                           std::string_view driver) {
  return claim.spec.allocation_mode ==
             v1alpha2::kAllocationModeWaitForFirstConsumer &&
         !claim.status.allocation && resource_class != nullptr &&
         resource_class->driver_name == driver;
}

std::vector<std::string> NodesToCheck(
    const v1alpha2::PodSchedulingContext& context) {
  std::vector<std::string> nodes = context.spec.potential_nodes;
  const std::string& selected = context.spec.selected_node;
  if (!selected.empty() &&
      std::find(nodes.begin(), nodes.end(), selected) == nodes.end()) {
    nodes.push_back(selected);
  }
  return nodes;
}

std::vector<std::string> TruncateNodes(std::vector<std::string> nodes,
                                       std::string_view selected_node) {
  if (nodes.size() <= v1alpha2::kPodSchedulingNodeListMaxSize) return nodes;
  if (nodes.front() == selected_node) {
    nodes.pop_back();
  } else {
    nodes.erase(nodes.begin());
  }
  return nodes;
}

bool SetUnsuitableNodes(v1alpha2::PodSchedulingContextStatus& status,
                        std::string_view pod_claim_name,
                        std::vector<std::string> unsuitable_nodes,
                        std::string_view selected_node) {
  std::vector<std::string> nodes =
      TruncateNodes(std::move(unsuitable_nodes), selected_node);
  for (v1alpha2::ResourceClaimSchedulingStatus& entry :
       status.resource_claims) {
    if (entry.name != pod_claim_name) continue;
    if (entry.unsuitable_nodes == nodes) return false;
    entry.unsuitable_nodes = std::move(nodes);
    return true;
  }
  status.resource_claims.push_back(
      {std::string(pod_claim_name), std::move(nodes)});
  return true;
}

}  // namespace dralloc::classiccontroller
