// CheckpointJournal: the append-only file of changes since the last
// checkpoint snapshot, `<state-dir>/dra_manager_state.journal`.
//
// Append() writes whole records with write(2): once it returns they are in
// the kernel and survive the agent being killed (kill -9). Sync() makes
// everything appended before it was called durable (power loss) with
// fdatasync; concurrent callers share one fdatasync (group commit), so N
// pods preparing at once pay for about one disk flush, not N. Reset()
// empties the file after a snapshot took its content over.
//
// Append() and Reset() must be serialized by the caller (ClaimInfoCache
// holds its lock); Sync() may be called from any thread at any time.
#ifndef DRALLOC_NODE_CHECKPOINT_JOURNAL_H_
#define DRALLOC_NODE_CHECKPOINT_JOURNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/status.h"

namespace dralloc::node {

class CheckpointJournal {
 public:
  // Opens (creating) `path` for appending; the directory must exist.
  static StatusOr<std::unique_ptr<CheckpointJournal>> Open(std::string path);
  ~CheckpointJournal();
  CheckpointJournal(const CheckpointJournal&) = delete;
  CheckpointJournal& operator=(const CheckpointJournal&) = delete;

  // Appends `records` (whole lines). On failure the file is cut back to
  // its size before the call, so a half-written record never stays
  // between good ones.
  Status Append(std::string_view records);
  // Durable: everything appended before this call is on disk.
  Status Sync() EXCLUDES(sync_mu_);
  // Empties the file (its records are in a durable snapshot now).
  Status Reset();

  // Bytes in the file now.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  CheckpointJournal(std::string path, int fd, uint64_t size);

  const std::string path_;
  const int fd_;
  uint64_t size_;  // serialized by the caller, as Append/Reset are
  // Monotonic count of bytes ever appended (Reset does not lower it), so
  // Sync can tell whether a flush that started later covers its records.
  std::atomic<uint64_t> appended_{0};
  Mutex sync_mu_;
  CondVar sync_done_;
  bool syncing_ GUARDED_BY(sync_mu_) = false;
  uint64_t synced_ GUARDED_BY(sync_mu_) = 0;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CHECKPOINT_JOURNAL_H_
