#include "node/simulated_runtime.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/clock.h"

namespace dralloc::node {
namespace {

using nlohmann::json;

uint64_t Fnv1a(std::string_view a, std::string_view b) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
  };
  mix(a);
  mix(std::string_view("\0", 1));
  mix(b);
  return hash;
}

api::PodCondition Condition(std::string type, bool status,
                            const std::string& now, std::string reason = "") {
  api::PodCondition condition;
  condition.type = std::move(type);
  condition.status = status ? "True" : "False";
  condition.last_transition_time = now;
  condition.reason = std::move(reason);
  return condition;
}

json ContainerStatus(const api::Pod& pod, const api::Container& container,
                     bool running, const std::string& now) {
  json status = {{"name", container.name}, {"image", container.image},
                 {"imageID", ""},          {"lastState", json::object()},
                 {"ready", running},       {"restartCount", 0},
                 {"started", running}};
  if (running) {
    status["containerID"] =
        SimulatedRuntime::ContainerId(pod.metadata.uid, container.name);
    status["imageID"] = "dralloc://" + container.image;
    status["state"] = {{"running", {{"startedAt", now}}}};
  } else {
    status["state"] = {{"waiting", {{"reason", "ContainerCreating"}}}};
  }
  return status;
}

}  // namespace

void SetUnknownField(api::UnknownFields& fields, std::string_view name,
                     std::string text) {
  for (auto& [key, value] : fields) {
    if (key == name) {
      value = {std::move(text), true};
      return;
    }
  }
  fields.emplace_back(std::string(name), api::RawJson{std::move(text), true});
}

const api::RawJson* FindUnknownField(const api::UnknownFields& fields,
                                     std::string_view name) {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

void MergePodConditions(const api::Pod& pod,
                        std::vector<api::PodCondition>& conditions) {
  std::vector<api::PodCondition> merged;
  for (const api::PodCondition& old : pod.status.conditions) {
    bool replaced = false;
    for (api::PodCondition& fresh : conditions) {
      if (fresh.type != old.type) continue;
      if (fresh.status == old.status && old.last_transition_time) {
        fresh.last_transition_time = old.last_transition_time;
      }
      replaced = true;
    }
    if (!replaced) merged.push_back(old);
  }
  merged.insert(merged.end(), conditions.begin(), conditions.end());
  conditions = std::move(merged);
}

std::string PodStartTime(const api::Pod& pod, const std::string& now) {
  const api::RawJson* start =
      FindUnknownField(pod.status.unknown_fields, "startTime");
  if (start == nullptr) return now;
  try {
    return json::parse(start->json).get<std::string>();
  } catch (const std::exception&) {
    return now;
  }
}

SimulatedRuntime::SimulatedRuntime(std::string node_name, std::string host_ip)
    : node_name_(std::move(node_name)), host_ip_(std::move(host_ip)) {}

std::string SimulatedRuntime::PodIp(std::string_view pod_uid) const {
  const uint64_t hash = Fnv1a(node_name_, pod_uid);
  return fmt::format("10.{}.{}.{}", (hash >> 16) & 0xff, (hash >> 8) & 0xff,
                     (hash & 0xff) % 253 + 1);
}

std::string SimulatedRuntime::ContainerId(std::string_view pod_uid,
                                          std::string_view container) {
  return fmt::format("dralloc://{:016x}", Fnv1a(pod_uid, container));
}

api::PodStatus SimulatedRuntime::BaseStatus(const api::Pod& pod,
                                            bool running) const {
  const std::string now = NowRfc3339();
  api::PodStatus status = pod.status;
  status.phase = running ? "Running" : "Pending";
  std::vector<api::PodCondition> conditions = {
      Condition("PodReadyToStartContainers", running, now),
      Condition("Initialized", true, now),
      Condition("Ready", running, now, running ? "" : "ContainersNotReady"),
      Condition("ContainersReady", running, now,
                running ? "" : "ContainersNotReady")};
  MergePodConditions(pod, conditions);
  status.conditions = std::move(conditions);
  SetUnknownField(status.unknown_fields, "hostIP", json(host_ip_).dump());
  SetUnknownField(status.unknown_fields, "hostIPs",
                  json::array({{{"ip", host_ip_}}}).dump());
  SetUnknownField(status.unknown_fields, "startTime",
                  json(PodStartTime(pod, now)).dump());
  SetUnknownField(status.unknown_fields, "qosClass", json("BestEffort").dump());
  json containers = json::array();
  for (const api::Container& container : pod.spec.containers) {
    containers.push_back(ContainerStatus(pod, container, running, now));
  }
  SetUnknownField(status.unknown_fields, "containerStatuses",
                  containers.dump());
  return status;
}

api::PodStatus SimulatedRuntime::CreatingStatus(const api::Pod& pod) const {
  return BaseStatus(pod, false);
}

api::PodStatus SimulatedRuntime::RunningStatus(const api::Pod& pod) const {
  api::PodStatus status = BaseStatus(pod, true);
  const std::string ip = PodIp(pod.metadata.uid);
  SetUnknownField(status.unknown_fields, "podIP", json(ip).dump());
  SetUnknownField(status.unknown_fields, "podIPs",
                  json::array({{{"ip", ip}}}).dump());
  return status;
}

}  // namespace dralloc::node
