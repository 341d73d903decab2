// ValidateConfigMap and ValidateConfigMapUpdate: upstream
// pkg/apis/core/validation semantics.
#include <string>

#include "api/validation/config_key.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"
#include "common/base64.h"

namespace dralloc::api {
namespace {

constexpr char kImmutableDetail[] =
    "field is immutable when `immutable` is set";

// The decoded size of a binaryData value; an invalid value counts its text.
size_t DecodedSize(const std::string& base64) {
  std::optional<std::string> bytes = Base64Decode(base64, {});
  return bytes.has_value() ? bytes->size() : base64.size();
}

void ValidateKey(const std::string& key, const FieldPath& path,
                 ErrorList& errors) {
  for (std::string& message : ConfigMapKeyErrors(key)) {
    errors.push_back(InvalidString(path, key, std::move(message)));
  }
}

}  // namespace

ErrorList ValidateConfigMap(const ConfigMap& config_map) {
  ErrorList errors = ObjectMetaErrors(config_map.metadata, /*namespaced=*/true);
  const FieldPath data_path("data");
  const FieldPath binary_path("binaryData");
  size_t total_size = 0;
  for (const auto& [key, value] : config_map.data) {
    ValidateKey(key, data_path.Key(key), errors);
    if (config_map.binary_data.contains(key)) {
      errors.push_back(InvalidString(data_path.Key(key), key,
                                     "duplicate of key present in binaryData"));
    }
    total_size += value.size();
  }
  for (const auto& [key, value] : config_map.binary_data) {
    ValidateKey(key, binary_path.Key(key), errors);
    if (!Base64Decode(value, {}).has_value()) {
      errors.push_back(
          Invalid(binary_path.Key(key), "", "must be base64-encoded"));
    }
    total_size += DecodedSize(value);
  }
  if (total_size > kMaxSecretSize) {
    // Upstream reports the whole object (an empty field path).
    errors.push_back(TooLong(FieldPath(), kMaxSecretSize));
  }
  return errors;
}

ErrorList ValidateConfigMapUpdate(const ConfigMap& next, const ConfigMap& old) {
  ErrorList errors;
  if (!old.immutable.value_or(false)) return errors;
  if (!next.immutable.value_or(false)) {
    errors.push_back(Forbidden(FieldPath("immutable"), kImmutableDetail));
  }
  if (next.data != old.data) {
    errors.push_back(Forbidden(FieldPath("data"), kImmutableDetail));
  }
  if (next.binary_data != old.binary_data) {
    errors.push_back(Forbidden(FieldPath("binaryData"), kImmutableDetail));
  }
  return errors;
}

}  // namespace dralloc::api
