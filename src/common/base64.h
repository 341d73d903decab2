// Base64 (RFC 4648) in the standard and URL-safe alphabets, padded or raw,
// with the decoding rules of the Go decoders the callers mirror: CEL's
// base64.decode (standard, padding optional, CR/LF ignored) and Kubernetes
// continue tokens (URL-safe, unpadded, canonical).
#ifndef DRALLOC_COMMON_BASE64_H_
#define DRALLOC_COMMON_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace dralloc {

enum class Base64Alphabet { kStandard, kUrl };  // "+/" or "-_"

std::string Base64Encode(std::string_view data, Base64Alphabet alphabet,
                         bool pad);

struct Base64DecodeOptions {
  Base64Alphabet alphabet = Base64Alphabet::kStandard;
  // '=' may complete the last quantum (exactly); input without it is
  // accepted either way.
  bool accept_padding = true;
  bool ignore_newlines = false;  // CR and LF are skipped
  // The unused low bits of the last symbol must be zero (one encoding per
  // value).
  bool canonical = false;
};

// nullopt for malformed input.
std::optional<std::string> Base64Decode(std::string_view text,
                                        const Base64DecodeOptions& options);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_BASE64_H_
