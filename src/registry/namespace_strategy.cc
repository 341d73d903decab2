// Namespaces (upstream pkg/registry/core/namespace/strategy.go): a new
// namespace is Active and carries the "kubernetes" finalizer, which the
// namespace finalizer removes once the deleted namespace is empty; its
// spec.finalizers change only through namespaces/<name>/finalize; a deleted
// namespace is Terminating until they are gone.
#include <algorithm>

#include "api/well_known.h"
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

class NamespaceRules final : public ResourceStrategy {
 public:
  // Not a default applied on every write: the finalizer may be removed
  // over the namespace's life.
  void PrepareForCreate(api::Object& object) const override {
    auto& ns = std::get<api::Namespace>(object);
    ns.status = {};
    ns.status.phase = "Active";
    auto& finalizers = ns.spec.finalizers;
    if (std::find(finalizers.begin(), finalizers.end(),
                  api::kNamespaceFinalizer) == finalizers.end()) {
      finalizers.emplace_back(api::kNamespaceFinalizer);
    }
  }

  void PrepareForUpdate(const api::ResourceInfo& info, api::Object& next,
                        const api::Object& old, WritePart part) const override {
    ResourceStrategy::PrepareForUpdate(info, next, old, part);
    if (part == WritePart::kStatus || part == WritePart::kFinalize) return;
    std::get<api::Namespace>(next).spec.finalizers =
        std::get<api::Namespace>(old).spec.finalizers;
  }

  bool HasSpecFinalizers(const api::Object& object) const override {
    return !std::get<api::Namespace>(object).spec.finalizers.empty();
  }

  void PrepareForDelete(api::Object& object) const override {
    std::get<api::Namespace>(object).status.phase = "Terminating";
  }
};

}  // namespace

const ResourceStrategy& NamespaceStrategy() {
  static const NamespaceRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
