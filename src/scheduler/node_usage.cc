#include "scheduler/node_usage.h"

#include <algorithm>

namespace dralloc::scheduler {
namespace {

constexpr int64_t kDefaultMilliCpuRequest = 100;              // 100m
constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;  // 200Mi

using ResourceMap = std::map<std::string, Quantity>;

// Adds `resources` (a requests or allocatable map) to `amounts`.
void AddResources(ResourceAmounts& amounts, const ResourceMap& resources) {
  for (const auto& [name, quantity] : resources) {
    if (name == "cpu") {
      amounts.milli_cpu += quantity.MilliValue();
    } else if (name == "memory") {
      amounts.memory += quantity.Value();
    } else if (name == "ephemeral-storage") {
      amounts.ephemeral_storage += quantity.Value();
    } else if (name == "pods") {
      amounts.pods += quantity.Value();
    } else {
      amounts.scalar[name] += quantity.Value();
    }
  }
}

void TakeMax(ResourceAmounts& into, const ResourceAmounts& other) {
  into.milli_cpu = std::max(into.milli_cpu, other.milli_cpu);
  into.memory = std::max(into.memory, other.memory);
  into.ephemeral_storage =
      std::max(into.ephemeral_storage, other.ephemeral_storage);
  for (const auto& [name, value] : other.scalar) {
    int64_t& mine = into.scalar[name];
    mine = std::max(mine, value);
  }
}

// One container's requests; with `non_zero`, a missing cpu or memory
// request counts as the scoring default.
ResourceAmounts ContainerRequests(const api::Container& container,
                                  bool non_zero) {
  ResourceAmounts amounts;
  const ResourceMap& requests = container.resources.requests;
  AddResources(amounts, requests);
  if (non_zero) {
    if (!requests.contains("cpu")) amounts.milli_cpu = kDefaultMilliCpuRequest;
    if (!requests.contains("memory")) amounts.memory = kDefaultMemoryRequest;
  }
  return amounts;
}

bool IsSidecar(const api::Container& container) {
  return container.restart_policy == "Always";
}

ResourceAmounts Requests(const api::Pod& pod, bool non_zero) {
  ResourceAmounts total;
  for (const api::Container& container : pod.spec.containers) {
    total.Add(ContainerRequests(container, non_zero));
  }
  // Init containers run one at a time before the regular ones, each next to
  // the sidecars started before it; sidecars keep running with the pod.
  ResourceAmounts sidecars;
  ResourceAmounts init_peak;
  for (const api::Container& container : pod.spec.init_containers) {
    ResourceAmounts own = ContainerRequests(container, non_zero);
    if (IsSidecar(container)) {
      total.Add(own);
      sidecars.Add(own);
      TakeMax(init_peak, sidecars);
    } else {
      own.Add(sidecars);
      TakeMax(init_peak, own);
    }
  }
  TakeMax(total, init_peak);
  AddResources(total, pod.spec.overhead);
  total.pods = 1;
  return total;
}

}  // namespace

void ResourceAmounts::Add(const ResourceAmounts& other) {
  milli_cpu += other.milli_cpu;
  memory += other.memory;
  ephemeral_storage += other.ephemeral_storage;
  pods += other.pods;
  for (const auto& [name, value] : other.scalar) scalar[name] += value;
}

void ResourceAmounts::Subtract(const ResourceAmounts& other) {
  milli_cpu -= other.milli_cpu;
  memory -= other.memory;
  ephemeral_storage -= other.ephemeral_storage;
  pods -= other.pods;
  for (const auto& [name, value] : other.scalar) {
    auto it = scalar.find(name);
    if (it == scalar.end()) continue;
    it->second -= value;
    if (it->second == 0) scalar.erase(it);
  }
}

ResourceAmounts PodRequests(const api::Pod& pod) {
  return Requests(pod, /*non_zero=*/false);
}

ResourceAmounts NonZeroPodRequests(const api::Pod& pod) {
  return Requests(pod, /*non_zero=*/true);
}

ResourceAmounts NodeAllocatable(const api::Node& node) {
  ResourceAmounts amounts;
  AddResources(amounts, node.status.allocatable);
  return amounts;
}

std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> ports;
  auto add = [&](const api::Container& container) {
    for (const api::ContainerPort& port : container.ports) {
      if (port.host_port <= 0) continue;
      ports.push_back(
          {.ip = port.host_ip.empty() ? "0.0.0.0" : port.host_ip,
           .protocol = port.protocol.empty() ? "TCP" : port.protocol,
           .port = port.host_port});
    }
  };
  for (const api::Container& container : pod.spec.init_containers) {
    if (IsSidecar(container)) add(container);
  }
  for (const api::Container& container : pod.spec.containers) add(container);
  return ports;
}

void NodeUsage::Reset(const api::Node& node) {
  allocatable_ = NodeAllocatable(node);
  reports_allocatable_ = !node.status.allocatable.empty();
  requested_ = {};
  non_zero_requested_ = {};
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
