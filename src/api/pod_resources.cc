#include "api/pod_resources.h"

#include <map>
#include <string>

namespace dralloc::api {
namespace {

using Quantities = std::map<std::string, Quantity>;

// Quantities of real pods stay far below Quantity's range; a sum that would
// overflow keeps the larger operand.
Quantity Sum(const Quantity& a, const Quantity& b) {
  StatusOr<Quantity> sum = a.Add(b);
  if (!sum.ok()) return a.Compare(b) >= 0 ? a : b;
  return *std::move(sum);
}

void AddTo(ResourceList& list, const Quantities& more) {
  for (const auto& [name, value] : more) {
    auto [it, inserted] = list.try_emplace(name, value);
    if (!inserted) it->second = Sum(it->second, value);
  }
}

void MaxInto(ResourceList& list, const ResourceList& other) {
  for (const auto& [name, value] : other) {
    auto [it, inserted] = list.try_emplace(name, value);
    if (!inserted && value.Compare(it->second) > 0) it->second = value;
  }
}

bool IsSidecar(const Container& container) {
  return container.restart_policy.has_value() &&
         *container.restart_policy == "Always";
}

using Pick = const Quantities& (*)(const Container&);
const Quantities& RequestsOf(const Container& c) {
  return c.resources.requests;
}
const Quantities& LimitsOf(const Container& c) { return c.resources.limits; }

// The sidecar formula of KEP-753 over the values `pick` reads.
ResourceList AggregateContainers(const Pod& pod, Pick pick) {
  ResourceList result;
  for (const Container& container : pod.spec.containers) {
    AddTo(result, pick(container));
  }
  ResourceList sidecars;   // sidecars started so far
  ResourceList init_peak;  // the most any init step needs
  for (const Container& container : pod.spec.init_containers) {
    if (IsSidecar(container)) {
      AddTo(result, pick(container));
      AddTo(sidecars, pick(container));
      MaxInto(init_peak, sidecars);
    } else {
      ResourceList step = sidecars;
      AddTo(step, pick(container));
      MaxInto(init_peak, step);
    }
  }
  MaxInto(result, init_peak);
  return result;
}

bool SetsPodLevel(const Quantities& values) {
  for (const auto& entry : values) {
    if (IsSupportedPodLevelResource(entry.first)) return true;
  }
  return false;
}

void ApplyPodLevel(ResourceList& result, const Quantities& pod_level) {
  for (const auto& [name, value] : pod_level) {
    if (IsSupportedPodLevelResource(name)) result[name] = value;
  }
}

bool SetsPodLevelResources(const Pod& pod) {
  return pod.spec.resources.has_value() &&
         (SetsPodLevel(pod.spec.resources->requests) ||
          SetsPodLevel(pod.spec.resources->limits));
}

// Whether `values` has a non-zero cpu or memory entry.
bool HasQosCompute(const Quantities& values) {
  for (const char* name : {"cpu", "memory"}) {
    auto it = values.find(name);
    if (it != values.end() && it->second.Sign() != 0) return true;
  }
  return false;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view resource) {
  return resource == "cpu" || resource == "memory" ||
         resource.starts_with("hugepages-");
}

ResourceList TotalPodRequests(const Pod& pod) {
  ResourceList result = AggregateContainers(pod, RequestsOf);
  if (pod.spec.resources.has_value() &&
      SetsPodLevel(pod.spec.resources->requests)) {
    ApplyPodLevel(result, pod.spec.resources->requests);
  }
  AddTo(result, pod.spec.overhead);
  return result;
}

ResourceList TotalPodLimits(const Pod& pod) {
  ResourceList result = AggregateContainers(pod, LimitsOf);
  if (SetsPodLevelResources(pod)) {
    ApplyPodLevel(result, pod.spec.resources->limits);
  }
  for (const auto& [name, value] : pod.spec.overhead) {
    auto it = result.find(name);
    if (it != result.end() && it->second.Sign() != 0) {
      it->second = Sum(it->second, value);
    }
  }
  return result;
}

bool IsBestEffort(const Pod& pod) {
  if (SetsPodLevelResources(pod)) {
    return !HasQosCompute(pod.spec.resources->requests) &&
           !HasQosCompute(pod.spec.resources->limits);
  }
  for (const auto* containers :
       {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const Container& container : *containers) {
      if (HasQosCompute(container.resources.requests) ||
          HasQosCompute(container.resources.limits)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace dralloc::api
