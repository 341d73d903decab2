#include "node/pod_resources_server.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <filesystem>

#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.grpc.pb.h"

namespace dralloc::node {

namespace podresources = ::v1;

class PodResourcesService final
    : public podresources::PodResourcesLister::Service {
 public:
  PodResourcesService(const PodManager& pods, const ClaimInfoCache& claims)
      : pods_(pods), claims_(claims) {}

  grpc::Status List(grpc::ServerContext*,
                    const podresources::ListPodResourcesRequest*,
                    podresources::ListPodResourcesResponse* response) override {
    for (const RunningPod& pod : pods_.RunningPods()) {
      Fill(pod, *response->add_pod_resources());
    }
    return grpc::Status::OK;
  }

  grpc::Status Get(grpc::ServerContext*,
                   const podresources::GetPodResourcesRequest* request,
                   podresources::GetPodResourcesResponse* response) override {
    for (const RunningPod& pod : pods_.RunningPods()) {
      if (pod.name == request->pod_name() &&
          pod.namespace_ == request->pod_namespace()) {
        Fill(pod, *response->mutable_pod_resources());
        return grpc::Status::OK;
      }
    }
    return {grpc::StatusCode::NOT_FOUND, "pod " + request->pod_namespace() +
                                             "/" + request->pod_name() +
                                             " is not running on this node"};
  }

  grpc::Status GetAllocatableResources(
      grpc::ServerContext*, const podresources::AllocatableResourcesRequest*,
      podresources::AllocatableResourcesResponse*) override {
    return grpc::Status::OK;
  }

 private:
  void Fill(const RunningPod& pod, podresources::PodResources& out) const {
    out.set_name(pod.name);
    out.set_namespace_(pod.namespace_);
    for (const auto& [name, used] : pod.containers) {
      auto* container = out.add_containers();
      container->set_name(name);
      for (const ContainerClaim& claim : used) {
        AddClaim(claim, *container->add_dynamic_resources());
      }
    }
  }

  void AddClaim(const ContainerClaim& claim,
                podresources::DynamicResource& out) const {
    out.set_claim_name(claim.claim_name);
    out.set_claim_namespace(claim.claim_namespace);
    std::optional<ClaimInfo> info = claims_.Get(claim.claim_uid);
    if (!info) return;
    for (const auto& [driver, state] : info->drivers) {
      for (const PreparedDevice& device : state.devices) {
        if (!ServesRequest(device, claim.request)) continue;
        auto* resource = out.add_claim_resources();
        resource->set_driver_name(driver);
        resource->set_pool_name(device.pool);
        resource->set_device_name(device.device);
        if (device.share_id) resource->set_share_id(*device.share_id);
        for (const std::string& id : device.cdi_device_ids) {
          resource->add_cdi_devices()->set_name(id);
        }
      }
    }
  }

  const PodManager& pods_;
  const ClaimInfoCache& claims_;
};

PodResourcesServer::PodResourcesServer(const PodManager& pods,
                                       const ClaimInfoCache& claims)
    : service_(std::make_unique<PodResourcesService>(pods, claims)) {}

PodResourcesServer::~PodResourcesServer() { Stop(); }

Status PodResourcesServer::Start(const std::string& socket_path) {
  std::error_code ec;
  std::filesystem::create_directories(
      std::filesystem::path(socket_path).parent_path(), ec);
  ::unlink(socket_path.c_str());  // a previous run's socket
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + socket_path,
                           grpc::InsecureServerCredentials());
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    return UnavailableError("pod resources socket " + socket_path +
                            ": cannot listen");
  }
  socket_path_ = socket_path;
  return OkStatus();
}

void PodResourcesServer::Stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server_.reset();
  ::unlink(socket_path_.c_str());
}

}  // namespace dralloc::node
