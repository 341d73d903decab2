// core/v1 Secret: named bytes (credentials, certificates, Helm releases).
//
// `data` holds each value as its JSON wire text, standard base64, exactly
// as sent; validation checks that it decodes. `stringData` is write-only
// plain text: the Secret strategy merges it into `data` on every create and
// update and clears it, as upstream's v1 → internal conversion does, so it
// is never stored or returned.
#ifndef DRALLOC_API_TYPES_SECRET_H_
#define DRALLOC_API_TYPES_SECRET_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "api/reflect.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// Secret types upstream validates specially (pkg/apis/core/types.go).
inline constexpr std::string_view kSecretTypeOpaque = "Opaque";
inline constexpr std::string_view kSecretTypeServiceAccountToken =
    "kubernetes.io/service-account-token";
inline constexpr std::string_view kSecretTypeDockercfg =
    "kubernetes.io/dockercfg";
inline constexpr std::string_view kSecretTypeDockerConfigJson =
    "kubernetes.io/dockerconfigjson";
inline constexpr std::string_view kSecretTypeBasicAuth =
    "kubernetes.io/basic-auth";
inline constexpr std::string_view kSecretTypeSshAuth = "kubernetes.io/ssh-auth";
inline constexpr std::string_view kSecretTypeTls = "kubernetes.io/tls";
inline constexpr std::string_view kSecretTypeBootstrapToken =
    "bootstrap.kubernetes.io/token";
// Annotations of a service-account-token Secret.
inline constexpr std::string_view kServiceAccountNameAnnotation =
    "kubernetes.io/service-account.name";
inline constexpr std::string_view kServiceAccountUidAnnotation =
    "kubernetes.io/service-account.uid";

// core/v1 Secret.
struct Secret {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::optional<bool> immutable;
  // key → base64 text of the value.
  std::map<std::string, std::string> data;
  // key → plain-text value; write-only (see above).
  std::map<std::string, std::string> string_data;
  std::string type;
  friend bool operator==(const Secret&, const Secret&) = default;
};
constexpr auto FieldsOf(const Secret*) {
  using T = Secret;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("immutable", &T::immutable).Proto(5),
                    Field("data", &T::data).Proto(2, ProtoType::kBytes),
                    Field("stringData", &T::string_data).Proto(4),
                    Field("type", &T::type).Proto(3)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_SECRET_H_
