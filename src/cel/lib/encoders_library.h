// cel-go's ext.Encoders: base64.encode(bytes) -> string (standard alphabet,
// padded) and base64.decode(string) -> bytes (padded or unpadded input).
#ifndef DRALLOC_CEL_LIB_ENCODERS_LIBRARY_H_
#define DRALLOC_CEL_LIB_ENCODERS_LIBRARY_H_

#include <optional>
#include <string>
#include <string_view>

#include "cel/common/function_registry.h"

namespace dralloc::cel {

void RegisterEncodersLibrary(FunctionRegistry& registry);

std::string Base64Encode(std::string_view data);
// Accepts the standard alphabet with or without padding; CR and LF are
// ignored like Go's decoder does. nullopt for malformed input.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_ENCODERS_LIBRARY_H_
