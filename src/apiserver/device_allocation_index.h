// DeviceAllocationIndex: which claim holds each exclusively allocated
// device, so the server can refuse a claim status that would allocate a
// device a different claim already holds.
//
// Upstream leaves this invariant to there being one scheduler; dralloc
// enforces it at the API so that several schedulers (or a buggy client) can
// share one store safely. Devices allocated with adminAccess or as shares of
// a shareable device (a shareID) are not exclusive and are not indexed.
#ifndef DRALLOC_APISERVER_DEVICE_ALLOCATION_INDEX_H_
#define DRALLOC_APISERVER_DEVICE_ALLOCATION_INDEX_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types/resource_claim.h"
#include "common/mutex.h"
#include "store/store.h"

namespace dralloc::apiserver {

class DeviceAllocationIndex {
 public:
  // `decode` turns a stored claim into a ResourceClaim (nullopt: skip).
  using Decoder =
      std::function<std::optional<api::ResourceClaim>(const std::string&)>;
  DeviceAllocationIndex(store::Store& store, Decoder decode);

  // Serialises claim writes: hold it from Conflict() until Record(). Only
  // writes that touch an allocation take it, so it is taken on one path
  // only: with `take` false it holds nothing. The analysis cannot follow
  // that and assumes it held either way, so Conflict() and Record() must
  // sit behind the same condition as `take` (the clang build checks only
  // that they are called within a WriteLock's scope).
  class SCOPED_CAPABILITY WriteLock {
   public:
    WriteLock(DeviceAllocationIndex& index, bool take) ACQUIRE(index.mu_);
    ~WriteLock() RELEASE();
    WriteLock(const WriteLock&) = delete;
    WriteLock& operator=(const WriteLock&) = delete;

   private:
    Mutex* mu_ = nullptr;  // null when not taken
  };

  // For a store shared by several servers (store::Store::Shared): the
  // store keys reserved for the devices `claim` holds exclusively, and the
  // reservations a write from `before` to `after` (nullptr: absent) makes.
  static std::vector<std::string> ReservationKeys(
      const api::ResourceClaim& claim);
  static store::Reservations Reservations(const api::ResourceClaim* before,
                                          const api::ResourceClaim* after);
  // "device D is already allocated to claim ns/name" from a store's refusal
  // of a reservation ("KEY is held by HOLDER").
  static std::string DescribeRefusal(const std::string& refusal);

  // "driver/pool/device is already allocated to claim ns/name" if `claim`
  // (stored at `key`) would take a device another claim holds.
  std::optional<std::string> Conflict(const std::string& key,
                                      const api::ResourceClaim& claim)
      REQUIRES(mu_);
  // The claim at `key` now is `claim` (nullptr: deleted).
  void Record(const std::string& key, const api::ResourceClaim* claim)
      REQUIRES(mu_);

 private:
  static std::vector<std::string> ExclusiveDevices(
      const api::ResourceClaim& claim);
  void Load() REQUIRES(mu_);

  store::Store& store_;
  Decoder decode_;
  Mutex mu_;
  bool loaded_ GUARDED_BY(mu_) = false;
  // device → claim key
  std::unordered_map<std::string, std::string> owner_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::vector<std::string>> devices_
      GUARDED_BY(mu_);
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_DEVICE_ALLOCATION_INDEX_H_
