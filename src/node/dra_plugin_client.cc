#include "node/dra_plugin_client.h"

#include <grpcpp/grpcpp.h>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.grpc.pb.h"

namespace dralloc::node {
namespace {

namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace drav1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;

// The Status of a failed call, naming the driver and the method.
Status CallError(const std::string& driver, const char* method,
                 const grpc::Status& status) {
  std::string message =
      "driver " + driver + ": " + method + ": " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return {StatusCode::kDeadlineExceeded, message};
    case grpc::StatusCode::UNAVAILABLE:
      return UnavailableError(message);
    default:
      return InternalError(message);
  }
}

template <typename Request>
Request RequestFor(const std::vector<DraClaimRef>& claims) {
  Request request;
  for (const DraClaimRef& ref : claims) {
    auto* claim = request.add_claims();
    claim->set_namespace_(ref.namespace_);
    claim->set_uid(ref.uid);
    claim->set_name(ref.name);
  }
  return request;
}

template <typename Device>
PreparedDevice FromProto(const Device& device) {
  PreparedDevice out;
  out.request_names.assign(device.request_names().begin(),
                           device.request_names().end());
  out.pool = device.pool_name();
  out.device = device.device_name();
  out.cdi_device_ids.assign(device.cdi_device_ids().begin(),
                            device.cdi_device_ids().end());
  if constexpr (requires { device.has_share_id(); }) {
    if (device.has_share_id()) out.share_id = device.share_id();
  }
  return out;
}

std::string MissingClaim(const std::string& driver, const DraClaimRef& ref,
                         const char* method) {
  return "driver " + driver + ": " + method + ": claim " + ref.namespace_ +
         "/" + ref.name + " (uid " + ref.uid + ") missing from the response";
}

// One outcome per requested claim, keyed by UID: the call's error, an
// error for a claim the driver left out or failed, else `success(entry)`.
template <typename Results, typename Entries, typename Success>
Results PerClaim(const std::vector<DraClaimRef>& claims,
                 const grpc::Status& status, const Entries& entries,
                 const std::string& driver, const char* method,
                 Success success) {
  Results results;
  for (const DraClaimRef& ref : claims) {
    if (!status.ok()) {
      results.emplace(ref.uid, CallError(driver, method, status));
      continue;
    }
    auto it = entries.find(ref.uid);
    if (it == entries.end()) {
      results.emplace(ref.uid,
                      InternalError(MissingClaim(driver, ref, method)));
    } else if (!it->second.error().empty()) {
      results.emplace(ref.uid,
                      InternalError("driver " + driver + ": " + method + ": " +
                                    it->second.error()));
    } else {
      results.emplace(ref.uid, success(it->second));
    }
  }
  return results;
}

template <typename Api>
PrepareResults PrepareWith(const std::shared_ptr<grpc::Channel>& channel,
                           const std::string& driver,
                           std::chrono::milliseconds timeout,
                           const std::vector<DraClaimRef>& claims) {
  auto stub = Api::DRAPlugin::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  auto request = RequestFor<typename Api::NodePrepareResourcesRequest>(claims);
  typename Api::NodePrepareResourcesResponse response;
  grpc::Status status =
      stub->NodePrepareResources(&context, request, &response);
  return PerClaim<PrepareResults>(claims, status, response.claims(), driver,
                                  "NodePrepareResources",
                                  [](const auto& entry) {
                                    std::vector<PreparedDevice> devices;
                                    for (const auto& device : entry.devices()) {
                                      devices.push_back(FromProto(device));
                                    }
                                    return devices;
                                  });
}

template <typename Api>
UnprepareResults UnprepareWith(const std::shared_ptr<grpc::Channel>& channel,
                               const std::string& driver,
                               std::chrono::milliseconds timeout,
                               const std::vector<DraClaimRef>& claims) {
  auto stub = Api::DRAPlugin::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  auto request =
      RequestFor<typename Api::NodeUnprepareResourcesRequest>(claims);
  typename Api::NodeUnprepareResourcesResponse response;
  grpc::Status status =
      stub->NodeUnprepareResources(&context, request, &response);
  return PerClaim<UnprepareResults>(claims, status, response.claims(), driver,
                                    "NodeUnprepareResources",
                                    [](const auto&) { return OkStatus(); });
}

// The generated names of one API version, for the templates above.
struct V1 {
  using DRAPlugin = drav1::DRAPlugin;
  using NodePrepareResourcesRequest = drav1::NodePrepareResourcesRequest;
  using NodePrepareResourcesResponse = drav1::NodePrepareResourcesResponse;
  using NodeUnprepareResourcesRequest = drav1::NodeUnprepareResourcesRequest;
  using NodeUnprepareResourcesResponse = drav1::NodeUnprepareResourcesResponse;
};
struct V1beta1 {
  using DRAPlugin = drav1beta1::DRAPlugin;
  using NodePrepareResourcesRequest = drav1beta1::NodePrepareResourcesRequest;
  using NodePrepareResourcesResponse = drav1beta1::NodePrepareResourcesResponse;
  using NodeUnprepareResourcesRequest =
      drav1beta1::NodeUnprepareResourcesRequest;
  using NodeUnprepareResourcesResponse =
      drav1beta1::NodeUnprepareResourcesResponse;
};

}  // namespace

const char* DraServiceName(DraApiVersion version) {
  return version == DraApiVersion::kV1 ? "v1.DRAPlugin" : "v1beta1.DRAPlugin";
}

DraPluginClient::DraPluginClient(std::string driver, std::string endpoint,
                                 DraApiVersion version,
                                 std::chrono::milliseconds timeout)
    : driver_(std::move(driver)),
      endpoint_(std::move(endpoint)),
      version_(version),
      timeout_(timeout),
      channel_(grpc::CreateChannel("unix://" + endpoint_,
                                   grpc::InsecureChannelCredentials())) {}

DraPluginClient::~DraPluginClient() = default;

PrepareResults DraPluginClient::Prepare(
    const std::vector<DraClaimRef>& claims) const {
  if (claims.empty()) return {};
  return version_ == DraApiVersion::kV1
             ? PrepareWith<V1>(channel_, driver_, timeout_, claims)
             : PrepareWith<V1beta1>(channel_, driver_, timeout_, claims);
}

UnprepareResults DraPluginClient::Unprepare(
    const std::vector<DraClaimRef>& claims) const {
  if (claims.empty()) return {};
  return version_ == DraApiVersion::kV1
             ? UnprepareWith<V1>(channel_, driver_, timeout_, claims)
             : UnprepareWith<V1beta1>(channel_, driver_, timeout_, claims);
}

}  // namespace dralloc::node
