// core/v1 ConfigMap: named configuration text and bytes.
//
// `binaryData` holds each value as its JSON wire text, standard base64, as
// Secret.data does.
#ifndef DRALLOC_API_TYPES_CONFIG_MAP_H_
#define DRALLOC_API_TYPES_CONFIG_MAP_H_

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "api/reflect.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// core/v1 ConfigMap.
struct ConfigMap {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::optional<bool> immutable;
  std::map<std::string, std::string> data;
  // key → base64 text of the value.
  std::map<std::string, std::string> binary_data;
  friend bool operator==(const ConfigMap&, const ConfigMap&) = default;
};
constexpr auto FieldsOf(const ConfigMap*) {
  using T = ConfigMap;
  return std::tuple{
      Field("apiVersion", &T::api_version),
      Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("immutable", &T::immutable).Proto(4),
      Field("data", &T::data).Proto(2),
      Field("binaryData", &T::binary_data).Proto(3, ProtoType::kBytes)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_CONFIG_MAP_H_
