// The parts of cel-go's ext.Strings shared between strings_library.cc and
// strings_format.cc: string.format and the UTF-8 stepping both use.
#ifndef DRALLOC_CEL_LIB_STRINGS_FORMAT_H_
#define DRALLOC_CEL_LIB_STRINGS_FORMAT_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel::strings_internal {

// Strings are valid UTF-8 (the parser and the data bindings guarantee it), so
// a code point starts at every byte that is not a continuation byte.
inline bool IsRuneStart(unsigned char c) { return (c & 0xC0) != 0x80; }

// Length in bytes of the code point starting at s[i] (1 for invalid bytes).
inline size_t RuneLength(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && !IsRuneStart(static_cast<unsigned char>(s[j]))) ++j;
  return j - i;
}

// `"pattern".format([args])`: cel-go's verbs %s %d %f %e %b %o %x %X with
// their error messages.
Value Format(const CallContext& ctx, std::span<const Value> args);

}  // namespace dralloc::cel::strings_internal

#endif  // DRALLOC_CEL_LIB_STRINGS_FORMAT_H_
