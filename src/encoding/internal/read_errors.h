// Error texts shared by the JSON and YAML stream readers.
#ifndef DRALLOC_ENCODING_INTERNAL_READ_ERRORS_H_
#define DRALLOC_ENCODING_INTERNAL_READ_ERRORS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::encoding::internal {

inline std::string DepthMessage(int max_depth) {
  return "nesting deeper than " + std::to_string(max_depth) + " levels";
}

// Document `document_number` (1-based) starting at `line` is over `limit`.
inline Status DocumentTooLarge(std::string_view source, int document_number,
                               int line, size_t limit) {
  return ResourceExhaustedError(
      std::string(source) + ": document " + std::to_string(document_number) +
      " (line " + std::to_string(line) + ") is more than the limit of " +
      std::to_string(limit) + " bytes");
}

}  // namespace dralloc::encoding::internal

#endif  // DRALLOC_ENCODING_INTERNAL_READ_ERRORS_H_
