#include "node/device_health_cache.h"

#include <set>

namespace dralloc::node {

const char* DeviceHealthName(DeviceHealthStatus health) {
  switch (health) {
    case DeviceHealthStatus::kHealthy:
      return "Healthy";
    case DeviceHealthStatus::kUnhealthy:
      return "Unhealthy";
    case DeviceHealthStatus::kUnknown:
      break;
  }
  return "Unknown";
}

std::string TruncateHealthMessage(std::string message) {
  if (message.size() <= kMaxHealthMessageLength) return message;
  message.resize(kMaxHealthMessageLength - 3);
  return message + "...";
}

std::vector<DeviceKey> DeviceHealthCache::Update(
    const std::string& driver, const std::vector<DeviceHealthReport>& devices,
    Clock::time_point now) {
  std::vector<DeviceKey> changed;
  MutexLock lock(mu_);
  auto& known = drivers_[driver];
  std::set<PoolDevice> reported;
  for (const DeviceHealthReport& report : devices) {
    PoolDevice id{report.pool, report.device};
    reported.insert(id);
    Entry fresh{report.health, TruncateHealthMessage(report.message), now,
                report.timeout_seconds > 0
                    ? std::chrono::seconds(report.timeout_seconds)
                    : kDefaultHealthTimeout};
    auto it = known.find(id);
    // A stale entry reads as Unknown: a fresh report of it is a change.
    const bool was_visible = it != known.end() && !it->second.Expired(now);
    if (!was_visible || it->second.health != fresh.health ||
        it->second.message != fresh.message) {
      if (was_visible || fresh.health != DeviceHealthStatus::kUnknown ||
          !fresh.message.empty()) {
        changed.push_back({driver, report.pool, report.device});
      }
    }
    known[id] = std::move(fresh);
  }
  for (auto& [id, entry] : known) {
    if (reported.contains(id) || entry.health == DeviceHealthStatus::kUnknown ||
        !entry.Expired(now)) {
      continue;
    }
    entry = {DeviceHealthStatus::kUnknown, "", now, entry.timeout};
    changed.push_back({driver, id.first, id.second});
  }
  return changed;
}

std::vector<DeviceKey> DeviceHealthCache::ExpireStale(Clock::time_point now) {
  std::vector<DeviceKey> changed;
  MutexLock lock(mu_);
  for (auto& [driver, devices] : drivers_) {
    for (auto& [id, entry] : devices) {
      const bool visible = entry.health != DeviceHealthStatus::kUnknown ||
                           !entry.message.empty();
      if (!visible || !entry.Expired(now)) continue;
      entry.health = DeviceHealthStatus::kUnknown;
      entry.message.clear();
      changed.push_back({driver, id.first, id.second});
    }
  }
  return changed;
}

std::vector<DeviceKey> DeviceHealthCache::ClearDriver(
    const std::string& driver) {
  std::vector<DeviceKey> changed;
  MutexLock lock(mu_);
  auto it = drivers_.find(driver);
  if (it == drivers_.end()) return changed;
  for (const auto& [id, entry] : it->second) {
    if (entry.health != DeviceHealthStatus::kUnknown ||
        !entry.message.empty()) {
      changed.push_back({driver, id.first, id.second});
    }
  }
  drivers_.erase(it);
  return changed;
}

DeviceHealthInfo DeviceHealthCache::Get(const DeviceKey& key,
                                        Clock::time_point now) const {
  MutexLock lock(mu_);
  auto driver = drivers_.find(key.driver);
  if (driver == drivers_.end()) return {};
  auto it = driver->second.find({key.pool, key.device});
  if (it == driver->second.end() || it->second.Expired(now)) return {};
  return {it->second.health, it->second.message};
}

}  // namespace dralloc::node
