#include "node/checkpoint_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dralloc::node {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return InternalError("checkpoint journal " + path + ": " + what + ": " +
                       std::strerror(errno));
}

}  // namespace

StatusOr<std::unique_ptr<CheckpointJournal>> CheckpointJournal::Open(
    std::string path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    Status error = Errno("stat", path);
    ::close(fd);
    return error;
  }
  return std::unique_ptr<CheckpointJournal>(new CheckpointJournal(
      std::move(path), fd, static_cast<uint64_t>(info.st_size)));
}

CheckpointJournal::CheckpointJournal(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

CheckpointJournal::~CheckpointJournal() { ::close(fd_); }

Status CheckpointJournal::Append(std::string_view records) {
  size_t written = 0;
  while (written < records.size()) {
    const ssize_t n =
        ::write(fd_, records.data() + written, records.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status error = Errno("write", path_);
      // Cut a partial record off; if even that fails the next Load drops
      // a torn last line, and an agent that cannot write stops anyway.
      if (written > 0 && ::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        return error.WithPrefix("(and truncating back failed)");
      }
      return error;
    }
    written += static_cast<size_t>(n);
  }
  size_ += records.size();
  appended_ += records.size();
  return OkStatus();
}

Status CheckpointJournal::Sync() {
  const uint64_t target = appended_.load();
  sync_mu_.Lock();
  // Another thread's flush may cover us; a flush under way may have
  // started before our records were written, so wait for it and look again.
  while (synced_ < target && syncing_) sync_done_.Wait(sync_mu_);
  if (synced_ >= target) {
    sync_mu_.Unlock();
    return OkStatus();
  }
  syncing_ = true;
  const uint64_t covered = appended_.load();
  sync_mu_.Unlock();
  Status status =
      ::fdatasync(fd_) == 0 ? OkStatus() : Errno("fdatasync", path_);
  sync_mu_.Lock();
  syncing_ = false;
  if (status.ok()) synced_ = std::max(synced_, covered);
  sync_done_.SignalAll();
  sync_mu_.Unlock();
  return status;
}

Status CheckpointJournal::Reset() {
  if (::ftruncate(fd_, 0) != 0) return Errno("truncate", path_);
  size_ = 0;
  return OkStatus();
}

}  // namespace dralloc::node
