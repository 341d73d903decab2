// HealthService<Api>: DRAResourceHealth (v1 or v1alpha1). Each stream gets
// the full device list at once and again after every change, until the
// client goes away or the server stops.
#ifndef DRALLOC_KUBELETPLUGIN_INTERNAL_HEALTH_SERVICE_H_
#define DRALLOC_KUBELETPLUGIN_INTERNAL_HEALTH_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <optional>

#include "k8s.io/kubelet/pkg/apis/dra-health/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra-health/v1alpha1/api.grpc.pb.h"
#include "kubeletplugin/internal/plugin_state.h"

namespace dralloc::kubeletplugin::internal {

struct HealthV1 {
  using Service = ::v1::DRAResourceHealth;
  using Request = ::v1::NodeWatchResourcesRequest;
  using Response = ::v1::NodeWatchResourcesResponse;
  using Status = ::v1::HealthStatus;
};

struct HealthV1alpha1 {
  using Service = ::v1alpha1::DRAResourceHealth;
  using Request = ::v1alpha1::NodeWatchResourcesRequest;
  using Response = ::v1alpha1::NodeWatchResourcesResponse;
  using Status = ::v1alpha1::HealthStatus;
};

// Longest health message the protocol allows.
inline constexpr size_t kMaxHealthMessage = 1024;

template <typename Api>
typename Api::Response HealthResponse(const std::vector<DeviceHealth>& list) {
  typename Api::Response response;
  for (const DeviceHealth& device : list) {
    auto* out = response.add_devices();
    out->mutable_device()->set_pool_name(device.pool_name);
    out->mutable_device()->set_device_name(device.device_name);
    out->set_health(static_cast<typename Api::Status>(device.health));
    out->set_last_updated_time(device.last_updated_unix_seconds);
    out->set_health_check_timeout_seconds(device.health_check_timeout_seconds);
    if (device.message.size() > kMaxHealthMessage) {
      out->set_message(device.message.substr(0, kMaxHealthMessage - 3) + "...");
    } else {
      out->set_message(device.message);
    }
  }
  return response;
}

template <typename Api>
class HealthService final : public Api::Service::Service {
 public:
  explicit HealthService(PluginState* state) : state_(state) {}

  grpc::Status NodeWatchResources(
      grpc::ServerContext* context, const typename Api::Request*,
      grpc::ServerWriter<typename Api::Response>* writer) override {
    std::optional<uint64_t> seen;
    // Polls for cancellation while waiting: a sync handler has no other
    // way to learn that the client went away.
    constexpr std::chrono::milliseconds kPoll(100);
    while (!context->IsCancelled()) {
      bool stopped = false;
      auto list = state_->NextHealth(seen, kPoll, stopped);
      if (stopped) return grpc::Status::OK;
      if (!list) continue;
      if (!writer->Write(HealthResponse<Api>(*list))) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "stream closed");
      }
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
  }

 private:
  PluginState* const state_;
};

}  // namespace dralloc::kubeletplugin::internal

#endif  // DRALLOC_KUBELETPLUGIN_INTERNAL_HEALTH_SERVICE_H_
