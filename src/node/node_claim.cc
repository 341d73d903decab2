#include "node/node_claim.h"

#include <algorithm>

#include "api/claim_helpers.h"
#include "api/well_known.h"

namespace dralloc::node {
namespace {

bool Skips(const api::DeviceRequestAllocationResult& result,
           std::string_view operation) {
  return std::ranges::any_of(
      result.skip_node_operations, [&](const std::string& skipped) {
        return skipped == operation || skipped == api::kSkipAllNodeOperations;
      });
}

// The drivers of a v1 allocation, each with the calls that every one of its
// devices skips (KEP-5945: the kubelet's aggregation).
std::map<std::string, DriverClaimState> DriversOf(
    const api::AllocationResult& allocation) {
  std::map<std::string, DriverClaimState> drivers;
  for (const auto& result : allocation.devices.results) {
    auto [it, first] = drivers.try_emplace(result.driver);
    DriverClaimState& state = it->second;
    const bool prepare = Skips(result, api::kSkipNodePrepare);
    const bool unprepare = Skips(result, api::kSkipNodeUnprepare);
    state.skip_prepare = first ? prepare : state.skip_prepare && prepare;
    state.skip_unprepare =
        first ? unprepare : state.skip_unprepare && unprepare;
  }
  for (auto& [driver, state] : drivers) state.prepared = state.skip_prepare;
  return drivers;
}

template <typename Claim>
NodeClaim IdentityOf(const Claim& claim, std::string_view pod_uid) {
  NodeClaim out;
  out.uid = claim.metadata.uid;
  out.namespace_ = claim.metadata.namespace_;
  out.name = claim.metadata.name;
  out.owned_by_pod =
      !pod_uid.empty() && api::IsControlledBy(claim.metadata, pod_uid);
  return out;
}

}  // namespace

NodeClaim NodeClaim::Of(const api::ResourceClaim& claim,
                        std::string_view pod_uid) {
  NodeClaim out = IdentityOf(claim, pod_uid);
  if (claim.status.allocation) {
    out.allocated = true;
    out.drivers = DriversOf(*claim.status.allocation);
  }
  out.reserved_for_pod =
      !pod_uid.empty() && api::IsReservedForPod(claim, pod_uid);
  return out;
}

NodeClaim NodeClaim::Of(const api::v1alpha2::ResourceClaim& claim,
                        std::string_view pod_uid) {
  NodeClaim out = IdentityOf(claim, pod_uid);
  if (const auto& allocation = claim.status.allocation) {
    out.allocated = true;
    for (const auto& handle : allocation->resource_handles) {
      if (!handle.driver_name.empty()) out.drivers[handle.driver_name];
    }
    if (out.drivers.empty() && !claim.status.driver_name.empty()) {
      out.drivers[claim.status.driver_name];
    }
  }
  out.reserved_for_pod =
      !pod_uid.empty() &&
      std::ranges::any_of(claim.status.reserved_for, [&](const auto& ref) {
        return ref.resource == "pods" && ref.uid == pod_uid;
      });
  return out;
}

}  // namespace dralloc::node
