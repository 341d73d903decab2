// PreparedClaim: what the example driver keeps per prepared claim, and its
// JSON forms (the checkpoint snapshot and the journal records share them).
//
// A claim: {"namespace": ..., "name": ..., "devices": [{"requestNames":
// [...], "poolName": ..., "deviceName": ..., "cdiDeviceIds": [...],
// "shareId": ...}], "cdiSpec": "<the claim's CDI spec file text>"}.
// "cdiSpec" is absent in checkpoints written before the journal existed.
#ifndef DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIM_H_
#define DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIM_H_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::exampledriver {

struct PreparedClaim {
  std::string namespace_;
  std::string name;
  std::vector<kubeletplugin::PreparedDevice> devices;
  // The exact text of the claim's CDI spec file, so that a restarted driver
  // can restore a file lost with the page cache (the file is written
  // without fsync). Empty for claims from old checkpoints.
  std::string cdi_spec;

  friend bool operator==(const PreparedClaim&, const PreparedClaim&) = default;
};

using PreparedClaims = std::map<std::string, PreparedClaim>;  // by claim UID

// One change of the prepared claims: `claim` set = prepared (put), unset =
// unprepared (erase).
struct ClaimChange {
  std::string uid;
  std::optional<PreparedClaim> claim;
};

nlohmann::json PreparedClaimToJson(const PreparedClaim& claim);
// A missing or mistyped field is kDataLoss naming it under `path`
// ("claims[<uid>].devices[0].poolName: Required value").
StatusOr<PreparedClaim> PreparedClaimFromJson(const nlohmann::json& in,
                                              const std::string& path);

// Snapshot file text: {"version":1,"claims":{"<uid>": claim}} (compact).
std::string EncodeSnapshot(const PreparedClaims& claims);
// Parses snapshot text; errors are kDataLoss prefixed with `what` (the
// file). Pretty-printed files of the earlier driver load too.
StatusOr<PreparedClaims> DecodeSnapshot(const std::string& text,
                                        const std::string& what);

// Journal record line: "<16 hex digits: FNV-1a 64 of JSON> <JSON>\n" with
// JSON {"put":"<uid>","claim":{...}} or {"erase":"<uid>"}.
std::string EncodeJournalRecord(const ClaimChange& change);
// Parses one line (without its '\n'); errors are kDataLoss (no prefix).
StatusOr<ClaimChange> DecodeJournalRecord(std::string_view line);

// Applies `change` to `claims`.
void ApplyChange(PreparedClaims& claims, ClaimChange change);

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIM_H_
