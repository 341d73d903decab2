// DraService<Api>: the DRAPlugin gRPC service of one API version (v1 or
// v1beta1), converting between its messages and the driver's structs.
//
// Every claim of a request gets an entry in the response, even when the
// driver left it out (then with an error), as the kubelet requires.
#ifndef DRALLOC_KUBELETPLUGIN_INTERNAL_DRA_SERVICE_H_
#define DRALLOC_KUBELETPLUGIN_INTERNAL_DRA_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.grpc.pb.h"
#include "kubeletplugin/internal/plugin_state.h"

namespace dralloc::kubeletplugin::internal {

struct DraV1 {
  using Plugin = k8s::io::kubelet::pkg::apis::dra::v1::DRAPlugin;
  using PrepareRequest =
      k8s::io::kubelet::pkg::apis::dra::v1::NodePrepareResourcesRequest;
  using PrepareResponse =
      k8s::io::kubelet::pkg::apis::dra::v1::NodePrepareResourcesResponse;
  using UnprepareRequest =
      k8s::io::kubelet::pkg::apis::dra::v1::NodeUnprepareResourcesRequest;
  using UnprepareResponse =
      k8s::io::kubelet::pkg::apis::dra::v1::NodeUnprepareResourcesResponse;
  static constexpr bool kHasShareId = true;
};

struct DraV1beta1 {
  using Plugin = k8s::io::kubelet::pkg::apis::dra::v1beta1::DRAPlugin;
  using PrepareRequest =
      k8s::io::kubelet::pkg::apis::dra::v1beta1::NodePrepareResourcesRequest;
  using PrepareResponse =
      k8s::io::kubelet::pkg::apis::dra::v1beta1::NodePrepareResourcesResponse;
  using UnprepareRequest =
      k8s::io::kubelet::pkg::apis::dra::v1beta1::NodeUnprepareResourcesRequest;
  using UnprepareResponse =
      k8s::io::kubelet::pkg::apis::dra::v1beta1::NodeUnprepareResourcesResponse;
  static constexpr bool kHasShareId = false;
};

// The claims of a request, in request order.
template <typename Request>
std::vector<ClaimRef> ClaimRefsOf(const Request& request) {
  std::vector<ClaimRef> claims;
  claims.reserve(request.claims_size());
  for (const auto& claim : request.claims()) {
    claims.push_back({claim.namespace_(), claim.uid(), claim.name()});
  }
  return claims;
}

// Message used when the driver did not answer for a claim.
inline std::string MissingClaimError(const ClaimRef& claim) {
  return "claim " + claim.namespace_ + "/" + claim.name + " (uid " + claim.uid +
         "): driver returned no result";
}

template <typename Api, typename DeviceMessage>
void FillDevice(const PreparedDevice& device, DeviceMessage& out) {
  for (const auto& name : device.request_names) out.add_request_names(name);
  out.set_pool_name(device.pool_name);
  out.set_device_name(device.device_name);
  for (const auto& id : device.cdi_device_ids) out.add_cdi_device_ids(id);
  if constexpr (Api::kHasShareId) {
    if (device.share_id) out.set_share_id(*device.share_id);
  }
}

template <typename Api>
class DraService final : public Api::Plugin::Service {
 public:
  explicit DraService(PluginState* state) : state_(state) {}

  grpc::Status NodePrepareResources(
      grpc::ServerContext*, const typename Api::PrepareRequest* request,
      typename Api::PrepareResponse* response) override {
    const std::vector<ClaimRef> claims = ClaimRefsOf(*request);
    auto results = state_->Prepare(claims);
    auto& out = *response->mutable_claims();
    for (const ClaimRef& claim : claims) {
      auto& entry = out[claim.uid];
      auto it = results.find(claim.uid);
      if (it == results.end()) {
        entry.set_error(MissingClaimError(claim));
      } else if (!it->second.error.ok()) {
        entry.set_error(it->second.error.message());
      } else {
        for (const PreparedDevice& device : it->second.devices) {
          FillDevice<Api>(device, *entry.add_devices());
        }
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status NodeUnprepareResources(
      grpc::ServerContext*, const typename Api::UnprepareRequest* request,
      typename Api::UnprepareResponse* response) override {
    const std::vector<ClaimRef> claims = ClaimRefsOf(*request);
    auto results = state_->Unprepare(claims);
    auto& out = *response->mutable_claims();
    for (const ClaimRef& claim : claims) {
      auto& entry = out[claim.uid];
      auto it = results.find(claim.uid);
      if (it == results.end()) {
        entry.set_error(MissingClaimError(claim));
      } else if (!it->second.ok()) {
        entry.set_error(it->second.message());
      }
    }
    return grpc::Status::OK;
  }

 private:
  PluginState* const state_;
};

}  // namespace dralloc::kubeletplugin::internal

#endif  // DRALLOC_KUBELETPLUGIN_INTERNAL_DRA_SERVICE_H_
