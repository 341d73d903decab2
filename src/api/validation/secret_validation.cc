// ValidateSecret and ValidateSecretUpdate: upstream pkg/apis/core/validation
// semantics. `stringData` has been merged into `data` before validation (the
// Secret strategy does it, as upstream's conversion does).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/validation/config_key.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"
#include "common/base64.h"

namespace dralloc::api {
namespace {

constexpr char kImmutableDetail[] =
    "field is immutable when `immutable` is set";
constexpr char kRedacted[] = "<secret contents redacted>";

void ValidateDataKeys(const Secret& secret, const FieldPath& data_path,
                      ErrorList& errors) {
  size_t total_size = 0;
  for (const auto& [key, value] : secret.data) {
    const FieldPath key_path = data_path.Key(key);
    for (std::string& message : ConfigMapKeyErrors(key)) {
      errors.push_back(InvalidString(key_path, key, std::move(message)));
    }
    std::optional<std::string> bytes = Base64Decode(value, {});
    if (!bytes.has_value()) {
      errors.push_back(Invalid(key_path, kRedacted, "must be base64-encoded"));
      total_size += value.size();
    } else {
      total_size += bytes->size();
    }
  }
  if (total_size > kMaxSecretSize) {
    errors.push_back(TooLong(data_path, kMaxSecretSize));
  }
}

// A key the Secret's type requires in `data`.
void RequireKey(const Secret& secret, std::string_view key,
                const FieldPath& data_path, ErrorList& errors) {
  if (!secret.data.contains(std::string(key))) {
    errors.push_back(Required(data_path.Key(key)));
  }
}

// A docker config key, required and holding JSON.
void RequireJsonKey(const Secret& secret, std::string_view key,
                    const FieldPath& data_path, ErrorList& errors) {
  const auto found = secret.data.find(std::string(key));
  if (found == secret.data.end()) {
    errors.push_back(Required(data_path.Key(key)));
    return;
  }
  std::optional<std::string> bytes = Base64Decode(found->second, {});
  if (!bytes.has_value()) return;  // reported with the keys
  if (!nlohmann::json::accept(*bytes)) {
    errors.push_back(Invalid(data_path.Key(key), kRedacted,
                             "must hold a valid JSON document"));
  }
}

void ValidateTypeRules(const Secret& secret, const FieldPath& data_path,
                       ErrorList& errors) {
  const std::string_view type = secret.type;
  if (type == kSecretTypeServiceAccountToken) {
    if (!secret.metadata.annotations.contains(
            std::string(kServiceAccountNameAnnotation))) {
      errors.push_back(Required(FieldPath("metadata")
                                    .Child("annotations")
                                    .Key(kServiceAccountNameAnnotation)));
    }
  } else if (type == kSecretTypeDockercfg) {
    RequireJsonKey(secret, ".dockercfg", data_path, errors);
  } else if (type == kSecretTypeDockerConfigJson) {
    RequireJsonKey(secret, ".dockerconfigjson", data_path, errors);
  } else if (type == kSecretTypeBasicAuth) {
    // Either may be empty, but one of them must be there.
    if (!secret.data.contains("username") &&
        !secret.data.contains("password")) {
      errors.push_back(Required(data_path.Key("username")));
      errors.push_back(Required(data_path.Key("password")));
    }
  } else if (type == kSecretTypeSshAuth) {
    RequireKey(secret, "ssh-privatekey", data_path, errors);
  } else if (type == kSecretTypeTls) {
    RequireKey(secret, "tls.crt", data_path, errors);
    RequireKey(secret, "tls.key", data_path, errors);
  }
  // Every other type (Opaque, helm.sh/release.v1, ...) has no rules.
}

}  // namespace

ErrorList ValidateSecret(const Secret& secret) {
  ErrorList errors = ObjectMetaErrors(secret.metadata, /*namespaced=*/true);
  const FieldPath data_path("data");
  ValidateDataKeys(secret, data_path, errors);
  ValidateTypeRules(secret, data_path, errors);
  return errors;
}

ErrorList ValidateSecretUpdate(const Secret& next, const Secret& old) {
  ErrorList errors;
  if (next.type != old.type) {
    errors.push_back(
        InvalidString(FieldPath("type"), next.type, "field is immutable"));
  }
  if (!old.immutable.value_or(false)) return errors;
  if (!next.immutable.value_or(false)) {
    errors.push_back(Forbidden(FieldPath("immutable"), kImmutableDetail));
  }
  if (next.data != old.data) {
    errors.push_back(Forbidden(FieldPath("data"), kImmutableDetail));
  }
  return errors;
}

}  // namespace dralloc::api
