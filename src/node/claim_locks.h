// ClaimLocks: one lock per claim UID, taken for a whole prepare or
// unprepare (across the driver calls), so that operations on different
// claims run in parallel and operations on the same claim never overlap
// (an unprepare in flight cannot be overtaken by a prepare of the same
// claim, nor the other way round). A Guard takes all of its UIDs at once,
// so two operations on overlapping sets never deadlock. Thread-safe.
#ifndef DRALLOC_NODE_CLAIM_LOCKS_H_
#define DRALLOC_NODE_CLAIM_LOCKS_H_

#include <set>
#include <string>

#include "common/mutex.h"

namespace dralloc::node {

class ClaimLocks {
 public:
  // Holds its UIDs until destroyed.
  class Guard {
   public:
    Guard(Guard&& other) noexcept
        : locks_(other.locks_), uids_(std::move(other.uids_)) {
      other.uids_.clear();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    Guard& operator=(Guard&&) = delete;
    ~Guard() { locks_.Release(uids_); }

   private:
    friend class ClaimLocks;
    Guard(ClaimLocks& locks, std::set<std::string> uids)
        : locks_(locks), uids_(std::move(uids)) {}
    ClaimLocks& locks_;
    std::set<std::string> uids_;
  };

  // Waits until none of `uids` is held, then holds them all.
  Guard Acquire(std::set<std::string> uids) EXCLUDES(mu_);

 private:
  void Release(const std::set<std::string>& uids) EXCLUDES(mu_);
  bool AnyHeld(const std::set<std::string>& uids) const REQUIRES(mu_);

  Mutex mu_;
  CondVar released_;
  std::set<std::string> held_ GUARDED_BY(mu_);
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CLAIM_LOCKS_H_
