#include "kubeletplugin/plugin_server.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <chrono>
#include <system_error>
#include <utility>

#include "common/log.h"
#include "kubeletplugin/internal/dra_service.h"
#include "kubeletplugin/internal/health_service.h"
#include "kubeletplugin/internal/plugin_state.h"
#include "kubeletplugin/internal/registration_service.h"

namespace dralloc::kubeletplugin {
namespace {

namespace fs = std::filesystem;
using internal::PluginState;

Status CheckSocketPath(const fs::path& path) {
  const size_t length = path.native().size();
  if (length > kMaxUnixSocketPath) {
    return InvalidArgumentError(
        "plugin socket " + path.string() + ": path is " +
        std::to_string(length) + " bytes, longer than the " +
        std::to_string(kMaxUnixSocketPath) +
        " a unix socket address holds; use shorter directories");
  }
  return OkStatus();
}

// Creates the socket's directory and removes a socket file left behind by
// an earlier run; anything else at that path is an error.
Status PrepareSocketPath(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return InternalError("plugin socket " + path.string() +
                         ": cannot create directory: " + ec.message());
  }
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return OkStatus();
  if (!fs::is_socket(status)) {
    return FailedPreconditionError("plugin socket " + path.string() +
                                   ": exists and is not a socket");
  }
  log::Info("kubeletplugin", "removing stale socket {}", path.string());
  fs::remove(path, ec);
  if (ec) {
    return InternalError("plugin socket " + path.string() +
                         ": cannot remove stale socket: " + ec.message());
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<grpc::Server>> Serve(
    const fs::path& path, const std::vector<grpc::Service*>& services) {
  RETURN_IF_ERROR(PrepareSocketPath(path));
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + path.string(),
                           grpc::InsecureServerCredentials());
  for (grpc::Service* service : services) builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    return UnavailableError("plugin socket " + path.string() +
                            ": cannot listen (see gRPC log)");
  }
  return server;
}

void ShutdownAndRemove(std::unique_ptr<grpc::Server>& server,
                       const fs::path& path) {
  if (server == nullptr) return;
  // Streams and slow calls are cancelled after this grace period.
  server->Shutdown(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(500));
  server->Wait();
  server.reset();
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace

class PluginServer::Impl {
 public:
  Impl(const PluginServerOptions& options, PluginSocketPaths paths,
       DriverCallbacks* callbacks)
      : paths_(std::move(paths)),
        state_(callbacks, options.serialize_calls),
        dra_v1_(&state_),
        dra_v1beta1_(&state_),
        health_v1_(&state_),
        health_v1alpha1_(&state_),
        registration_(&state_, options.driver_name, paths_.dra.string(),
                      PluginServer::SupportedVersions(options)) {}

  Status Start(const PluginServerOptions& options) {
    std::vector<grpc::Service*> services;
    if (options.serve_v1) services.push_back(&dra_v1_);
    if (options.serve_v1beta1) services.push_back(&dra_v1beta1_);
    if (options.serve_health) {
      services.push_back(&health_v1_);
      services.push_back(&health_v1alpha1_);
    }
    ASSIGN_OR_RETURN(dra_server_, Serve(paths_.dra, services));
    // Registration last: once its socket exists the kubelet may dial the
    // DRA socket, which must already be listening.
    auto registration = Serve(paths_.registration, {&registration_});
    if (!registration.ok()) {
      Stop();
      return registration.status();
    }
    registration_server_ = std::move(registration).value();
    return OkStatus();
  }

  void Stop() {
    state_.BeginStop();
    // Registration first, so the kubelet sees the driver leave before its
    // DRA socket disappears.
    ShutdownAndRemove(registration_server_, paths_.registration);
    ShutdownAndRemove(dra_server_, paths_.dra);
  }

  PluginSocketPaths paths_;
  PluginState state_;
  internal::DraService<internal::DraV1> dra_v1_;
  internal::DraService<internal::DraV1beta1> dra_v1beta1_;
  internal::HealthService<internal::HealthV1> health_v1_;
  internal::HealthService<internal::HealthV1alpha1> health_v1alpha1_;
  internal::RegistrationService registration_;
  std::unique_ptr<grpc::Server> dra_server_;
  std::unique_ptr<grpc::Server> registration_server_;
};

StatusOr<PluginSocketPaths> ResolveSocketPaths(
    const PluginServerOptions& options) {
  const std::string& driver = options.driver_name;
  if (driver.empty() || driver.find('/') != std::string::npos) {
    return InvalidArgumentError(
        "plugin server: driver name: Invalid value: \"" + driver +
        "\": must be a non-empty DNS name");
  }
  if (!options.serve_v1 && !options.serve_v1beta1) {
    return InvalidArgumentError(
        "plugin server " + driver +
        ": at least one of DRA v1 and v1beta1 must be served");
  }
  const std::string& uid = options.rolling_update_uid;
  PluginSocketPaths paths;
  paths.dra = options.plugins_dir / driver /
              (uid.empty() ? "dra.sock" : "dra-" + uid + ".sock");
  paths.registration =
      options.registry_dir /
      (uid.empty() ? driver + "-reg.sock" : driver + "-" + uid + "-reg.sock");
  // Absolute, so that the gRPC address (unix://PATH) and the endpoint the
  // kubelet dials do not depend on anybody's working directory.
  std::error_code ec;
  paths.dra = fs::absolute(paths.dra, ec);
  paths.registration = fs::absolute(paths.registration, ec);
  RETURN_IF_ERROR(CheckSocketPath(paths.dra));
  RETURN_IF_ERROR(CheckSocketPath(paths.registration));
  return paths;
}

std::vector<std::string> PluginServer::SupportedVersions(
    const PluginServerOptions& options) {
  std::vector<std::string> versions;
  if (options.serve_v1) versions.push_back("v1.DRAPlugin");
  if (options.serve_v1beta1) versions.push_back("v1beta1.DRAPlugin");
  if (options.serve_health) {
    versions.push_back("v1alpha1.DRAResourceHealth");
    versions.push_back("v1.DRAResourceHealth");
  }
  return versions;
}

StatusOr<std::unique_ptr<PluginServer>> PluginServer::Start(
    const PluginServerOptions& options, DriverCallbacks* callbacks) {
  ASSIGN_OR_RETURN(PluginSocketPaths paths, ResolveSocketPaths(options));
  auto impl = std::make_unique<Impl>(options, std::move(paths), callbacks);
  RETURN_IF_ERROR(impl->Start(options));
  log::Info("kubeletplugin", "driver {}: serving {} and {}",
            options.driver_name, impl->paths_.dra.string(),
            impl->paths_.registration.string());
  return std::unique_ptr<PluginServer>(new PluginServer(std::move(impl)));
}

PluginServer::PluginServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

PluginServer::~PluginServer() { Stop(); }

void PluginServer::Stop() { impl_->Stop(); }

void PluginServer::SetDeviceHealth(std::vector<DeviceHealth> devices) {
  impl_->state_.SetHealth(std::move(devices));
}

bool PluginServer::registered() const { return impl_->state_.registered(); }

std::string PluginServer::last_registration_error() const {
  return impl_->state_.registration_error();
}

const std::filesystem::path& PluginServer::dra_socket_path() const {
  return impl_->paths_.dra;
}

const std::filesystem::path& PluginServer::registration_socket_path() const {
  return impl_->paths_.registration;
}

}  // namespace dralloc::kubeletplugin
