// NodeStatusReporter: registers this node's Node object and keeps it Ready,
// as the kubelet does: labels kubernetes.io/hostname, kubernetes.io/os and
// kubernetes.io/arch; status capacity and allocatable (cpu, memory, pods),
// addresses, nodeInfo, daemonEndpoints and the conditions MemoryPressure,
// DiskPressure, PIDPressure (False) and Ready (True, KubeletReady), whose
// lastHeartbeatTime is renewed every `update_frequency`.
//
// Status fields api::NodeStatus does not model go through unknown_fields.
#ifndef DRALLOC_NODE_NODE_STATUS_H_
#define DRALLOC_NODE_NODE_STATUS_H_

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"

namespace dralloc::node {

struct NodeStatusOptions {
  std::string node_name;
  std::string host_ip = "127.0.0.1";
  std::chrono::milliseconds update_frequency{10000};
  std::string kubelet_version = "v1.33.0-dralloc";
  int64_t max_pods = 110;
  // status.daemonEndpoints.kubeletEndpoint.Port: the container log server.
  int kubelet_port = 0;
  std::string runtime_name = "simulated";  // containerRuntimeVersion
};

class NodeStatusReporter {
 public:
  NodeStatusReporter(client::ApiClient& api, NodeStatusOptions options);
  ~NodeStatusReporter();
  NodeStatusReporter(const NodeStatusReporter&) = delete;
  NodeStatusReporter& operator=(const NodeStatusReporter&) = delete;

  // Creates the Node, or updates its labels and status when it exists.
  Status Register();
  // Renews the conditions' lastHeartbeatTime (and keeps Ready True).
  Status Heartbeat();
  // Heartbeats every update_frequency on a thread until Stop().
  void Start() EXCLUDES(mu_);
  void Stop() EXCLUDES(mu_);

  // The status this node reports now, over `node`'s.
  api::NodeStatus StatusFor(const api::Node& node) const;

 private:
  client::ApiClient& api_;
  const NodeStatusOptions options_;
  Mutex mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_NODE_STATUS_H_
