// Checkpoint: the prepared-claim state files of the node agent in its state
// dir: the snapshot `dra_manager_state` (the kubelet's file name) and the
// journal `dra_manager_state.journal` of changes made since the snapshot.
//
// Snapshot: {"version":"dralloc.node/v1","claims":[...],"checksum":"<hex>"},
// where the checksum is FNV-1a 64 of the compact "claims" text. It is
// written atomically and durably: a temporary file is written and fsynced,
// renamed over the snapshot, and the directory is fsynced, so after a crash
// the file holds either the old or the new state.
//
// Journal: one record per line, "<checksum> <json>\n" with the FNV-1a 64
// (16 hex digits) of the JSON, which is {"put":<claim>} (the claim's whole
// new state) or {"delete":"<uid>"}. Records replay in order over the
// snapshot; replaying records the snapshot already contains changes
// nothing (each names a claim's final state), so a crash between a new
// snapshot and emptying the journal is harmless. A last line without its
// newline or with a wrong checksum is a write torn by a crash and is
// dropped; anything else that does not parse is corruption.
//
// Corruption (a snapshot or journal line that does not parse, or whose
// checksum does not match) is kDataLoss naming the file: the agent refuses
// to start rather than forget claims that may be prepared.
#ifndef DRALLOC_NODE_CHECKPOINT_H_
#define DRALLOC_NODE_CHECKPOINT_H_

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "node/claim_info.h"

namespace dralloc::node {

inline constexpr char kCheckpointFileName[] = "dra_manager_state";
inline constexpr char kJournalSuffix[] = ".journal";

class Checkpoint {
 public:
  // `state_dir` is created on the first Save.
  explicit Checkpoint(std::string state_dir);

  // The saved claims (snapshot, then journal); none when there is no
  // checkpoint yet.
  StatusOr<std::vector<ClaimInfo>> Load() const;
  // Writes a snapshot of `claims` (the journal is left alone: the caller
  // empties it once this returned OK) and returns its size in bytes.
  // Creates the state dir.
  StatusOr<size_t> Save(const std::vector<ClaimInfo>& claims) const;
  // Creates the state dir.
  Status CreateDir() const;

  const std::string& path() const { return path_; }
  std::string journal_path() const { return path_ + kJournalSuffix; }

  // The snapshot's text for `claims`, and back (errors name `source`).
  static std::string Encode(const std::vector<ClaimInfo>& claims);
  static StatusOr<std::vector<ClaimInfo>> Decode(const std::string& text,
                                                 const std::string& source);
  // Journal lines: the claim's new state, or its removal.
  static std::string EncodePut(const ClaimInfo& claim);
  static std::string EncodeDelete(const std::string& uid);
  // Applies the journal `text` to `claims` (by uid); errors name `source`
  // and the line.
  static Status Replay(const std::string& text, const std::string& source,
                       std::map<std::string, ClaimInfo>& claims);

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CHECKPOINT_H_
