// The vocabulary between the node agent and DRA drivers: which claim is
// meant (DraClaimRef) and what a driver prepared for it (PreparedDevice).
#ifndef DRALLOC_NODE_PREPARED_DEVICE_H_
#define DRALLOC_NODE_PREPARED_DEVICE_H_

#include <optional>
#include <string>
#include <vector>

namespace dralloc::node {

// A ResourceClaim as the DRA gRPC Claim message names it.
struct DraClaimRef {
  std::string namespace_;
  std::string uid;
  std::string name;
  friend bool operator==(const DraClaimRef&, const DraClaimRef&) = default;
};

// One device a driver prepared for a claim (the gRPC Device message).
struct PreparedDevice {
  // The claim requests this device serves ("req" or "req/subreq"); empty:
  // all of them.
  std::vector<std::string> request_names;
  std::string pool;
  std::string device;
  std::vector<std::string> cdi_device_ids;
  std::optional<std::string> share_id;  // v1 drivers only
  friend bool operator==(const PreparedDevice&,
                         const PreparedDevice&) = default;
};

// Whether `device` serves the container's `request` ("" = whole claim):
// an empty request list serves every request; "req/sub" serves "req".
bool ServesRequest(const PreparedDevice& device, const std::string& request);

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_PREPARED_DEVICE_H_
