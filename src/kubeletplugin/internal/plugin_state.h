// PluginState: what the gRPC services of one PluginServer share.
//
// Holds the driver callbacks (called one at a time when `serialize_calls`,
// as upstream's helper does by default; else concurrently), the
// registration outcome the kubelet reported, and the device health list
// with a generation counter that health streams wait on.
#ifndef DRALLOC_KUBELETPLUGIN_INTERNAL_PLUGIN_STATE_H_
#define DRALLOC_KUBELETPLUGIN_INTERNAL_PLUGIN_STATE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::kubeletplugin::internal {

class PluginState {
 public:
  PluginState(DriverCallbacks* callbacks, bool serialize_calls)
      : callbacks_(callbacks), serialize_calls_(serialize_calls) {}

  std::map<std::string, PrepareResult> Prepare(
      std::span<const ClaimRef> claims) {
    if (!serialize_calls_) return callbacks_->PrepareClaims(claims);
    MutexLock lock(call_mu_);
    return callbacks_->PrepareClaims(claims);
  }
  std::map<std::string, Status> Unprepare(std::span<const ClaimRef> claims) {
    if (!serialize_calls_) return callbacks_->UnprepareClaims(claims);
    MutexLock lock(call_mu_);
    return callbacks_->UnprepareClaims(claims);
  }

  void SetRegistration(bool registered, std::string error) {
    MutexLock lock(mu_);
    registered_ = registered;
    registration_error_ = std::move(error);
  }
  bool registered() const {
    MutexLock lock(mu_);
    return registered_;
  }
  std::string registration_error() const {
    MutexLock lock(mu_);
    return registration_error_;
  }

  void SetHealth(std::vector<DeviceHealth> devices) {
    MutexLock lock(mu_);
    health_ = std::move(devices);
    ++health_generation_;
    changed_.SignalAll();
  }

  // Wakes every health stream so it can see stopping() and return.
  void BeginStop() {
    MutexLock lock(mu_);
    stopping_ = true;
    changed_.SignalAll();
  }

  // A health list newer than `seen` (then `seen` is advanced), or nullopt
  // after `timeout` or once stopping. `stopped` tells the two apart.
  std::optional<std::vector<DeviceHealth>> NextHealth(
      std::optional<uint64_t>& seen, std::chrono::milliseconds timeout,
      bool& stopped) {
    MutexLock lock(mu_);
    changed_.WaitFor(mu_, timeout, [&]() REQUIRES(mu_) {
      return stopping_ || seen != health_generation_;
    });
    stopped = stopping_;
    if (stopping_ || seen == health_generation_) return std::nullopt;
    seen = health_generation_;
    return health_;
  }

 private:
  DriverCallbacks* const callbacks_;
  const bool serialize_calls_;
  Mutex call_mu_;  // serializes driver calls when serialize_calls_

  mutable Mutex mu_;
  CondVar changed_;
  bool registered_ GUARDED_BY(mu_) = false;
  std::string registration_error_ GUARDED_BY(mu_);
  std::vector<DeviceHealth> health_ GUARDED_BY(mu_);
  uint64_t health_generation_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace dralloc::kubeletplugin::internal

#endif  // DRALLOC_KUBELETPLUGIN_INTERNAL_PLUGIN_STATE_H_
