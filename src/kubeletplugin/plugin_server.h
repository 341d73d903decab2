// PluginServer: the driver side of the kubelet's DRA node protocols.
//
// Serves DRAPlugin v1 and v1beta1 (and optionally DRAResourceHealth v1 and
// v1alpha1) on `<plugins_dir>/<driver>/dra.sock`, and the kubelet plugin
// Registration service on `<registry_dir>/<driver>-reg.sock`. The kubelet
// finds the registration socket, calls GetInfo, dials the DRA socket and
// reports the outcome with NotifyRegistrationStatus, which registered() and
// last_registration_error() expose.
//
// Usage:
//   PluginServerOptions options{.driver_name = "gpu.example.com", ...};
//   ASSIGN_OR_RETURN(auto server, PluginServer::Start(options, &callbacks));
//   server->SetDeviceHealth({...});   // streamed to health watchers
//   server->Stop();                   // also done by the destructor
#ifndef DRALLOC_KUBELETPLUGIN_PLUGIN_SERVER_H_
#define DRALLOC_KUBELETPLUGIN_PLUGIN_SERVER_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::kubeletplugin {

struct PluginServerOptions {
  std::string driver_name;
  std::filesystem::path plugins_dir = "/var/lib/kubelet/plugins";
  std::filesystem::path registry_dir = "/var/lib/kubelet/plugins_registry";
  // Non-empty: socket names carry it (dra-<uid>.sock, <driver>-<uid>-reg.sock)
  // so that two instances of a driver can run during a rolling update.
  std::string rolling_update_uid;
  bool serve_v1 = true;
  bool serve_v1beta1 = true;
  bool serve_health = false;
  // True (upstream's default): at most one PrepareClaims or UnprepareClaims
  // runs at a time. False: calls run as they arrive, in parallel; the
  // callbacks must then be thread-safe and keep calls on the same claim
  // apart themselves.
  bool serialize_calls = true;
};

// Longest path a unix socket address holds (sun_path minus the NUL).
inline constexpr size_t kMaxUnixSocketPath = 107;

// The socket paths `options` lead to; an error when one is too long for a
// unix socket address or the options are incomplete.
struct PluginSocketPaths {
  std::filesystem::path dra;
  std::filesystem::path registration;
};
StatusOr<PluginSocketPaths> ResolveSocketPaths(
    const PluginServerOptions& options);

class PluginServer {
 public:
  // Removes stale socket files, binds both sockets and starts serving.
  // `callbacks` must outlive the server.
  static StatusOr<std::unique_ptr<PluginServer>> Start(
      const PluginServerOptions& options, DriverCallbacks* callbacks);

  ~PluginServer();
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  // Stops serving (in-flight calls are cancelled after a short grace) and
  // removes both socket files. Idempotent.
  void Stop();

  // Replaces the device health list; health watchers receive it in full.
  void SetDeviceHealth(std::vector<DeviceHealth> devices);

  // What the kubelet last reported through NotifyRegistrationStatus.
  bool registered() const;
  std::string last_registration_error() const;

  const std::filesystem::path& dra_socket_path() const;
  const std::filesystem::path& registration_socket_path() const;

  // The supported_versions GetInfo reports for `options`.
  static std::vector<std::string> SupportedVersions(
      const PluginServerOptions& options);

  class Impl;

 private:
  explicit PluginServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dralloc::kubeletplugin

#endif  // DRALLOC_KUBELETPLUGIN_PLUGIN_SERVER_H_
