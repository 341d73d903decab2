// DeviceHealthCache: the node agent's view of device health as DRA drivers
// report it on DRAResourceHealth.NodeWatchResources (KEP-4680), after the
// kubelet's health info cache: (driver, pool, device) → health, message,
// when it was last reported and how long that report stays valid.
//
// Contract:
// - Update() takes one stream message (the driver's full list): reported
//   devices are stored with last_updated = now; devices of the driver that
//   the message leaves out keep their entry and become Unknown (message
//   cleared) once their timeout has passed.
// - A device whose report is older than its timeout reads as Unknown
//   (Get), and ExpireStale() turns it into Unknown for good, so callers
//   can tell pods about it.
// - A device never reported, or of a driver whose stream ended
//   (ClearDriver), is Unknown.
// Each mutating call returns the devices whose visible health or message
// changed. Nothing is persisted. Thread-safe.
#ifndef DRALLOC_NODE_DEVICE_HEALTH_CACHE_H_
#define DRALLOC_NODE_DEVICE_HEALTH_CACHE_H_

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"

namespace dralloc::node {

enum class DeviceHealthStatus { kUnknown, kHealthy, kUnhealthy };
// "Unknown", "Healthy", "Unhealthy": the pod status spelling.
const char* DeviceHealthName(DeviceHealthStatus health);

// The kubelet's default when a driver sets no health_check_timeout_seconds.
inline constexpr std::chrono::seconds kDefaultHealthTimeout{30};
// Longest message kept; longer ones are cut and end in "...".
inline constexpr size_t kMaxHealthMessageLength = 1024;

// Cuts `message` to kMaxHealthMessageLength characters ("..." at the end).
std::string TruncateHealthMessage(std::string message);

// One device of one driver.
struct DeviceKey {
  std::string driver;
  std::string pool;
  std::string device;
  friend auto operator<=>(const DeviceKey&, const DeviceKey&) = default;
};

// One device as a driver reported it.
struct DeviceHealthReport {
  std::string pool;
  std::string device;
  DeviceHealthStatus health = DeviceHealthStatus::kUnknown;
  std::string message;
  // <= 0: kDefaultHealthTimeout.
  int64_t timeout_seconds = 0;
};

// What Get() answers.
struct DeviceHealthInfo {
  DeviceHealthStatus health = DeviceHealthStatus::kUnknown;
  std::string message;
};

class DeviceHealthCache {
 public:
  using Clock = std::chrono::steady_clock;

  // Stores one full-list message of `driver`; returns what changed.
  std::vector<DeviceKey> Update(const std::string& driver,
                                const std::vector<DeviceHealthReport>& devices,
                                Clock::time_point now) EXCLUDES(mu_);
  // Turns every device whose report timed out into Unknown; returns them.
  std::vector<DeviceKey> ExpireStale(Clock::time_point now) EXCLUDES(mu_);
  // Forgets `driver` (its stream ended); returns its devices that were not
  // Unknown.
  std::vector<DeviceKey> ClearDriver(const std::string& driver) EXCLUDES(mu_);

  DeviceHealthInfo Get(const DeviceKey& key, Clock::time_point now) const
      EXCLUDES(mu_);

 private:
  struct Entry {
    DeviceHealthStatus health = DeviceHealthStatus::kUnknown;
    std::string message;
    Clock::time_point last_updated;
    std::chrono::seconds timeout{kDefaultHealthTimeout};
    bool Expired(Clock::time_point now) const {
      return now - last_updated > timeout;
    }
  };
  using PoolDevice = std::pair<std::string, std::string>;

  mutable Mutex mu_;
  std::map<std::string, std::map<PoolDevice, Entry>, std::less<>> drivers_
      GUARDED_BY(mu_);
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DEVICE_HEALTH_CACHE_H_
