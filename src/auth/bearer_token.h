// BearerTokenCredentials: the credentials of an Authorization header, read
// as upstream's bearertoken request authenticator reads it.
#ifndef DRALLOC_AUTH_BEARER_TOKEN_H_
#define DRALLOC_AUTH_BEARER_TOKEN_H_

#include <string_view>

#include "auth/authenticator.h"

namespace dralloc::auth {

// Fills `bearer_token` and `has_authorization_header` from the value of an
// Authorization header (`present` = the request carried one). Upstream's
// rules: the value is trimmed of surrounding whitespace, split at single
// spaces; the first part must be "bearer" in any case and the second part
// is the token, taken byte for byte (further parts are ignored). So
// "Bearer  tok" (two spaces) carries an empty token, which is no token at
// all, and "Basic ..." carries none either. `has_authorization_header` is
// set whenever the header was present, so that a request whose header no
// authenticator understands is not taken for an anonymous one.
Credentials BearerTokenCredentials(std::string_view header_value, bool present);

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_BEARER_TOKEN_H_
