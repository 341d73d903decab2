#include "scheduler/node_allocatable_claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "api/pod_resources.h"
#include "scheduler/node_usage.h"

namespace dralloc::scheduler {
namespace {

// a x b, exactly in thousandths (rounded up), as a decimal quantity.
Quantity Multiply(const Quantity& a, const Quantity& b) {
  const __int128 milli = static_cast<__int128>(a.MilliValue()) *
                         static_cast<__int128>(b.MilliValue());
  const __int128 rounded = (milli + 999) / 1000;
  const __int128 limit = std::numeric_limits<int64_t>::max();
  return Quantity::FromMilli(
      static_cast<int64_t>(rounded > limit ? limit : rounded));
}

Quantity Plus(const std::optional<Quantity>& a, const Quantity& b) {
  if (!a) return b;
  StatusOr<Quantity> sum = a->Add(b);
  return sum.ok() ? *sum : *a;
}

// What a mapping takes from one allocated device, as upstream's
// buildNodeAllocatableDRAInfo: deviceMultiplier per device, or the
// consumed capacity of `capacityKey` x capacityMultiplier (nothing when the
// result consumed none of it). A result without consumed capacity (a
// dedicated device) cannot be mapped by capacity: an error.
StatusOr<std::optional<Quantity>> MappedAmount(
    const api::NodeAllocatableMapping& mapping, const std::string& resource,
    const std::string& claim,
    const api::DeviceRequestAllocationResult& result) {
  using Amount = std::optional<Quantity>;
  if (mapping.device_multiplier) return Amount(*mapping.device_multiplier);
  if (!mapping.capacity_key) return Amount();
  if (result.consumed_capacity.empty()) {
    return FailedPreconditionError(fmt::format(
        "claim {}, device {}: ConsumedCapacity is nil, but Capacity key "
        "'{}' is set in NodeAllocatableResources for resource {}",
        claim, result.device, *mapping.capacity_key, resource));
  }
  auto consumed = result.consumed_capacity.find(*mapping.capacity_key);
  if (consumed == result.consumed_capacity.end()) return Amount();
  if (!mapping.capacity_multiplier) return Amount(consumed->second);
  return Amount(Multiply(consumed->second, *mapping.capacity_multiplier));
}

struct Totals {
  std::map<std::string, Quantity> mapped;
  std::map<std::string, std::pair<std::optional<Quantity>,
                                  std::optional<Quantity>>>
      overhead;  // perPod, perContainer
};

Status AddDevice(const api::Device& device,
                 const api::DeviceRequestAllocationResult& result,
                 const std::string& claim, Totals& totals) {
  for (const auto& [name, resource] : device.node_allocatable_resources) {
    if (resource.mapping) {
      ASSIGN_OR_RETURN(std::optional<Quantity> amount,
                       MappedAmount(*resource.mapping, name, claim, result));
      if (amount) {
        auto [it, inserted] = totals.mapped.try_emplace(name, *amount);
        if (!inserted) it->second = Plus(it->second, *amount);
      }
    }
    if (resource.overhead) {
      auto& [per_pod, per_container] = totals.overhead[name];
      if (resource.overhead->per_pod) {
        per_pod = Plus(per_pod, *resource.overhead->per_pod);
      }
      if (resource.overhead->per_container) {
        per_container = Plus(per_container, *resource.overhead->per_container);
      }
    }
  }
  return OkStatus();
}

// The amount of `name` in `amounts` (cpu in millicores).
int64_t AmountOf(const ResourceAmounts& amounts, const std::string& name) {
  if (name == "cpu") return amounts.milli_cpu;
  if (name == "memory") return amounts.memory;
  auto it = amounts.scalar.find(name);
  return it == amounts.scalar.end() ? 0 : it->second;
}

int64_t UnitsOf(const std::string& name, const Quantity& quantity) {
  return name == "cpu" ? quantity.MilliValue() : quantity.Value();
}

// What the claims listing `container` add to it: their mappings, perPod
// and perContainer overheads (upstream's GetContainerDRAAllocations).
std::map<std::string, int64_t> ContainerClaimShare(
    const std::vector<api::NodeAllocatableResourceClaimStatus>& statuses,
    const std::string& container) {
  std::map<std::string, int64_t> share;
  for (const auto& status : statuses) {
    if (std::find(status.containers.begin(), status.containers.end(),
                  container) == status.containers.end()) {
      continue;
    }
    for (const auto& mapped : status.mapping) {
      if (mapped.quantity) {
        share[mapped.name] += UnitsOf(mapped.name, *mapped.quantity);
      }
    }
    for (const auto& overhead : status.overhead) {
      for (const auto& amount : {overhead.per_pod, overhead.per_container}) {
        if (amount) share[overhead.name] += UnitsOf(overhead.name, *amount);
      }
    }
  }
  return share;
}

}  // namespace

std::vector<std::string> PodLevelResourcesShortfalls(
    const api::Pod& with_claims) {
  std::vector<std::string> reasons;
  if (!with_claims.spec.resources.has_value()) return reasons;
  const api::ResourceRequirements& pod_level = *with_claims.spec.resources;
  const ResourceAmounts aggregate = AggregateContainerRequests(with_claims);
  for (const auto& [name, quantity] : pod_level.requests) {
    if (!api::IsSupportedPodLevelResource(name)) continue;
    if (AmountOf(aggregate, name) > UnitsOf(name, quantity)) {
      reasons.push_back(fmt::format(
          "pod level request for {} is insufficient to cover the aggregated "
          "container and node-allocatable DRA requests",
          name));
    }
  }
  const auto& statuses =
      with_claims.status.node_allocatable_resource_claim_statuses;
  for (const auto& [name, quantity] : pod_level.limits) {
    if (!api::IsSupportedPodLevelResource(name)) continue;
    const int64_t limit = UnitsOf(name, quantity);
    if (name.starts_with("hugepages-")) {
      api::Pod limits_as_requests = with_claims;
      for (auto* list : {&limits_as_requests.spec.init_containers,
                         &limits_as_requests.spec.containers}) {
        for (api::Container& container : *list) {
          container.resources.requests = container.resources.limits;
        }
      }
      if (AmountOf(AggregateContainerRequests(limits_as_requests), name) >
          limit) {
        reasons.push_back(fmt::format(
            "pod level limit for {} is insufficient to cover the aggregated "
            "container and node-allocatable DRA limits",
            name));
      }
      continue;
    }
    for (const api::Container& container : with_claims.spec.containers) {
      auto own = container.resources.limits.find(name);
      if (own == container.resources.limits.end()) continue;
      const auto share = ContainerClaimShare(statuses, container.name);
      auto extra = share.find(name);
      const int64_t need = UnitsOf(name, own->second) +
                           (extra == share.end() ? 0 : extra->second);
      if (need > limit) {
        reasons.push_back(fmt::format(
            "pod level limit for {} is insufficient to cover the limit and "
            "DRA overhead for container {}",
            name, container.name));
      }
    }
  }
  return reasons;
}

std::vector<std::string> ContainersReferencing(
    const api::Pod& pod, std::string_view pod_claim_name) {
  std::vector<std::string> names;
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& container : *list) {
      for (const api::ContainerResourceClaim& claim :
           container.resources.claims) {
        if (claim.name == pod_claim_name) {
          names.push_back(container.name);
          break;
        }
      }
    }
  }
  return names;
}

StatusOr<std::optional<api::NodeAllocatableResourceClaimStatus>>
NodeAllocatableStatusFor(const api::Pod& pod, std::string_view pod_claim_name,
                         const std::string& claim_name,
                         const api::AllocationResult& allocation,
                         const AllocatedDeviceLookup& lookup) {
  Totals totals;
  const std::string claim = pod.metadata.namespace_ + "/" + claim_name;
  for (const auto& result : allocation.devices.results) {
    if (const api::Device* device = lookup(result)) {
      RETURN_IF_ERROR(AddDevice(*device, result, claim, totals));
    }
  }
  if (totals.mapped.empty() && totals.overhead.empty()) {
    return std::optional<api::NodeAllocatableResourceClaimStatus>();
  }
  api::NodeAllocatableResourceClaimStatus status;
  status.resource_claim_name = claim_name;
  status.containers = ContainersReferencing(pod, pod_claim_name);
  for (auto& [name, quantity] : totals.mapped) {
    status.mapping.push_back({.name = name, .quantity = quantity});
  }
  for (auto& [name, amounts] : totals.overhead) {
    status.overhead.push_back({.name = name,
                               .per_pod = amounts.first,
                               .per_container = amounts.second});
  }
  return std::optional(std::move(status));
}

bool HasNodeAllocatableMapping(const api::AllocationResult& allocation,
                               const AllocatedDeviceLookup& lookup) {
  for (const auto& result : allocation.devices.results) {
    const api::Device* device = lookup(result);
    if (device == nullptr) continue;
    for (const auto& [name, resource] : device->node_allocatable_resources) {
      if (resource.mapping) return true;
    }
  }
  return false;
}

}  // namespace dralloc::scheduler
