#include "node/device_health_status.h"

#include <nlohmann/json.hpp>

#include "api/claim_helpers.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {
namespace {

using nlohmann::json;

const ClaimInfo* FindClaim(const std::vector<ClaimInfo>& claims,
                           const std::string& namespace_,
                           std::string_view name) {
  for (const ClaimInfo& claim : claims) {
    if (claim.namespace_ == namespace_ && claim.name == name) return &claim;
  }
  return nullptr;
}

// The ResourceClaim name behind pod claim entry `entry_name`; "" when
// there is none (yet).
std::string ClaimNameOf(const api::Pod& pod, const std::string& entry_name) {
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (entry.name != entry_name) continue;
    api::PodClaimName resolved = api::ClaimNameFor(pod, entry);
    using Kind = api::PodClaimName::Kind;
    if (resolved.kind == Kind::kDirect || resolved.kind == Kind::kGenerated) {
      return std::string(resolved.name);
    }
    return "";
  }
  return "";
}

// The resources[] of one allocatedResourcesStatus entry.
json ResourcesOf(const ClaimInfo& claim, const std::string& request,
                 const DeviceHealthCache& health) {
  json resources = json::array();
  std::set<std::string> seen;
  const auto now = DeviceHealthCache::Clock::now();
  for (const auto& [driver, state] : claim.drivers) {
    for (const PreparedDevice& device : state.devices) {
      if (!ServesRequest(device, request)) continue;
      const std::string id = driver + "/" + device.pool + "/" + device.device;
      if (!seen.insert(id).second) continue;
      DeviceHealthInfo info =
          health.Get({driver, device.pool, device.device}, now);
      json entry = {{"resourceID", id},
                    {"health", DeviceHealthName(info.health)}};
      if (!info.message.empty()) entry["message"] = info.message;
      resources.push_back(std::move(entry));
    }
  }
  return resources;
}

// allocatedResourcesStatus for `container`, keeping entries of other names
// from `old`.
json ContainerResourcesStatus(const api::Pod& pod,
                              const api::Container& container,
                              const std::vector<ClaimInfo>& claims,
                              const DeviceHealthCache& health,
                              const json& old) {
  std::vector<std::pair<std::string, json>> entries;
  if (old.is_array()) {
    for (const json& entry : old) {
      if (entry.is_object() && entry.contains("name") &&
          entry["name"].is_string()) {
        entries.emplace_back(entry["name"].get<std::string>(), entry);
      }
    }
  }
  for (const api::ContainerResourceClaim& ref : container.resources.claims) {
    const std::string claim_name = ClaimNameOf(pod, ref.name);
    const ClaimInfo* claim =
        claim_name.empty()
            ? nullptr
            : FindClaim(claims, pod.metadata.namespace_, claim_name);
    if (claim == nullptr) continue;
    std::string name = "claim:" + ref.name;
    if (!ref.request.empty()) name += "/" + ref.request;
    json entry = {{"name", name},
                  {"resources", ResourcesOf(*claim, ref.request, health)}};
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it != entries.end()) {
      it->second = std::move(entry);
    } else {
      entries.emplace_back(name, std::move(entry));
    }
  }
  json out = json::array();
  for (auto& [name, entry] : entries) {
    if (entry.contains("resources") && entry["resources"].is_array() &&
        !entry["resources"].empty()) {
      out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace

void SetAllocatedResourcesStatus(const api::Pod& pod,
                                 const std::vector<ClaimInfo>& claims,
                                 const DeviceHealthCache& health,
                                 api::PodStatus& status) {
  const api::RawJson* raw =
      FindUnknownField(status.unknown_fields, "containerStatuses");
  if (raw == nullptr) return;
  json statuses = json::parse(raw->json, nullptr, /*allow_exceptions=*/false);
  if (!statuses.is_array()) return;
  bool touched = false;
  for (json& container_status : statuses) {
    if (!container_status.is_object() || !container_status.contains("name") ||
        !container_status["name"].is_string()) {
      continue;
    }
    const std::string name = container_status["name"].get<std::string>();
    for (const api::Container& container : pod.spec.containers) {
      if (container.name != name || container.resources.claims.empty()) {
        continue;
      }
      json old = container_status.value("allocatedResourcesStatus", json());
      json fresh =
          ContainerResourcesStatus(pod, container, claims, health, old);
      if (fresh.empty()) {
        container_status.erase("allocatedResourcesStatus");
      } else {
        container_status["allocatedResourcesStatus"] = std::move(fresh);
      }
      touched = true;
    }
  }
  if (touched) {
    SetUnknownField(status.unknown_fields, "containerStatuses",
                    statuses.dump());
  }
}

std::set<std::string> PodsUsingDevices(const std::vector<ClaimInfo>& claims,
                                       const std::vector<DeviceKey>& devices) {
  std::set<std::string> pods;
  for (const ClaimInfo& claim : claims) {
    for (const DeviceKey& key : devices) {
      auto state = claim.drivers.find(key.driver);
      if (state == claim.drivers.end()) continue;
      for (const PreparedDevice& device : state->second.devices) {
        if (device.pool == key.pool && device.device == key.device) {
          pods.insert(claim.pod_uids.begin(), claim.pod_uids.end());
        }
      }
    }
  }
  return pods;
}

}  // namespace dralloc::node
