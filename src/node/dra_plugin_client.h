// DraPluginClient: the kubelet's side of one driver's DRA service
// (NodePrepareResources / NodeUnprepareResources) over a unix socket, in
// the gRPC API version negotiated at registration (v1 or v1beta1).
//
// Every call has a deadline (the kubelet's default is 45 s). A failed call
// (transport error, deadline, non-OK gRPC status) fails every claim of the
// batch; otherwise each claim has its own outcome: the driver's per-claim
// error, or a claim missing from the response, is an error for that claim
// only. Thread-safe: calls may run concurrently.
#ifndef DRALLOC_NODE_DRA_PLUGIN_CLIENT_H_
#define DRALLOC_NODE_DRA_PLUGIN_CLIENT_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "node/prepared_device.h"

namespace grpc {
class Channel;
}

namespace dralloc::node {

enum class DraApiVersion { kV1, kV1beta1 };
// "v1.DRAPlugin" / "v1beta1.DRAPlugin": the service names drivers list in
// PluginInfo.supported_versions.
const char* DraServiceName(DraApiVersion version);

// The outcome per claim UID.
using PrepareResults =
    std::map<std::string, StatusOr<std::vector<PreparedDevice>>>;
using UnprepareResults = std::map<std::string, Status>;

class DraPluginClient {
 public:
  // Connects lazily: an endpoint with nothing listening fails the first call
  // (kUnavailable), not this constructor. `endpoint` is a socket path.
  DraPluginClient(std::string driver, std::string endpoint,
                  DraApiVersion version, std::chrono::milliseconds timeout);
  ~DraPluginClient();

  // One NodePrepareResources call for `claims` (all of one driver).
  PrepareResults Prepare(const std::vector<DraClaimRef>& claims) const;
  // One NodeUnprepareResources call for `claims`.
  UnprepareResults Unprepare(const std::vector<DraClaimRef>& claims) const;

  const std::string& driver() const { return driver_; }
  const std::string& endpoint() const { return endpoint_; }
  DraApiVersion version() const { return version_; }

 private:
  const std::string driver_;
  const std::string endpoint_;
  const DraApiVersion version_;
  const std::chrono::milliseconds timeout_;
  std::shared_ptr<grpc::Channel> channel_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DRA_PLUGIN_CLIENT_H_
