#include "node/claim_info_cache.h"

#include <algorithm>

#include "common/log.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "checkpoint";
// The journal is folded into a snapshot once it is larger than this many
// times the snapshot (and than kMinCompactBytes): compaction costs
// O(claims), so it is paid once per that many changes.
constexpr uint64_t kCompactRatio = 4;
constexpr uint64_t kMinCompactBytes = 256 << 10;

}  // namespace

const ClaimInfo* ClaimInfoCache::Transaction::Find(
    const std::string& uid) const {
  auto it = claims_.find(uid);
  return it == claims_.end() ? nullptr : &it->second;
}

void ClaimInfoCache::Transaction::Remember(const std::string& uid) {
  if (before_.contains(uid)) return;
  const ClaimInfo* now = Find(uid);
  before_.emplace(
      uid, now != nullptr ? std::optional<ClaimInfo>(*now) : std::nullopt);
}

ClaimInfo& ClaimInfoCache::Transaction::Edit(const std::string& uid) {
  Remember(uid);
  ClaimInfo& claim = claims_[uid];
  claim.uid = uid;
  return claim;
}

void ClaimInfoCache::Transaction::Erase(const std::string& uid) {
  Remember(uid);
  claims_.erase(uid);
}

StatusOr<std::unique_ptr<ClaimInfoCache>> ClaimInfoCache::Open(
    std::string state_dir) {
  Checkpoint checkpoint(std::move(state_dir));
  ASSIGN_OR_RETURN(std::vector<ClaimInfo> claims, checkpoint.Load());
  RETURN_IF_ERROR(checkpoint.CreateDir());
  ASSIGN_OR_RETURN(std::unique_ptr<CheckpointJournal> journal,
                   CheckpointJournal::Open(checkpoint.journal_path()));
  std::unique_ptr<ClaimInfoCache> cache(
      new ClaimInfoCache(checkpoint, std::move(journal)));
  MutexLock lock(cache->mu_);
  for (ClaimInfo& claim : claims) {
    for (const std::string& pod : claim.pod_uids) {
      cache->pod_claims_[pod].insert(claim.uid);
    }
    std::string uid = claim.uid;
    cache->claims_.emplace(std::move(uid), std::move(claim));
  }
  // A torn last record must not stay in front of the next appends.
  RETURN_IF_ERROR(cache->Compact());
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
  out.reserve(claims_.size());
  for (const auto& [uid, claim] : claims_) out.push_back(claim);
  return out;
}

std::vector<ClaimInfo> ClaimInfoCache::ClaimsOfPod(
    const std::string& pod_uid) const {
  MutexLock lock(mu_);
  std::vector<ClaimInfo> out;
  auto pod = pod_claims_.find(pod_uid);
  if (pod == pod_claims_.end()) return out;
  for (const std::string& uid : pod->second) {
    auto claim = claims_.find(uid);
    if (claim != claims_.end()) out.push_back(claim->second);
  }
  return out;
}

size_t ClaimInfoCache::size() const {
  MutexLock lock(mu_);
  return claims_.size();
}

Status ClaimInfoCache::Mutate(const std::function<void(Transaction&)>& change) {
  MutexLock lock(mu_);
  Transaction tx(claims_);
  change(tx);
  const std::string records = Records(tx);
  if (records.empty()) return OkStatus();
  Status written = journal_->Append(records);
  if (!written.ok()) {
    Undo(tx);
    return written;
  }
  Reindex(tx);
  const uint64_t limit =
      std::max(kMinCompactBytes, kCompactRatio * snapshot_bytes_);
  if (journal_->size() > limit) {
    // The change is journaled already; a failed snapshot only means the
    // journal keeps growing until the next try.
    Status compacted = Compact();
    if (!compacted.ok()) log::Warn(kComponent, "{}", compacted.message());
  }
  return OkStatus();
}

Status ClaimInfoCache::Sync() { return journal_->Sync(); }

std::string ClaimInfoCache::Records(const Transaction& tx) const {
  std::string out;
  for (const auto& [uid, before] : tx.before_) {
    const ClaimInfo* now = tx.Find(uid);
    if (now == nullptr) {
      if (before) out += Checkpoint::EncodeDelete(uid);
    } else if (!before || *before != *now) {
      out += Checkpoint::EncodePut(*now);
    }
  }
  return out;
}

void ClaimInfoCache::Reindex(const Transaction& tx) {
  for (const auto& [uid, before] : tx.before_) {
    if (before) {
      for (const std::string& pod : before->pod_uids) {
        auto it = pod_claims_.find(pod);
        if (it == pod_claims_.end()) continue;
        it->second.erase(uid);
        if (it->second.empty()) pod_claims_.erase(it);
      }
    }
    if (const ClaimInfo* now = tx.Find(uid)) {
      for (const std::string& pod : now->pod_uids) pod_claims_[pod].insert(uid);
    }
  }
}

void ClaimInfoCache::Undo(Transaction& tx) {
  for (auto& [uid, before] : tx.before_) {
    if (before) {
      claims_[uid] = std::move(*before);
    } else {
      claims_.erase(uid);
    }
  }
}

Status ClaimInfoCache::Compact() {
  std::vector<ClaimInfo> all;
  all.reserve(claims_.size());
  for (const auto& [uid, claim] : claims_) all.push_back(claim);
  ASSIGN_OR_RETURN(const size_t bytes, checkpoint_.Save(all));
  RETURN_IF_ERROR(journal_->Reset());
  snapshot_bytes_ = bytes;
  return OkStatus();
}

}  // namespace dralloc::node
