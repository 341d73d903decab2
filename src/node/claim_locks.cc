#include "node/claim_locks.h"

namespace dralloc::node {

ClaimLocks::Guard ClaimLocks::Acquire(std::set<std::string> uids) {
  MutexLock lock(mu_);
  while (AnyHeld(uids)) released_.Wait(mu_);
  held_.insert(uids.begin(), uids.end());
  return Guard(*this, std::move(uids));
}

void ClaimLocks::Release(const std::set<std::string>& uids) {
  if (uids.empty()) return;
  {
    MutexLock lock(mu_);
    for (const std::string& uid : uids) held_.erase(uid);
  }
  released_.SignalAll();
}

bool ClaimLocks::AnyHeld(const std::set<std::string>& uids) const {
  for (const std::string& uid : uids) {
    if (held_.contains(uid)) return true;
  }
  return false;
}

}  // namespace dralloc::node
