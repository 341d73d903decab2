// The keys and size of Secret and ConfigMap data (upstream's
// validation.IsConfigMapKey and core.MaxSecretSize), shared by both kinds.
#ifndef DRALLOC_API_VALIDATION_CONFIG_KEY_H_
#define DRALLOC_API_VALIDATION_CONFIG_KEY_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::api {

// The most bytes the values of one Secret or ConfigMap may hold together.
inline constexpr size_t kMaxSecretSize = 1024 * 1024;

// Why `key` is not a valid data key (`[-._a-zA-Z0-9]+`, at most 253
// characters, not "." or "..", not starting with ".."); empty when valid.
std::vector<std::string> ConfigMapKeyErrors(std::string_view key);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_CONFIG_KEY_H_
