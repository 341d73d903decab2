// PreparedClaimsStore: the claims the example driver has prepared, kept
// durably in its state directory at a cost per change that does not depend
// on how many claims are prepared.
//
// Files (in `dir`):
//   prepared-claims.json     the snapshot: every claim at the last
//                            compaction (the earlier driver's checkpoint
//                            file, same format; its files load as is).
//   prepared-claims.journal  the changes since, one record per line with a
//                            checksum (prepared_claim.h).
// Open loads the snapshot, replays the journal over it and compacts (writes
// a new snapshot atomically, empties the journal). A torn tail (the last
// record incomplete or failing its checksum: a crash during an append that
// was never acknowledged) is dropped with a warning; any other bad record
// or a malformed snapshot is kDataLoss naming the file.
//
// Apply appends one record per change and returns once they are durable:
// with SyncMode::kAlways after an fdatasync of the journal, shared by every
// call waiting at that moment (group commit: while one caller writes and
// syncs, the others queue their records for the next sync). Replaying a
// journal over a snapshot that already holds its changes gives the same
// claims (records are whole values), so a crash between writing a snapshot
// and emptying the journal is harmless. Once the journal holds more records
// than `compact_min_records` and than claims are prepared, the caller that
// last synced writes a new snapshot (O(claims), so O(1) per change
// amortized).
//
// One store per directory at a time (flock on the journal; a second Open,
// in this or another process, is kFailedPrecondition until the first is
// destroyed or its process dies).
//
// Thread-safe. Readers (Find, Claims) see the changes that are durable.
// After a failed write or sync the store refuses further changes (the
// journal's state is unknown); a restart recovers from the files.
#ifndef DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_STORE_H_
#define DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_STORE_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "exampledriver/prepared_claim.h"

namespace dralloc::exampledriver {

enum class SyncMode {
  // A change is on disk (fdatasync) before Apply returns: survives a crash
  // of the machine.
  kAlways,
  // A change is written (write(2)) before Apply returns, never synced:
  // survives kill -9 of the driver, not a crash of the machine. For tmpfs
  // state dirs and benchmarks.
  kNever,
};

struct PreparedClaimsStoreOptions {
  std::filesystem::path dir;
  SyncMode sync = SyncMode::kAlways;
  size_t compact_min_records = 1024;
};

class PreparedClaimsStore {
 public:
  static constexpr char kSnapshotFile[] = "prepared-claims.json";
  static constexpr char kJournalFile[] = "prepared-claims.journal";

  // Loads, replays and compacts the files in options.dir (which must exist).
  static StatusOr<std::unique_ptr<PreparedClaimsStore>> Open(
      PreparedClaimsStoreOptions options);
  ~PreparedClaimsStore();
  PreparedClaimsStore(const PreparedClaimsStore&) = delete;
  PreparedClaimsStore& operator=(const PreparedClaimsStore&) = delete;

  std::optional<PreparedClaim> Find(const std::string& uid) const;
  PreparedClaims Claims() const;

  // Records `changes` (in order) and returns once they are durable as the
  // sync mode says; on error none of them is visible to readers.
  Status Apply(std::vector<ClaimChange> changes);

  // Statistics for tests and benchmarks.
  struct Stats {
    uint64_t syncs = 0;        // journal writes (+ fdatasync) done
    uint64_t compactions = 0;  // snapshots written since Open
    size_t journal_records = 0;
  };
  Stats stats() const;

  std::filesystem::path snapshot_path() const;
  std::filesystem::path journal_path() const;

 private:
  PreparedClaimsStore(PreparedClaimsStoreOptions options, PreparedClaims claims,
                      int journal_fd);

  // Writes `batch` to the journal (and syncs): the group commit leader's
  // I/O, done without mu_.
  Status WriteBatch(const std::string& batch) EXCLUDES(mu_);
  // Writes a snapshot of `claims` and empties the journal.
  Status Compact(const PreparedClaims& claims) EXCLUDES(mu_);
  bool CompactionDue() const REQUIRES(mu_);
  // Runs one group commit as leader; returns with mu_ held.
  void LeadOneCommit() REQUIRES(mu_);

  const PreparedClaimsStoreOptions options_;
  const int journal_fd_;

  mutable Mutex mu_;
  CondVar committed_;
  PreparedClaims claims_ GUARDED_BY(mu_);  // durable state
  // Records and changes queued for the next commit.
  std::string queued_records_ GUARDED_BY(mu_);
  std::vector<ClaimChange> queued_changes_ GUARDED_BY(mu_);
  uint64_t queued_batch_ GUARDED_BY(mu_) = 1;  // the batch being queued
  uint64_t durable_batch_ GUARDED_BY(mu_) = 0;
  bool leader_active_ GUARDED_BY(mu_) = false;
  Status broken_ GUARDED_BY(mu_);  // first write or sync error
  Stats stats_ GUARDED_BY(mu_);
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_PREPARED_CLAIMS_STORE_H_
