#include "podresources/pod_resources_server.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <sys/un.h>

#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "common/log.h"
#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.grpc.pb.h"
#include "podresources/pod_resources_proto.h"

namespace dralloc::podresources {

constexpr std::string_view kLogComponent = "podresources";

// The gRPC service. Stateless apart from the source, so calls on several
// server threads need no locking here (the source is thread-safe).
class PodResourcesServer::Service final
    : public v1::PodResourcesLister::Service {
 public:
  explicit Service(const PodResourcesSource& source) : source_(source) {}

  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* response) override {
    for (const PodResources& pod : source_.ListPods()) {
      ToProto(pod, *response->add_pod_resources());
    }
    return grpc::Status::OK;
  }

  // Device plugins, the CPU manager and the memory manager do not exist on
  // this node and DRA devices are not reported here (upstream reports only
  // device-plugin devices, CPUs and memory), so the answer is always empty.
  grpc::Status GetAllocatableResources(
      grpc::ServerContext*, const v1::AllocatableResourcesRequest*,
      v1::AllocatableResourcesResponse*) override {
    return grpc::Status::OK;
  }

  grpc::Status Get(grpc::ServerContext*,
                   const v1::GetPodResourcesRequest* request,
                   v1::GetPodResourcesResponse* response) override {
    if (request->pod_name().empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "pod_name: Required value: the pod to get"};
    }
    if (request->pod_namespace().empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "pod_namespace: Required value: the namespace of pod " +
                  request->pod_name()};
    }
    std::optional<PodResources> pod =
        source_.GetPod(request->pod_namespace(), request->pod_name());
    if (!pod.has_value()) {
      // Upstream's text (server_v1.go); upstream sends it as code UNKNOWN,
      // we say NOT_FOUND so that clients can tell it from a failure.
      return {grpc::StatusCode::NOT_FOUND,
              fmt::format("pod {} in namespace {} not found",
                          request->pod_name(), request->pod_namespace())};
    }
    ToProto(*pod, *response->mutable_pod_resources());
    return grpc::Status::OK;
  }

 private:
  const PodResourcesSource& source_;
};

namespace {

// Makes `socket` bindable: its directory exists and no stale socket file is
// in the way. Anything other than a socket at the path is left alone.
Status PrepareSocketPath(const std::filesystem::path& socket) {
  if (socket.empty() || socket.filename().empty()) {
    return InvalidArgumentError(
        fmt::format("podresources socket \"{}\": Invalid value: must name a "
                    "file",
                    socket.string()));
  }
  if (socket.string().size() >= sizeof(sockaddr_un::sun_path)) {
    return InvalidArgumentError(fmt::format(
        "podresources socket {}: Invalid value: {} bytes, a unix socket path "
        "must be shorter than {}",
        socket.string(), socket.string().size(),
        sizeof(sockaddr_un::sun_path)));
  }
  std::error_code error;
  if (socket.has_parent_path()) {
    std::filesystem::create_directories(socket.parent_path(), error);
    if (error) {
      return InternalError(
          fmt::format("podresources socket {}: create {}: {}", socket.string(),
                      socket.parent_path().string(), error.message()));
    }
  }
  std::filesystem::file_status status =
      std::filesystem::symlink_status(socket, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return OkStatus();
  }
  if (status.type() != std::filesystem::file_type::socket) {
    return FailedPreconditionError(fmt::format(
        "podresources socket {}: exists and is not a socket; not removing it",
        socket.string()));
  }
  if (!std::filesystem::remove(socket, error) && error) {
    return InternalError(
        fmt::format("podresources socket {}: remove stale socket: {}",
                    socket.string(), error.message()));
  }
  log::Info(kLogComponent, "removed stale socket {}", socket.string());
  return OkStatus();
}

}  // namespace

PodResourcesServer::PodResourcesServer(const PodResourcesSource& source)
    : service_(std::make_unique<Service>(source)) {}

PodResourcesServer::~PodResourcesServer() { Stop(); }

Status PodResourcesServer::Start(const std::filesystem::path& socket) {
  MutexLock lock(mu_);
  if (server_ != nullptr) {
    return FailedPreconditionError(fmt::format(
        "podresources server: already serving on {}", socket_.string()));
  }
  RETURN_IF_ERROR(PrepareSocketPath(socket));
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort("unix://" + socket.string(),
                           grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(service_.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound == 0) {
    if (server != nullptr) server->Shutdown();
    return UnavailableError(fmt::format(
        "podresources socket {}: cannot listen (see the gRPC log above)",
        socket.string()));
  }
  server_ = std::move(server);
  socket_ = socket;
  log::Info(kLogComponent, "serving PodResources v1 on {}", socket.string());
  return OkStatus();
}

void PodResourcesServer::Stop(std::chrono::milliseconds grace) {
  MutexLock lock(mu_);
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  server_->Wait();
  server_.reset();
  std::error_code error;
  std::filesystem::remove(socket_, error);
  if (error) {
    log::Warn(kLogComponent, "remove socket {}: {}", socket_.string(),
              error.message());
  }
  socket_.clear();
}

}  // namespace dralloc::podresources
