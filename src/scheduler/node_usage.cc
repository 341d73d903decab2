#include "scheduler/node_usage.h"

#include <algorithm>
#include <string_view>

#include "api/pod_resources.h"

namespace dralloc::scheduler {
namespace {

// A resource list with every quantity converted to the integer units
// ResourceAmounts keeps (millicores for cpu, units otherwise), by name.
using ResourceValues = std::map<std::string, int64_t, std::less<>>;

constexpr int64_t kDefaultMilliCpuRequest = 100;               // 100m
constexpr int64_t kDefaultMemoryRequest = int64_t{200} << 20;  // 200Mi

// upstream IsScalarResourceName: extended resources (a domain-prefixed
// name), prefixed native resources, hugepages and attachable volumes.
bool IsScalarResourceName(std::string_view name) {
  if (name.starts_with("hugepages-") ||
      name.starts_with("attachable-volumes-")) {
    return true;
  }
  return name.find('/') != std::string_view::npos &&
         !name.starts_with("requests.");
}

ResourceValues ToValues(const std::map<std::string, Quantity>& list) {
  ResourceValues values;
  for (const auto& [name, quantity] : list) {
    values[name] = name == "cpu" ? quantity.MilliValue() : quantity.Value();
  }
  return values;
}

void AddValues(ResourceValues& total, const ResourceValues& more) {
  for (const auto& [name, value] : more) total[name] += value;
}

void MaxValues(ResourceValues& total, const ResourceValues& other) {
  for (const auto& [name, value] : other) {
    auto [it, inserted] = total.try_emplace(name, value);
    if (!inserted) it->second = std::max(it->second, value);
  }
}

// A container's requests; with `non_zero`, cpu and memory that the
// container does not name get upstream's scoring defaults.
ResourceValues ContainerRequests(const api::Container& container,
                                 bool non_zero) {
  ResourceValues values = ToValues(container.resources.requests);
  if (non_zero) {
    values.try_emplace("cpu", kDefaultMilliCpuRequest);
    values.try_emplace("memory", kDefaultMemoryRequest);
  }
  return values;
}

bool IsSidecar(const api::Container& container) {
  return container.restart_policy.has_value() &&
         *container.restart_policy == "Always";
}

// KEP-5517: what the pod's claims add (pod.status.
// nodeAllocatableResourceClaimStatuses), split as upstream's 1.37 resource
// helper splits it: `pod_fixed` (each mapping and perPod overhead once per
// claim, for the pod's whole life) and `per_container` (a claim's
// perContainer overhead for each container of the spec it lists, which
// joins that container's own requests; listed names the spec lacks go to
// `pod_fixed`).
struct ClaimShares {
  ResourceValues pod_fixed;
  std::map<std::string, ResourceValues, std::less<>> per_container;
};

int64_t UnitsOf(const std::string& name, const Quantity& quantity) {
  return name == "cpu" ? quantity.MilliValue() : quantity.Value();
}

bool InSpec(const api::Pod& pod, std::string_view name) {
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& container : *list) {
      if (container.name == name) return true;
    }
  }
  return false;
}

ClaimShares ClaimSharesOf(const api::Pod& pod) {
  ClaimShares shares;
  for (const auto& status :
       pod.status.node_allocatable_resource_claim_statuses) {
    for (const auto& mapped : status.mapping) {
      if (mapped.quantity) {
        shares.pod_fixed[mapped.name] += UnitsOf(mapped.name, *mapped.quantity);
      }
    }
    for (const auto& overhead : status.overhead) {
      if (overhead.per_pod) {
        shares.pod_fixed[overhead.name] +=
            UnitsOf(overhead.name, *overhead.per_pod);
      }
      if (!overhead.per_container) continue;
      const int64_t each = UnitsOf(overhead.name, *overhead.per_container);
      for (const std::string& container : status.containers) {
        if (InSpec(pod, container)) {
          shares.per_container[container][overhead.name] += each;
        } else {
          shares.pod_fixed[overhead.name] += each;
        }
      }
    }
  }
  return shares;
}

// A container's requests with its share of the claims' overheads.
ResourceValues ContainerRequestsWithClaims(const api::Container& container,
                                           bool non_zero,
                                           const ClaimShares& shares) {
  ResourceValues values = ContainerRequests(container, non_zero);
  auto share = shares.per_container.find(container.name);
  if (share != shares.per_container.end()) AddValues(values, share->second);
  return values;
}

// upstream AggregateContainerRequests: regular containers and sidecars run
// together; each regular init container runs alone with the sidecars that
// started before it; the pod needs the larger of the two, plus what its
// claims add for the pod's whole life.
ResourceValues AggregateValues(const api::Pod& pod, bool non_zero) {
  const ClaimShares shares = ClaimSharesOf(pod);
  ResourceValues running;
  for (const api::Container& container : pod.spec.containers) {
    AddValues(running,
              ContainerRequestsWithClaims(container, non_zero, shares));
  }
  ResourceValues sidecars;
  ResourceValues init_peak;
  for (const api::Container& container : pod.spec.init_containers) {
    ResourceValues requests =
        ContainerRequestsWithClaims(container, non_zero, shares);
    if (IsSidecar(container)) {
      AddValues(running, requests);
      AddValues(sidecars, requests);
      MaxValues(init_peak, sidecars);
    } else {
      AddValues(requests, sidecars);
      MaxValues(init_peak, requests);
    }
  }
  MaxValues(running, init_peak);
  AddValues(running, shares.pod_fixed);
  return running;
}

// The pod-level requests (spec.resources.requests of cpu, memory and
// hugepages-*), empty when the pod sets none.
ResourceValues PodLevelRequests(const api::Pod& pod) {
  ResourceValues values;
  if (!pod.spec.resources.has_value()) return values;
  for (const auto& [name, quantity] : pod.spec.resources->requests) {
    if (api::IsSupportedPodLevelResource(name)) {
      values[name] = UnitsOf(name, quantity);
    }
  }
  return values;
}

// upstream resourcehelper.PodRequests: the containers' aggregate, where
// pod-level requests replace it for their resources (claims' additions
// included), plus spec.overhead. For scoring (`non_zero`), containers
// without cpu or memory count upstream's defaults; with pod-level requests
// the defaults apply only to what the pod then still lacks.
ResourceValues PodRequestValues(const api::Pod& pod, bool non_zero) {
  const ResourceValues pod_level = PodLevelRequests(pod);
  ResourceValues values = AggregateValues(pod, non_zero && pod_level.empty());
  for (const auto& [name, value] : pod_level) values[name] = value;
  if (non_zero && !pod_level.empty()) {
    values.try_emplace("cpu", kDefaultMilliCpuRequest);
    values.try_emplace("memory", kDefaultMemoryRequest);
  }
  AddValues(values, ToValues(pod.spec.overhead));
  return values;
}

// upstream Resource.Add: the resources NodeResourcesFit knows; others
// (a bare unknown name) are ignored.
ResourceAmounts ToAmounts(const ResourceValues& values) {
  ResourceAmounts amounts;
  for (const auto& [name, value] : values) {
    if (name == "cpu") {
      amounts.milli_cpu = value;
    } else if (name == "memory") {
      amounts.memory = value;
    } else if (name == "ephemeral-storage") {
      amounts.ephemeral_storage = value;
    } else if (name == "pods") {
      amounts.pods = value;
    } else if (IsScalarResourceName(name) && value != 0) {
      amounts.scalar[name] = value;
    }
  }
  return amounts;
}

HostPort MakeHostPort(const api::ContainerPort& port) {
  return HostPort{.ip = port.host_ip.empty() ? "0.0.0.0" : port.host_ip,
                  .protocol = port.protocol.empty() ? "TCP" : port.protocol,
                  .port = port.host_port};
}

void AppendHostPorts(const api::Container& container,
                     std::vector<HostPort>& out) {
  for (const api::ContainerPort& port : container.ports) {
    if (port.host_port > 0) out.push_back(MakeHostPort(port));
  }
}

}  // namespace

void ResourceAmounts::Add(const ResourceAmounts& other) {
  milli_cpu += other.milli_cpu;
  memory += other.memory;
  ephemeral_storage += other.ephemeral_storage;
  pods += other.pods;
  for (const auto& [name, value] : other.scalar) {
    if (value == 0) continue;
    auto [it, inserted] = scalar.try_emplace(name, value);
    if (!inserted && (it->second += value) == 0) scalar.erase(it);
  }
}

void ResourceAmounts::Subtract(const ResourceAmounts& other) {
  milli_cpu -= other.milli_cpu;
  memory -= other.memory;
  ephemeral_storage -= other.ephemeral_storage;
  pods -= other.pods;
  for (const auto& [name, value] : other.scalar) {
    if (value == 0) continue;
    auto [it, inserted] = scalar.try_emplace(name, -value);
    if (!inserted && (it->second -= value) == 0) scalar.erase(it);
  }
}

ResourceAmounts PodRequests(const api::Pod& pod) {
  ResourceAmounts amounts = ToAmounts(PodRequestValues(pod, false));
  amounts.pods = 1;
  return amounts;
}

ResourceAmounts NonZeroPodRequests(const api::Pod& pod) {
  ResourceAmounts amounts = ToAmounts(PodRequestValues(pod, true));
  amounts.pods = 1;
  return amounts;
}

ResourceAmounts AggregateContainerRequests(const api::Pod& pod) {
  return ToAmounts(AggregateValues(pod, false));
}

ResourceAmounts NodeAllocatable(const api::Node& node) {
  return ToAmounts(ToValues(node.status.allocatable));
}

// upstream GetHostPorts: sidecar init containers run for the pod's whole
// life, so their ports count; regular init containers' do not.
std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> ports;
  for (const api::Container& container : pod.spec.init_containers) {
    if (IsSidecar(container)) AppendHostPorts(container, ports);
  }
  for (const api::Container& container : pod.spec.containers) {
    AppendHostPorts(container, ports);
  }
  return ports;
}

void NodeUsage::Reset(const api::Node& node) {
  allocatable_ = NodeAllocatable(node);
  reports_allocatable_ = !node.status.allocatable.empty();
  requested_ = ResourceAmounts();
  non_zero_requested_ = ResourceAmounts();
  used_ports_.clear();
}

void NodeUsage::AddPod(const api::Pod& pod) {
  requested_.Add(PodRequests(pod));
  non_zero_requested_.Add(NonZeroPodRequests(pod));
  for (const HostPort& port : PodHostPorts(pod)) ++used_ports_[port];
}

void NodeUsage::RemovePod(const api::Pod& pod) {
  requested_.Subtract(PodRequests(pod));
  non_zero_requested_.Subtract(NonZeroPodRequests(pod));
  for (const HostPort& port : PodHostPorts(pod)) {
    auto it = used_ports_.find(port);
    if (it != used_ports_.end() && --it->second <= 0) used_ports_.erase(it);
  }
}

}  // namespace dralloc::scheduler
