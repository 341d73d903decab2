// ContinueToken: the opaque `continue` value of a paginated list.
//
// Upstream's format, so tokens look alike across servers: unpadded
// URL-safe base64 of {"v":"meta.k8s.io/v1","rv":<revision>,"start":<key>}
// where <key> is the storage key to continue from (inclusive) without the
// collection prefix. Every page of a list is read at the token's revision,
// so the pages form one snapshot. A revision of -1 means "the latest": the
// token a 410 Gone hands out when the snapshot is no longer available.
#ifndef DRALLOC_APISERVER_CONTINUE_TOKEN_H_
#define DRALLOC_APISERVER_CONTINUE_TOKEN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::apiserver {

struct ContinueToken {
  static constexpr int64_t kLatest = -1;

  int64_t revision = 0;  // the list's snapshot revision, or kLatest
  std::string start;     // full storage key to continue from (inclusive)

  // The token text; `start` must begin with `prefix` (kInvalidArgument
  // otherwise).
  StatusOr<std::string> Encode(std::string_view prefix) const;
  // Parses `text` for a list of `prefix`. kInvalidArgument with upstream's
  // wording ("continue key is not valid: ...") for anything malformed, a
  // revision of 0, an empty start or a start that would leave the prefix.
  static StatusOr<ContinueToken> Decode(std::string_view text,
                                        std::string_view prefix);
};

// Unpadded base64 with the URL-safe alphabet (Go's RawURLEncoding).
std::string Base64UrlEncode(std::string_view data);
// nullopt for characters outside the alphabet, padding or a bad length.
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_CONTINUE_TOKEN_H_
