#include "node/node_status.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "api/well_known.h"
#include "common/clock.h"
#include "common/log.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
constexpr std::string_view kComponent = "node-status";

std::string GoArch() {
  utsname names{};
  if (::uname(&names) != 0) return "amd64";
  std::string machine = names.machine;
  if (machine == "x86_64") return "amd64";
  if (machine == "aarch64") return "arm64";
  return machine;
}

std::string KernelRelease() {
  utsname names{};
  return ::uname(&names) == 0 ? names.release : "";
}

json NodeCondition(const std::string& type, bool status,
                   const std::string& reason, const std::string& message,
                   const std::string& now) {
  return {{"type", type},
          {"status", status ? "True" : "False"},
          {"lastHeartbeatTime", now},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// The conditions, keeping each one's lastTransitionTime from `old` when its
// status is the same.
json Conditions(const api::NodeStatus& old, const std::string& now) {
  json conditions = json::array(
      {NodeCondition("MemoryPressure", false, "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available", now),
       NodeCondition("DiskPressure", false, "KubeletHasNoDiskPressure",
                     "kubelet has no disk pressure", now),
       NodeCondition("PIDPressure", false, "KubeletHasSufficientPID",
                     "kubelet has sufficient PID available", now),
       NodeCondition("Ready", true, "KubeletReady",
                     "kubelet is posting ready status", now)});
  const api::RawJson* before =
      FindUnknownField(old.unknown_fields, "conditions");
  if (before == nullptr) return conditions;
  json previous = json::parse(before->json, nullptr, false);
  if (!previous.is_array()) return conditions;
  for (json& condition : conditions) {
    for (const json& p : previous) {
      if (p.value("type", "") == condition["type"] &&
          p.value("status", "") == condition["status"] &&
          p.contains("lastTransitionTime")) {
        condition["lastTransitionTime"] = p["lastTransitionTime"];
      }
    }
  }
  return conditions;
}

}  // namespace

NodeStatusReporter::NodeStatusReporter(client::ApiClient& api,
                                       NodeStatusOptions options)
    : api_(api), options_(std::move(options)) {}

NodeStatusReporter::~NodeStatusReporter() { Stop(); }

api::NodeStatus NodeStatusReporter::StatusFor(const api::Node& node) const {
  api::NodeStatus status = node.status;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  const int64_t memory =
      static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  status.capacity["cpu"] = Quantity::FromInt64(cpus > 0 ? cpus : 1);
  status.capacity["memory"] =
      *Quantity::Parse(std::to_string(memory > 0 ? memory / 1024 : 0) + "Ki");
  status.capacity["pods"] = Quantity::FromInt64(options_.max_pods);
  status.allocatable = status.capacity;
  // This agent honours ResourceSlice skipNodeOperations (KEP-5945).
  status.declared_features = {
      std::string(api::kDeclaredFeatureOptionalNodeOps)};
  const std::string now = NowRfc3339();
  SetUnknownField(status.unknown_fields, "conditions",
                  Conditions(node.status, now).dump());
  SetUnknownField(
      status.unknown_fields, "addresses",
      json::array({{{"type", "InternalIP"}, {"address", options_.host_ip}},
                   {{"type", "Hostname"}, {"address", options_.node_name}}})
          .dump());
  SetUnknownField(
      status.unknown_fields, "daemonEndpoints",
      json({{"kubeletEndpoint", {{"Port", options_.kubelet_port}}}}).dump());
  SetUnknownField(
      status.unknown_fields, "nodeInfo",
      json({{"machineID", ""},
            {"systemUUID", ""},
            {"bootID", ""},
            {"kernelVersion", KernelRelease()},
            {"osImage", "dralloc node agent"},
            {"containerRuntimeVersion", "dralloc://" + options_.runtime_name},
            {"kubeletVersion", options_.kubelet_version},
            {"kubeProxyVersion", ""},
            {"operatingSystem", "linux"},
            {"architecture", GoArch()}})
          .dump());
  return status;
}

Status NodeStatusReporter::Register() {
  auto existing = api_.Get(client::NodesResource(), "", options_.node_name);
  api::Node node;
  if (existing.ok()) {
    node = std::get<api::Node>(**existing);
  } else if (existing.status().code() == StatusCode::kNotFound) {
    node.metadata.name = options_.node_name;
  } else {
    return existing.status().WithPrefix("node " + options_.node_name);
  }
  node.metadata.labels["kubernetes.io/hostname"] = options_.node_name;
  node.metadata.labels["kubernetes.io/os"] = "linux";
  node.metadata.labels["kubernetes.io/arch"] = GoArch();
  client::ObjectPtr stored;
  if (existing.ok()) {
    ASSIGN_OR_RETURN(stored, api_.Update(node));
  } else {
    ASSIGN_OR_RETURN(stored, api_.Create(node));
  }
  api::Node written = std::get<api::Node>(*stored);
  written.status = StatusFor(written);
  auto updated = api_.UpdateStatus(written);
  if (!updated.ok()) {
    return updated.status().WithPrefix("node " + options_.node_name +
                                       ": status");
  }
  log::Info(kComponent, "node {} registered", options_.node_name);
  return OkStatus();
}

Status NodeStatusReporter::Heartbeat() {
  ASSIGN_OR_RETURN(client::ObjectPtr current,
                   api_.Get(client::NodesResource(), "", options_.node_name));
  api::Node node = std::get<api::Node>(*current);
  node.status = StatusFor(node);
  auto updated = api_.UpdateStatus(node);
  if (!updated.ok()) return updated.status();
  return OkStatus();
}

void NodeStatusReporter::Start() {
  thread_ = std::thread([this] {
    MutexLock lock(mu_);
    while (!stopping_) {
      wake_.WaitFor(mu_, options_.update_frequency,
                    [this]() REQUIRES(mu_) { return stopping_; });
      if (stopping_) return;
      mu_.Unlock();
      Status beat = Heartbeat();
      if (beat.code() == StatusCode::kNotFound) beat = Register();
      if (!beat.ok()) {
        log::Warn(kComponent, "node {}: heartbeat: {}", options_.node_name,
                  beat.message());
      }
      mu_.Lock();
    }
  });
}

void NodeStatusReporter::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

}  // namespace dralloc::node
