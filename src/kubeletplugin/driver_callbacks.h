// DriverCallbacks: what a DRA driver implements to be served by PluginServer.
//
// The server owns the node protocols (registration, DRA v1/v1beta1, health);
// the driver only answers "prepare these claims" and "unprepare these
// claims" in terms of the plain structs below. By default the server
// serializes calls (at most one PrepareClaims or UnprepareClaims runs at a
// time); with PluginServerOptions::serialize_calls = false they arrive
// concurrently, from several kubelet pod workers.
#ifndef DRALLOC_KUBELETPLUGIN_DRIVER_CALLBACKS_H_
#define DRALLOC_KUBELETPLUGIN_DRIVER_CALLBACKS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace dralloc::kubeletplugin {

// A claim as the kubelet names it in a request.
struct ClaimRef {
  std::string namespace_;
  std::string uid;
  std::string name;
};

// One device prepared for a claim, as returned to the kubelet.
struct PreparedDevice {
  std::vector<std::string> request_names;  // empty = all requests
  std::string pool_name;
  std::string device_name;
  std::vector<std::string> cdi_device_ids;  // fully-qualified CDI names
  std::optional<std::string> share_id;      // sent by DRA v1 only

  friend bool operator==(const PreparedDevice&,
                         const PreparedDevice&) = default;
};

// The outcome for one claim: devices, or a non-OK error (devices ignored).
struct PrepareResult {
  std::vector<PreparedDevice> devices;
  Status error;
};

enum class DeviceHealthStatus { kUnknown = 0, kHealthy = 1, kUnhealthy = 2 };

// One device's health, as streamed on DRAResourceHealth.
struct DeviceHealth {
  std::string pool_name;
  std::string device_name;
  DeviceHealthStatus health = DeviceHealthStatus::kUnknown;
  int64_t last_updated_unix_seconds = 0;
  int64_t health_check_timeout_seconds = 0;  // <= 0: kubelet default
  std::string message;
};

class DriverCallbacks {
 public:
  virtual ~DriverCallbacks() = default;

  // Prepares every claim; the result is keyed by claim UID. Claims missing
  // from the result are reported to the kubelet as errors. Must be
  // idempotent: preparing a prepared claim returns the same answer.
  virtual std::map<std::string, PrepareResult> PrepareClaims(
      std::span<const ClaimRef> claims) = 0;

  // Unprepares every claim, keyed by claim UID; an unknown claim is OK.
  virtual std::map<std::string, Status> UnprepareClaims(
      std::span<const ClaimRef> claims) = 0;
};

}  // namespace dralloc::kubeletplugin

#endif  // DRALLOC_KUBELETPLUGIN_DRIVER_CALLBACKS_H_
