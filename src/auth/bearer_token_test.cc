#include "auth/bearer_token.h"

#include <gtest/gtest.h>

namespace dralloc::auth {
namespace {

struct HeaderCase {
  const char* header;
  const char* token;  // "" = no bearer token
};

// Upstream bearertoken: trim, split at single spaces, scheme "bearer" in any
// case, the second part as the token.
constexpr HeaderCase kCases[] = {
    {"Bearer abc", "abc"},
    {"bearer abc", "abc"},
    {"BEARER abc", "abc"},
    {"BeArEr abc", "abc"},
    {"  Bearer abc  ", "abc"},
    {"Bearer abc\t", "abc"},
    {"Bearer abc def", "abc"},
    {"Bearer  abc", ""},  // two spaces: an empty second part
    {"Bearer", ""},
    {"Bearer ", ""},
    {"Bearer\tabc", ""},  // a tab does not separate
    {"Basic YWRtaW46c2VjcmV0", ""},
    {"Bearerabc", ""},
    {"", ""},
    {"Bearer a,b=c/+", "a,b=c/+"},
};

TEST(BearerTokenCredentials, HeaderCases) {
  for (const HeaderCase& c : kCases) {
    const Credentials credentials = BearerTokenCredentials(c.header, true);
    EXPECT_EQ(credentials.bearer_token, c.token) << "header: " << c.header;
    EXPECT_TRUE(credentials.has_authorization_header);
    EXPECT_TRUE(credentials.client_certificates_der.empty());
  }
}

TEST(BearerTokenCredentials, AbsentHeader) {
  const Credentials credentials = BearerTokenCredentials("", false);
  EXPECT_FALSE(credentials.has_authorization_header);
  EXPECT_EQ(credentials.bearer_token, "");
}

}  // namespace
}  // namespace dralloc::auth
