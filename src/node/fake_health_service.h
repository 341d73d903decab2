// FakeHealthService: DRAResourceHealth (v1 or v1alpha1) for the node
// agent's tests, built on the generated services: every NodeWatchResources
// stream gets the full device list at once and again after each
// SetDevices(); BreakStreams() ends the open streams with UNAVAILABLE (a
// driver hiccup) while new ones are still served; SetAvailable(false)
// refuses new ones. Serve it beside a
// FakeDraDriver with FakeDraDriver::AddService. Test-only (header-only).
#ifndef DRALLOC_NODE_FAKE_HEALTH_SERVICE_H_
#define DRALLOC_NODE_FAKE_HEALTH_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/dra-health/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra-health/v1alpha1/api.grpc.pb.h"

namespace dralloc::node::testing {

// The generated names of one health API version.
struct FakeHealthV1 {
  using Health = ::v1::DRAResourceHealth;
  using Request = ::v1::NodeWatchResourcesRequest;
  using Response = ::v1::NodeWatchResourcesResponse;
  using Status = ::v1::HealthStatus;
};
struct FakeHealthV1alpha1 {
  using Health = ::v1alpha1::DRAResourceHealth;
  using Request = ::v1alpha1::NodeWatchResourcesRequest;
  using Response = ::v1alpha1::NodeWatchResourcesResponse;
  using Status = ::v1alpha1::HealthStatus;
};

// One device as the fake reports it; health on the wire: 0 Unknown,
// 1 Healthy, 2 Unhealthy.
struct FakeDeviceHealth {
  std::string pool;
  std::string device;
  int health = 1;
  std::string message;
  int64_t timeout_seconds = 0;
};

template <typename Api>
class FakeHealthService final : public Api::Health::Service {
 public:
  void SetDevices(std::vector<FakeDeviceHealth> devices) {
    std::lock_guard lock(mu_);
    devices_ = std::move(devices);
    ++generation_;
    changed_.notify_all();
  }
  void BreakStreams() {
    std::lock_guard lock(mu_);
    ++breaks_;
    changed_.notify_all();
  }
  // While unavailable, new streams fail at once with UNAVAILABLE.
  void SetAvailable(bool available) {
    std::lock_guard lock(mu_);
    available_ = available;
  }
  int streams_opened() {
    std::lock_guard lock(mu_);
    return opened_;
  }

  grpc::Status NodeWatchResources(
      grpc::ServerContext* context, const typename Api::Request*,
      grpc::ServerWriter<typename Api::Response>* writer) override {
    std::unique_lock lock(mu_);
    if (!available_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "fake unavailable");
    }
    ++opened_;
    const int breaks = breaks_;
    int64_t sent = -1;
    while (true) {
      if (breaks_ != breaks) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "fake break");
      }
      if (context->IsCancelled()) return grpc::Status::CANCELLED;
      if (sent != generation_) {
        sent = generation_;
        typename Api::Response response = ResponseLocked();
        lock.unlock();
        const bool written = writer->Write(response);
        lock.lock();
        if (!written) return grpc::Status::CANCELLED;
        continue;
      }
      changed_.wait_for(lock, std::chrono::milliseconds(20));
    }
  }

 private:
  typename Api::Response ResponseLocked() const {
    typename Api::Response response;
    for (const FakeDeviceHealth& device : devices_) {
      auto* out = response.add_devices();
      out->mutable_device()->set_pool_name(device.pool);
      out->mutable_device()->set_device_name(device.device);
      out->set_health(static_cast<typename Api::Status>(device.health));
      out->set_message(device.message);
      out->set_health_check_timeout_seconds(device.timeout_seconds);
      out->set_last_updated_time(
          std::chrono::duration_cast<std::chrono::seconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count());
    }
    return response;
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<FakeDeviceHealth> devices_;
  int64_t generation_ = 0;
  int breaks_ = 0;
  int opened_ = 0;
  bool available_ = true;
};

}  // namespace dralloc::node::testing

#endif  // DRALLOC_NODE_FAKE_HEALTH_SERVICE_H_
