#include "common/claim_locks.h"

#include <algorithm>
#include <utility>

namespace dralloc {

ClaimLocks::Held::Held(Held&& other) noexcept
    : locks_(std::exchange(other.locks_, nullptr)),
      uids_(std::move(other.uids_)) {}

ClaimLocks::Held::~Held() {
  if (locks_ != nullptr) locks_->Release(uids_);
}

ClaimLocks::Held ClaimLocks::LockAll(std::vector<std::string> uids) {
  std::ranges::sort(uids);
  uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
  MutexLock lock(mu_);
  while (std::ranges::any_of(uids, [&](const std::string& uid) REQUIRES(mu_) {
    return held_.contains(uid);
  })) {
    released_.Wait(mu_);
  }
  held_.insert(uids.begin(), uids.end());
  return Held(this, std::move(uids));
}

size_t ClaimLocks::held() const {
  MutexLock lock(mu_);
  return held_.size();
}

void ClaimLocks::Release(const std::vector<std::string>& uids) {
  {
    MutexLock lock(mu_);
    for (const std::string& uid : uids) held_.erase(uid);
  }
  released_.SignalAll();
}

}  // namespace dralloc
