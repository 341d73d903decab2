#include "exampledriver/prepared_claims_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "common/log.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;

constexpr char kComponent[] = "exampledriver";
constexpr std::uintmax_t kMaxSnapshotBytes = 64 << 20;
constexpr std::uintmax_t kMaxJournalBytes = 256 << 20;

std::string ErrnoText(int error) { return std::strerror(error); }

// Writes all of `text` to `fd`, retrying short writes and EINTR; 0 or errno.
int WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

// The file's text, nullopt when it does not exist; `what` names it in
// errors (kDataLoss above `limit` bytes).
StatusOr<std::optional<std::string>> ReadFile(const fs::path& file,
                                              std::uintmax_t limit,
                                              const std::string& what) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<std::string>();
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) return InternalError(what + ": " + ec.message());
  if (size > limit) {
    return DataLossError(what + ": larger than " + std::to_string(limit) +
                         " bytes");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return InternalError(what + ": cannot open for reading");
  std::stringstream text;
  text << in.rdbuf();
  return std::optional<std::string>(text.str());
}

// Flushes the directory's entries (a created or renamed file) to disk.
void SyncDirectory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Replaces `file` with `text` atomically: temporary file, (fsync), rename,
// (fsync of the directory).
Status ReplaceFile(const fs::path& file, const std::string& text, SyncMode sync,
                   const std::string& what) {
  const fs::path temporary = file.string() + ".tmp";
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return InternalError(what + ": " + ErrnoText(errno));
  int error = WriteAll(fd, text);
  if (error == 0 && sync == SyncMode::kAlways && ::fsync(fd) != 0) {
    error = errno;
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), file.c_str()) != 0) {
    error = errno;
  }
  if (error != 0) {
    ::unlink(temporary.c_str());
    return InternalError(what + ": " + ErrnoText(error));
  }
  if (sync == SyncMode::kAlways) SyncDirectory(file.parent_path());
  return OkStatus();
}

// Replays journal `text` over `claims`. A bad last record is a torn tail
// (dropped, with a warning); a bad record before others is kDataLoss.
Status ReplayJournal(const std::string& text, const std::string& what,
                     PreparedClaims& claims) {
  size_t position = 0;
  for (size_t record = 0; position < text.size(); ++record) {
    const size_t end = text.find('\n', position);
    if (end == std::string::npos) {
      log::Warn(kComponent, "{}: dropping a torn last record ({} bytes)", what,
                text.size() - position);
      return OkStatus();
    }
    StatusOr<ClaimChange> change = DecodeJournalRecord(
        std::string_view(text).substr(position, end - position));
    if (!change.ok()) {
      const std::string where = "record " + std::to_string(record) + " (byte " +
                                std::to_string(position) + ")";
      if (end + 1 == text.size()) {
        log::Warn(kComponent, "{}: dropping a torn last {}: {}", what, where,
                  change.status().message());
        return OkStatus();
      }
      return DataLossError(what + ": " + where + ": " +
                           change.status().message());
    }
    ApplyChange(claims, std::move(change).value());
    position = end + 1;
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<PreparedClaimsStore>> PreparedClaimsStore::Open(
    PreparedClaimsStoreOptions options) {
  const fs::path snapshot = options.dir / kSnapshotFile;
  const fs::path journal = options.dir / kJournalFile;
  const std::string snapshot_what =
      "prepared claims checkpoint " + snapshot.string();
  const std::string journal_what =
      "prepared claims journal " + journal.string();
  PreparedClaims claims;
  ASSIGN_OR_RETURN(std::optional<std::string> snapshot_text,
                   ReadFile(snapshot, kMaxSnapshotBytes, snapshot_what));
  if (snapshot_text) {
    ASSIGN_OR_RETURN(claims, DecodeSnapshot(*snapshot_text, snapshot_what));
  }
  ASSIGN_OR_RETURN(std::optional<std::string> journal_text,
                   ReadFile(journal, kMaxJournalBytes, journal_what));
  if (journal_text) {
    RETURN_IF_ERROR(ReplayJournal(*journal_text, journal_what, claims));
  }
  const int fd =
      ::open(journal.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return InternalError(journal_what + ": " + ErrnoText(errno));
  // One store per state dir: two writers would compact away each other's
  // records. The kernel drops the lock when the holder dies (kill -9).
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    return error == EWOULDBLOCK
               ? FailedPreconditionError(
                     journal_what +
                     ": in use by another driver with this state directory")
               : InternalError(journal_what + ": flock: " + ErrnoText(error));
  }
  // The journal's directory entry must outlive a machine crash too.
  if (options.sync == SyncMode::kAlways) SyncDirectory(options.dir);
  std::unique_ptr<PreparedClaimsStore> store(
      new PreparedClaimsStore(std::move(options), claims, fd));
  if (journal_text && !journal_text->empty()) {
    // Also drops a torn tail, which later appends must not follow.
    RETURN_IF_ERROR(store->Compact(claims));
  }
  return store;
}

PreparedClaimsStore::PreparedClaimsStore(PreparedClaimsStoreOptions options,
                                         PreparedClaims claims, int journal_fd)
    : options_(std::move(options)),
      journal_fd_(journal_fd),
      claims_(std::move(claims)) {}

PreparedClaimsStore::~PreparedClaimsStore() { ::close(journal_fd_); }

fs::path PreparedClaimsStore::snapshot_path() const {
  return options_.dir / kSnapshotFile;
}

fs::path PreparedClaimsStore::journal_path() const {
  return options_.dir / kJournalFile;
}

std::optional<PreparedClaim> PreparedClaimsStore::Find(
    const std::string& uid) const {
  MutexLock lock(mu_);
  auto it = claims_.find(uid);
  if (it == claims_.end()) return std::nullopt;
  return it->second;
}

PreparedClaims PreparedClaimsStore::Claims() const {
  MutexLock lock(mu_);
  return claims_;
}

PreparedClaimsStore::Stats PreparedClaimsStore::stats() const {
  MutexLock lock(mu_);
  return stats_;
}

Status PreparedClaimsStore::Apply(std::vector<ClaimChange> changes) {
  if (changes.empty()) return OkStatus();
  std::string records;
  for (const ClaimChange& change : changes) {
    records += EncodeJournalRecord(change);
  }
  MutexLock lock(mu_);
  if (!broken_.ok()) return broken_;
  queued_records_ += records;
  std::ranges::move(changes, std::back_inserter(queued_changes_));
  const uint64_t batch = queued_batch_;
  while (durable_batch_ < batch && broken_.ok()) {
    if (leader_active_) {
      committed_.Wait(mu_);
    } else {
      LeadOneCommit();
    }
  }
  return durable_batch_ >= batch ? OkStatus() : broken_;
}

void PreparedClaimsStore::LeadOneCommit() {
  leader_active_ = true;
  const std::string records = std::exchange(queued_records_, {});
  std::vector<ClaimChange> changes = std::exchange(queued_changes_, {});
  const uint64_t batch = queued_batch_++;
  mu_.Unlock();
  const Status written = WriteBatch(records);
  mu_.Lock();
  if (written.ok()) {
    stats_.journal_records += changes.size();
    ++stats_.syncs;
    for (ClaimChange& change : changes) {
      ApplyChange(claims_, std::move(change));
    }
    durable_batch_ = batch;
  } else {
    broken_ = written;
  }
  committed_.SignalAll();
  if (written.ok() && CompactionDue()) {
    // Still the leader: nothing is appended to the journal meanwhile.
    const PreparedClaims claims = claims_;
    mu_.Unlock();
    const Status compacted = Compact(claims);
    mu_.Lock();
    if (!compacted.ok()) {
      log::Warn(kComponent, "compaction: {} (retried later)",
                compacted.message());
    }
  }
  leader_active_ = false;
  committed_.SignalAll();
}

bool PreparedClaimsStore::CompactionDue() const {
  return stats_.journal_records >=
         std::max(options_.compact_min_records, claims_.size());
}

Status PreparedClaimsStore::WriteBatch(const std::string& batch) {
  const std::string what = "prepared claims journal " + journal_path().string();
  if (const int error = WriteAll(journal_fd_, batch); error != 0) {
    return InternalError(what + ": write: " + ErrnoText(error));
  }
  if (options_.sync == SyncMode::kAlways && ::fdatasync(journal_fd_) != 0) {
    return InternalError(what + ": fdatasync: " + ErrnoText(errno));
  }
  return OkStatus();
}

Status PreparedClaimsStore::Compact(const PreparedClaims& claims) {
  RETURN_IF_ERROR(
      ReplaceFile(snapshot_path(), EncodeSnapshot(claims), options_.sync,
                  "prepared claims checkpoint " + snapshot_path().string()));
  // The snapshot holds every journaled change now; a crash before the
  // truncation replays them over it again, which changes nothing.
  const std::string what = "prepared claims journal " + journal_path().string();
  if (::ftruncate(journal_fd_, 0) != 0) {
    return InternalError(what + ": truncate: " + ErrnoText(errno));
  }
  if (options_.sync == SyncMode::kAlways && ::fdatasync(journal_fd_) != 0) {
    return InternalError(what + ": fdatasync: " + ErrnoText(errno));
  }
  MutexLock lock(mu_);
  stats_.journal_records = 0;
  ++stats_.compactions;
  return OkStatus();
}

}  // namespace dralloc::exampledriver
