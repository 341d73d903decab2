// SimulatedRuntime: pod status as the kubelet writes it, for pods whose
// containers are not really run (`--runtime simulated`): while the pod's
// resources are being prepared its containers are waiting with reason
// ContainerCreating; once started they are running and ready.
//
// Fields api::PodStatus does not model (hostIP(s), podIP(s), startTime,
// containerStatuses, qosClass) go through its unknown_fields. Pod IPs are
// fake but deterministic: 10.x.y.z from a hash of node name and pod UID.
// Pure functions of their inputs and the clock.
#ifndef DRALLOC_NODE_SIMULATED_RUNTIME_H_
#define DRALLOC_NODE_SIMULATED_RUNTIME_H_

#include <string>
#include <string_view>

#include "api/types/core.h"
#include "node/container_runtime.h"

namespace dralloc::node {

class SimulatedRuntime : public ContainerRuntime {
 public:
  SimulatedRuntime(std::string node_name, std::string host_ip);

  // `pod` with its status as while its resources are prepared.
  api::PodStatus CreatingStatus(const api::Pod& pod) const override;
  // `pod` with its containers started and ready.
  api::PodStatus RunningStatus(const api::Pod& pod) const;

  // ContainerRuntime: nothing runs; a started pod is running until stopped,
  // and its log is empty.
  void SetChangeListener(ChangeListener) override {}
  Status StartPod(const api::Pod&, const std::vector<ContainerDevices>&,
                  std::vector<std::string>&) override {
    return OkStatus();
  }
  uint64_t StateVersion(const std::string&) const override { return 1; }
  api::PodStatus StatusOf(const api::Pod& pod) const override {
    return RunningStatus(pod);
  }
  bool StopPod(const std::string&, std::chrono::seconds) override {
    return true;
  }
  StatusOr<ContainerLogRef> LogOf(const std::string&, const std::string&,
                                  const std::string&, bool) const override {
    return ContainerLogRef{};
  }

  std::string PodIp(std::string_view pod_uid) const;
  // "dralloc://<hex>", stable for a pod and container.
  static std::string ContainerId(std::string_view pod_uid,
                                 std::string_view container);

 private:
  // Status fields shared by both phases (host IPs, start time, conditions).
  api::PodStatus BaseStatus(const api::Pod& pod, bool running) const;

  const std::string node_name_;
  const std::string host_ip_;
};

// Sets (replaces or appends) unknown field `name` to `json` (compact JSON
// text as nlohmann::json::dump() writes it).
void SetUnknownField(api::UnknownFields& fields, std::string_view name,
                     std::string json);
// The unknown field `name`, or null.
const api::RawJson* FindUnknownField(const api::UnknownFields& fields,
                                     std::string_view name);
// `conditions` over the pod's own: conditions of other types are kept, and
// a condition whose status did not change keeps its lastTransitionTime.
void MergePodConditions(const api::Pod& pod,
                        std::vector<api::PodCondition>& conditions);
// The pod's status.startTime as first written, else `now`.
std::string PodStartTime(const api::Pod& pod, const std::string& now);

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_SIMULATED_RUNTIME_H_
