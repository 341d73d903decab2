// Checkpoint: the prepared-claim state file of the node agent,
// `<state-dir>/dra_manager_state` (the kubelet's file name).
//
// JSON: {"version":"dralloc.node/v1","claims":[...],"checksum":"<hex>"},
// where the checksum is FNV-1a 64 of the compact "claims" text. Writes are
// atomic and durable: a temporary file is written and fsynced, renamed over
// the checkpoint, and the directory is fsynced, so after a crash the file
// holds either the old or the new state. A checkpoint that does not parse
// or whose checksum does not match is kDataLoss naming the file: the agent
// refuses to start rather than forget claims that may be prepared.
#ifndef DRALLOC_NODE_CHECKPOINT_H_
#define DRALLOC_NODE_CHECKPOINT_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "node/claim_info.h"

namespace dralloc::node {

inline constexpr char kCheckpointFileName[] = "dra_manager_state";

class Checkpoint {
 public:
  // `state_dir` is created on the first Save.
  explicit Checkpoint(std::string state_dir);

  // The saved claims; none when there is no checkpoint yet.
  StatusOr<std::vector<ClaimInfo>> Load() const;
  Status Save(const std::vector<ClaimInfo>& claims) const;

  const std::string& path() const { return path_; }

  // The file's text for `claims`, and back (errors name `source`).
  static std::string Encode(const std::vector<ClaimInfo>& claims);
  static StatusOr<std::vector<ClaimInfo>> Decode(const std::string& text,
                                                 const std::string& source);

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CHECKPOINT_H_
