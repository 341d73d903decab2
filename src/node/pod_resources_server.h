// PodResourcesServer: the kubelet's PodResources v1 API on a unix socket,
// for monitoring agents: List and Get report, per container of each running
// pod, the DRA devices of its claims (KEP-3695 dynamic_resources: claim
// name and namespace; per device driver, pool, device, share id and CDI
// IDs). GetAllocatableResources answers empty (no device plugins, no CPU
// or memory managers here).
#ifndef DRALLOC_NODE_POD_RESOURCES_SERVER_H_
#define DRALLOC_NODE_POD_RESOURCES_SERVER_H_

#include <memory>
#include <string>

#include "common/status.h"
#include "node/claim_info_cache.h"
#include "node/pod_manager.h"

namespace grpc {
class Server;
}

namespace dralloc::node {

class PodResourcesService;

class PodResourcesServer {
 public:
  // `pods` and `claims` must outlive the server.
  PodResourcesServer(const PodManager& pods, const ClaimInfoCache& claims);
  ~PodResourcesServer();

  // Serves on `socket_path` (its directory is created; a stale socket file
  // there is replaced).
  Status Start(const std::string& socket_path);
  void Stop();

 private:
  std::unique_ptr<PodResourcesService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string socket_path_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_POD_RESOURCES_SERVER_H_
