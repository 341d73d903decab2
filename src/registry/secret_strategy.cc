// Secrets (upstream pkg/registry/core/secret/strategy.go and the v1 →
// internal conversion): `stringData` is merged into `data` on every write,
// its values winning, and never stored; an empty type defaults to Opaque;
// the type is immutable, and so is the data of an immutable Secret.
#include "common/base64.h"
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

// What upstream's conversion and defaulting do to a Secret a client sent.
void CompleteSecret(api::Secret& secret) {
  for (auto& [key, text] : secret.string_data) {
    secret.data[key] =
        Base64Encode(text, Base64Alphabet::kStandard, /*pad=*/true);
  }
  secret.string_data.clear();
  if (secret.type.empty()) secret.type = std::string(api::kSecretTypeOpaque);
}

class SecretRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    CompleteSecret(std::get<api::Secret>(object));
  }
  void PrepareForUpdate(const api::ResourceInfo& info, api::Object& next,
                        const api::Object& old, WritePart part) const override {
    ResourceStrategy::PrepareForUpdate(info, next, old, part);
    CompleteSecret(std::get<api::Secret>(next));
  }
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    return api::ValidateSecretUpdate(std::get<api::Secret>(next),
                                     std::get<api::Secret>(old));
  }
};

class ConfigMapRules final : public ResourceStrategy {
 public:
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    return api::ValidateConfigMapUpdate(std::get<api::ConfigMap>(next),
                                        std::get<api::ConfigMap>(old));
  }
};

}  // namespace

const ResourceStrategy& SecretStrategy() {
  static const SecretRules kRules;
  return kRules;
}

const ResourceStrategy& ConfigMapStrategy() {
  static const ConfigMapRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
