// ResourceQuotas (upstream pkg/registry/core/resourcequota/strategy.go): the
// status belongs to the quota controller and the admission that charges it,
// so a create starts with an empty status whatever the client sent (a user
// cannot pre-charge or pre-clear a quota), and a status write changes
// nothing else (the generic rule).
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

class ResourceQuotaRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    std::get<api::ResourceQuota>(object).status = {};
  }
};

}  // namespace

const ResourceStrategy& ResourceQuotaStrategy() {
  static const ResourceQuotaRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
