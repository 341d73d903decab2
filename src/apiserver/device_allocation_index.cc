#include "apiserver/device_allocation_index.h"

#include <fmt/format.h>

#include <algorithm>

namespace dralloc::apiserver {

DeviceAllocationIndex::DeviceAllocationIndex(store::Store& store,
                                             Decoder decode)
    : store_(store), decode_(std::move(decode)) {}

// The lock is taken on one path only, which the analysis cannot express
// (see WriteLock).
DeviceAllocationIndex::WriteLock::WriteLock(
    DeviceAllocationIndex& index, bool take) NO_THREAD_SAFETY_ANALYSIS {
  if (!take) return;
  mu_ = &index.mu_;
  mu_->Lock();
  if (!index.loaded_) index.Load();
}

DeviceAllocationIndex::WriteLock::~WriteLock() NO_THREAD_SAFETY_ANALYSIS {
  if (mu_ != nullptr) mu_->Unlock();
}

void DeviceAllocationIndex::Load() {
  loaded_ = true;
  store::ListResult claims = store_.List("/resourceclaims/", "", 0);
  for (const store::KeyValue& kv : claims.items) {
    std::optional<api::ResourceClaim> claim = decode_(*kv.value);
    if (claim) Record(kv.key, &*claim);
  }
}

std::vector<std::string> DeviceAllocationIndex::ExclusiveDevices(
    const api::ResourceClaim& claim) {
  std::vector<std::string> devices;
  if (!claim.status.allocation) return devices;
  for (const auto& r : claim.status.allocation->devices.results) {
    if (r.admin_access.value_or(false) || r.share_id) continue;
    devices.push_back(fmt::format("{}/{}/{}", r.driver, r.pool, r.device));
  }
  return devices;
}

namespace {
constexpr std::string_view kReservationPrefix =
    "/dralloc.io/deviceallocations/";
}  // namespace

std::vector<std::string> DeviceAllocationIndex::ReservationKeys(
    const api::ResourceClaim& claim) {
  std::vector<std::string> keys = ExclusiveDevices(claim);
  for (std::string& key : keys) key.insert(0, kReservationPrefix);
  return keys;
}

store::Reservations DeviceAllocationIndex::Reservations(
    const api::ResourceClaim* before, const api::ResourceClaim* after) {
  store::Reservations reservations;
  if (after != nullptr) reservations.take = ReservationKeys(*after);
  if (before != nullptr) {
    for (std::string& key : ReservationKeys(*before)) {
      if (std::find(reservations.take.begin(), reservations.take.end(), key) ==
          reservations.take.end()) {
        reservations.release.push_back(std::move(key));
      }
    }
  }
  return reservations;
}

std::string DeviceAllocationIndex::DescribeRefusal(const std::string& refusal) {
  // "/dralloc.io/deviceallocations/D is held by /resourceclaims/NS/NAME"
  const size_t held = refusal.find(" is held by ");
  if (!refusal.starts_with(kReservationPrefix) || held == std::string::npos) {
    return refusal;
  }
  const std::string device = refusal.substr(kReservationPrefix.size(),
                                            held - kReservationPrefix.size());
  std::string holder = refusal.substr(held + 12);
  if (holder.starts_with("/resourceclaims/")) holder.erase(0, 16);
  return fmt::format("device {} is already allocated to claim {}", device,
                     holder);
}

std::optional<std::string> DeviceAllocationIndex::Conflict(
    const std::string& key, const api::ResourceClaim& claim) {
  for (const std::string& device : ExclusiveDevices(claim)) {
    auto it = owner_.find(device);
    if (it != owner_.end() && it->second != key) {
      std::string holder = it->second.substr(it->second.find('/', 1) + 1);
      return fmt::format("device {} is already allocated to claim {}", device,
                         holder);
    }
  }
  return std::nullopt;
}

void DeviceAllocationIndex::Record(const std::string& key,
                                   const api::ResourceClaim* claim) {
  if (auto old = devices_.find(key); old != devices_.end()) {
    for (const std::string& device : old->second) {
      auto it = owner_.find(device);
      if (it != owner_.end() && it->second == key) owner_.erase(it);
    }
    devices_.erase(old);
  }
  if (claim == nullptr) return;
  std::vector<std::string> devices = ExclusiveDevices(*claim);
  if (devices.empty()) return;
  for (const std::string& device : devices) owner_[device] = key;
  devices_.emplace(key, std::move(devices));
}

}  // namespace dralloc::apiserver
