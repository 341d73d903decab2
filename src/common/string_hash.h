// StringHash: a transparent hash for string-keyed unordered containers, so
// that lookups by std::string_view (with std::equal_to<>) do not allocate.
//
// It is XXH3 (Debian's libxxhash, inlined): object keys such as
// "namespace/pod-name-gpu-x7k2p" are hashed several times per scheduled pod,
// and XXH3 takes a fraction of the instructions of libstdc++'s
// std::hash<std::string>. It is unseeded, so iteration order of the
// containers is the same in every run (code that must not depend on it sorts).
#ifndef DRALLOC_COMMON_STRING_HASH_H_
#define DRALLOC_COMMON_STRING_HASH_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace dralloc {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
  }
};

// String-keyed hash containers that look up by std::string_view.
template <typename V>
using StringKeyedMap =
    std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
using StringSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

}  // namespace dralloc

#endif  // DRALLOC_COMMON_STRING_HASH_H_
