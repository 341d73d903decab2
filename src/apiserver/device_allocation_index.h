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

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types/resource_claim.h"
#include "store/store.h"

namespace dralloc::apiserver {

class DeviceAllocationIndex {
 public:
  // `decode` turns a stored claim into a ResourceClaim (nullopt: skip).
  using Decoder =
      std::function<std::optional<api::ResourceClaim>(const std::string&)>;
  DeviceAllocationIndex(store::Store& store, Decoder decode);

  // Serialises claim writes: hold it from Conflict() until Record().
  std::unique_lock<std::mutex> Lock();
  // "driver/pool/device is already allocated to claim ns/name" if `claim`
  // (stored at `key`) would take a device another claim holds; mu held.
  std::optional<std::string> Conflict(const std::string& key,
                                      const api::ResourceClaim& claim);
  // The claim at `key` now is `claim` (nullptr: deleted); mu held.
  void Record(const std::string& key, const api::ResourceClaim* claim);

 private:
  static std::vector<std::string> ExclusiveDevices(
      const api::ResourceClaim& claim);
  void LoadLocked();

  store::Store& store_;
  Decoder decode_;
  std::mutex mu_;
  bool loaded_ = false;
  std::unordered_map<std::string, std::string> owner_;  // device → claim key
  std::unordered_map<std::string, std::vector<std::string>> devices_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_DEVICE_ALLOCATION_INDEX_H_
