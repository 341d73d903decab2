// ClaimLocks: per-claim mutual exclusion, for the node agent's prepares and
// unprepares and for the example driver's calls.
//
// The kubelet may prepare and unprepare different claims at once (one call
// per pod worker); those run in parallel. Two operations naming a common
// claim UID run one after the other, so a claim is never prepared twice or
// unprepared while it is being prepared. An operation takes all its claims
// at once (waiting until none is held), which cannot deadlock.
#ifndef DRALLOC_COMMON_CLAIM_LOCKS_H_
#define DRALLOC_COMMON_CLAIM_LOCKS_H_

#include <set>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace dralloc {

class ClaimLocks {
 public:
  // Holds a set of claims until destroyed.
  class Held {
   public:
    Held(Held&& other) noexcept;
    ~Held();
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    Held& operator=(Held&&) = delete;

   private:
    friend class ClaimLocks;
    Held(ClaimLocks* locks, std::vector<std::string> uids)
        : locks_(locks), uids_(std::move(uids)) {}
    ClaimLocks* locks_;
    std::vector<std::string> uids_;
  };

  // Waits until no other holder has any of `uids` (duplicates are fine),
  // then holds them all.
  Held LockAll(std::vector<std::string> uids) EXCLUDES(mu_);

  // How many claims are held (tests).
  size_t held() const EXCLUDES(mu_);

 private:
  void Release(const std::vector<std::string>& uids) EXCLUDES(mu_);

  mutable Mutex mu_;
  CondVar released_;
  std::set<std::string> held_ GUARDED_BY(mu_);
};

}  // namespace dralloc

#endif  // DRALLOC_COMMON_CLAIM_LOCKS_H_
