// ClaimInfoCache: the prepared-claim state of the node agent, in memory and
// in its Checkpoint (snapshot + journal). Thread-safe.
//
// Mutate() applies a change and appends a journal record for each claim it
// touched before it returns, so what it returned survives the agent being
// killed (kill -9); memory never runs ahead of the file: a change that
// cannot be written is undone and reported. Sync() then makes it durable
// against power loss (fdatasync, shared by concurrent callers). A change
// costs O(claims touched), not O(claims held): the journal is folded into
// a new snapshot only once it has grown past a few times the snapshot's
// size, and at Open.
#ifndef DRALLOC_NODE_CLAIM_INFO_CACHE_H_
#define DRALLOC_NODE_CLAIM_INFO_CACHE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "node/checkpoint.h"
#include "node/checkpoint_journal.h"
#include "node/claim_info.h"

namespace dralloc::node {

class ClaimInfoCache {
 public:
  using Claims = std::map<std::string, ClaimInfo>;  // by claim UID

  // The view a Mutate change works on: reads are free, edits go through
  // Edit/Erase so that only the claims touched are written.
  class Transaction {
   public:
    const Claims& claims() const { return claims_; }
    const ClaimInfo* Find(const std::string& uid) const;
    // The claim (created with its uid set when absent), to change.
    ClaimInfo& Edit(const std::string& uid);
    void Erase(const std::string& uid);

   private:
    friend class ClaimInfoCache;
    explicit Transaction(Claims& claims) : claims_(claims) {}
    void Remember(const std::string& uid);

    Claims& claims_;
    // State of each touched claim before its first touch (nullopt: absent).
    std::map<std::string, std::optional<ClaimInfo>> before_;
  };

  // Loads the checkpoint in `state_dir` (kDataLoss when it is corrupt) and
  // folds its journal into a fresh snapshot.
  static StatusOr<std::unique_ptr<ClaimInfoCache>> Open(std::string state_dir);

  std::optional<ClaimInfo> Get(const std::string& uid) const EXCLUDES(mu_);
  std::vector<ClaimInfo> List() const EXCLUDES(mu_);
  // The claims pod `pod_uid` uses (copies only those).
  std::vector<ClaimInfo> ClaimsOfPod(const std::string& pod_uid) const
      EXCLUDES(mu_);
  size_t size() const EXCLUDES(mu_);

  // Applies `change` and journals the claims it changed; on a write
  // failure the change is undone and the error returned.
  Status Mutate(const std::function<void(Transaction&)>& change) EXCLUDES(mu_);
  // Everything Mutate returned before this call is on disk.
  Status Sync();

  const std::string& checkpoint_path() const { return checkpoint_.path(); }

 private:
  ClaimInfoCache(Checkpoint checkpoint,
                 std::unique_ptr<CheckpointJournal> journal)
      : checkpoint_(std::move(checkpoint)), journal_(std::move(journal)) {}
  // The journal lines for what `tx` changed ("" when nothing did).
  std::string Records(const Transaction& tx) const REQUIRES(mu_);
  void Undo(Transaction& tx) REQUIRES(mu_);
  // Writes a snapshot and empties the journal.
  Status Compact() REQUIRES(mu_);
  // Keeps pod_claims_ in step with what `tx` changed.
  void Reindex(const Transaction& tx) REQUIRES(mu_);

  const Checkpoint checkpoint_;
  const std::unique_ptr<CheckpointJournal> journal_;
  mutable Mutex mu_;
  Claims claims_ GUARDED_BY(mu_);
  // Pod UID → UIDs of the claims it uses (the claims' pod_uids, inverted).
  std::map<std::string, std::set<std::string>> pod_claims_ GUARDED_BY(mu_);
  uint64_t snapshot_bytes_ GUARDED_BY(mu_) = 0;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CLAIM_INFO_CACHE_H_
