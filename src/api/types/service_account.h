// core/v1 ServiceAccount: an identity for processes that run in a cluster
// (drivers, controllers), which authenticate with the bound tokens
// serviceaccount::TokenSigner issues for it.
#ifndef DRALLOC_API_TYPES_SERVICE_ACCOUNT_H_
#define DRALLOC_API_TYPES_SERVICE_ACCOUNT_H_

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/core.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// core/v1 LocalObjectReference: a name in the referrer's namespace.
struct LocalObjectReference {
  std::string name;
  friend bool operator==(const LocalObjectReference&,
                         const LocalObjectReference&) = default;
};
constexpr auto FieldsOf(const LocalObjectReference*) {
  return std::tuple{Field("name", &LocalObjectReference::name).Proto(1)};
}

// core/v1 ServiceAccount.
struct ServiceAccount {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::vector<ObjectReference> secrets;
  std::vector<LocalObjectReference> image_pull_secrets;
  std::optional<bool> automount_service_account_token;
  friend bool operator==(const ServiceAccount&,
                         const ServiceAccount&) = default;
};
constexpr auto FieldsOf(const ServiceAccount*) {
  using T = ServiceAccount;
  return std::tuple{
      Field("apiVersion", &T::api_version),
      Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("secrets", &T::secrets).Proto(2).ListMap("name").PatchMerge(),
      Field("imagePullSecrets", &T::image_pull_secrets).Proto(3).ListAtomic(),
      Field("automountServiceAccountToken", &T::automount_service_account_token)
          .Proto(4)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_SERVICE_ACCOUNT_H_
