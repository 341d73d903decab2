// ClaimInfoCache: the prepared-claim state of the node agent, in memory and
// in its Checkpoint. Every change is written to the checkpoint before the
// call returns; a change that cannot be written is undone and reported, so
// memory never runs ahead of the file. Thread-safe.
#ifndef DRALLOC_NODE_CLAIM_INFO_CACHE_H_
#define DRALLOC_NODE_CLAIM_INFO_CACHE_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "node/checkpoint.h"
#include "node/claim_info.h"

namespace dralloc::node {

class ClaimInfoCache {
 public:
  using Claims = std::map<std::string, ClaimInfo>;  // by claim UID

  // Loads the checkpoint in `state_dir` (kDataLoss when it is corrupt).
  static StatusOr<std::unique_ptr<ClaimInfoCache>> Open(std::string state_dir);

  std::optional<ClaimInfo> Get(const std::string& uid) const EXCLUDES(mu_);
  std::vector<ClaimInfo> List() const EXCLUDES(mu_);

  // Applies `change` to the claims and saves them; on a save failure the
  // change is undone and the error returned.
  Status Mutate(const std::function<void(Claims&)>& change) EXCLUDES(mu_);

  const std::string& checkpoint_path() const { return checkpoint_.path(); }

 private:
  explicit ClaimInfoCache(Checkpoint checkpoint) : checkpoint_(checkpoint) {}

  const Checkpoint checkpoint_;
  mutable Mutex mu_;
  Claims claims_ GUARDED_BY(mu_);
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CLAIM_INFO_CACHE_H_
