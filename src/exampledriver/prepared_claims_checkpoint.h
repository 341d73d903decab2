// PreparedClaimsCheckpoint: the claims the example driver has prepared, kept
// in a small JSON file in its state directory so that a restarted driver
// answers a repeated prepare the same way and can unprepare what it
// prepared before.
//
// File: {"version": 1, "claims": {"<uid>": {"namespace": ..., "name": ...,
// "devices": [{"requestNames": [...], "poolName": ..., "deviceName": ...,
// "cdiDeviceIds": [...], "shareId": ...}]}}}. Every change is written
// atomically (temporary file, fsync, rename). Not thread-safe: the driver
// serializes calls.
#ifndef DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_CHECKPOINT_H_
#define DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_CHECKPOINT_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::exampledriver {

struct PreparedClaim {
  std::string namespace_;
  std::string name;
  std::vector<kubeletplugin::PreparedDevice> devices;
};

class PreparedClaimsCheckpoint {
 public:
  // Loads `file`; a missing file is an empty checkpoint. A malformed one is
  // kDataLoss naming the file.
  static StatusOr<PreparedClaimsCheckpoint> Load(std::filesystem::path file);

  const PreparedClaim* Find(const std::string& uid) const;
  // Records (or replaces) a claim and writes the file.
  Status Put(const std::string& uid, PreparedClaim claim);
  // Forgets a claim and writes the file; unknown uid is OK.
  Status Erase(const std::string& uid);

  const std::map<std::string, PreparedClaim>& claims() const { return claims_; }

 private:
  explicit PreparedClaimsCheckpoint(std::filesystem::path file)
      : file_(std::move(file)) {}
  Status Save() const;

  std::filesystem::path file_;
  std::map<std::string, PreparedClaim> claims_;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_CHECKPOINT_H_
