// StringHash: a transparent hash for string-keyed unordered containers, so
// that lookups by std::string_view (with std::equal_to<>) do not allocate.
#ifndef DRALLOC_COMMON_STRING_HASH_H_
#define DRALLOC_COMMON_STRING_HASH_H_

#include <cstddef>
#include <functional>
#include <string_view>

namespace dralloc {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return std::hash<std::string_view>{}(s);
  }
};

}  // namespace dralloc

#endif  // DRALLOC_COMMON_STRING_HASH_H_
