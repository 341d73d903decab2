#include "node/claim_info_cache.h"

namespace dralloc::node {

StatusOr<std::unique_ptr<ClaimInfoCache>> ClaimInfoCache::Open(
    std::string state_dir) {
  Checkpoint checkpoint(std::move(state_dir));
  ASSIGN_OR_RETURN(std::vector<ClaimInfo> claims, checkpoint.Load());
  std::unique_ptr<ClaimInfoCache> cache(new ClaimInfoCache(checkpoint));
  MutexLock lock(cache->mu_);
  for (ClaimInfo& claim : claims) {
    std::string uid = claim.uid;
    cache->claims_.emplace(std::move(uid), std::move(claim));
  }
  return cache;
}

std::optional<ClaimInfo> ClaimInfoCache::Get(const std::string& uid) const {
  MutexLock lock(mu_);
  auto it = claims_.find(uid);
  if (it == claims_.end()) return std::nullopt;
  return it->second;
}

std::vector<ClaimInfo> ClaimInfoCache::List() const {
  MutexLock lock(mu_);
  std::vector<ClaimInfo> out;
  for (const auto& [uid, claim] : claims_) out.push_back(claim);
  return out;
}

Status ClaimInfoCache::Mutate(const std::function<void(Claims&)>& change) {
  MutexLock lock(mu_);
  Claims before = claims_;
  change(claims_);
  if (claims_ == before) return OkStatus();
  std::vector<ClaimInfo> all;
  all.reserve(claims_.size());
  for (const auto& [uid, claim] : claims_) all.push_back(claim);
  Status saved = checkpoint_.Save(all);
  if (!saved.ok()) claims_ = std::move(before);
  return saved;
}

}  // namespace dralloc::node
