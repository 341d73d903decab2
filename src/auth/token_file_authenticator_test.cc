#include "auth/token_file_authenticator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "auth/bearer_token.h"

namespace dralloc::auth {
namespace {

namespace fs = std::filesystem;
using Outcome = AuthenticationResult::Outcome;

constexpr char kCaseDir[] = "tests/auth/tokenfile";

nlohmann::json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

AuthenticationResult AuthenticateToken(const Authenticator& authenticator,
                                       const std::string& token) {
  Credentials credentials;
  credentials.bearer_token = token;
  credentials.has_authorization_header = true;
  return authenticator.Authenticate(credentials);
}

// Each NAME.csv has a NAME.json: {"error": "<substring>"} when the file
// must not load, else {"users": {token: {name, uid, groups}}, "rejected":
// [tokens], "warnings": count}.
void RunCase(const fs::path& csv) {
  SCOPED_TRACE(csv.string());
  fs::path want_path = csv;
  want_path.replace_extension(".json");
  const nlohmann::json want = ReadJson(want_path);
  auto loaded = TokenFileAuthenticator::FromFile(csv.string());
  if (want.contains("error")) {
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(loaded.status().message().find(want["error"].get<std::string>()),
              std::string::npos)
        << loaded.status().message();
    return;
  }
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const TokenFileAuthenticator& authenticator = **loaded;
  EXPECT_EQ(authenticator.warnings().size(), want.value("warnings", 0u));
  EXPECT_EQ(authenticator.size(), want["users"].size());
  for (const auto& [token, user] : want["users"].items()) {
    const AuthenticationResult result = AuthenticateToken(authenticator, token);
    ASSERT_EQ(result.outcome, Outcome::kAuthenticated) << token;
    EXPECT_EQ(result.user.name, user["name"].get<std::string>());
    EXPECT_EQ(result.user.uid, user["uid"].get<std::string>());
    EXPECT_EQ(result.user.groups,
              user["groups"].get<std::vector<std::string>>());
  }
  for (const auto& token : want.value("rejected", nlohmann::json::array())) {
    const AuthenticationResult result =
        AuthenticateToken(authenticator, token.get<std::string>());
    EXPECT_EQ(result.outcome, Outcome::kRejected) << token;
    EXPECT_EQ(result.error, "invalid bearer token");
  }
}

TEST(TokenFileAuthenticator, DataDrivenCases) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kCaseDir)) {
    if (entry.path().extension() != ".csv") continue;
    RunCase(entry.path());
    ++cases;
  }
  EXPECT_GE(cases, 8);
}

TEST(TokenFileAuthenticator, NoTokenIsNoCredentials) {
  auto loaded = TokenFileAuthenticator::FromCsv("t,u,1\n", "inline");
  ASSERT_TRUE(loaded.ok());
  Credentials credentials;
  EXPECT_EQ((*loaded)->Authenticate(credentials).outcome,
            Outcome::kNoCredentials);
  credentials.has_authorization_header = true;  // "Basic ...": no token
  EXPECT_EQ((*loaded)->Authenticate(credentials).outcome,
            Outcome::kNoCredentials);
}

TEST(TokenFileAuthenticator, MissingFileNamesIt) {
  auto loaded = TokenFileAuthenticator::FromFile("/nonexistent/tokens.csv");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("/nonexistent/tokens.csv"),
            std::string::npos);
}

TEST(TokenFileAuthenticator, CrlfAndMissingFinalNewline) {
  auto loaded =
      TokenFileAuthenticator::FromCsv("a,alice,1\r\nb,bob,2,\"x,y\"", "crlf");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const AuthenticationResult alice = AuthenticateToken(**loaded, "a");
  EXPECT_EQ(alice.user.name, "alice");
  EXPECT_EQ(alice.user.uid, "1");
  const AuthenticationResult bob = AuthenticateToken(**loaded, "b");
  EXPECT_EQ(bob.user.groups, (std::vector<std::string>{"x", "y"}));
}

// The header through BearerTokenCredentials and the token file in a
// UnionAuthenticator, as the API server chains them.
TEST(TokenFileAuthenticator, InTheChainWithTheHeaderParser) {
  auto loaded = TokenFileAuthenticator::FromCsv("good,alice,1,dev\n", "t");
  ASSERT_TRUE(loaded.ok());
  std::vector<std::unique_ptr<Authenticator>> chain;
  chain.push_back(std::move(*loaded));
  const UnionAuthenticator authenticator(std::move(chain),
                                         /*allow_anonymous=*/false);
  struct Case {
    const char* header;
    Outcome outcome;
    const char* error;
  };
  const Case cases[] = {
      {"Bearer good", Outcome::kAuthenticated, ""},
      {"bearer good", Outcome::kAuthenticated, ""},
      {"Bearer good ", Outcome::kAuthenticated, ""},
      {"Bearer  good", Outcome::kRejected, "credentials not recognised"},
      {"Bearer Good", Outcome::kRejected, "invalid bearer token"},
      {"Basic Z29vZA==", Outcome::kRejected, "credentials not recognised"},
  };
  for (const Case& c : cases) {
    const AuthenticationResult result =
        authenticator.Authenticate(BearerTokenCredentials(c.header, true));
    EXPECT_EQ(result.outcome, c.outcome) << c.header;
    EXPECT_EQ(result.error, c.error) << c.header;
    if (c.outcome == Outcome::kAuthenticated) {
      EXPECT_EQ(result.user.name, "alice");
      EXPECT_EQ(result.user.groups,
                (std::vector<std::string>{"dev", "system:authenticated"}));
    }
  }
}

}  // namespace
}  // namespace dralloc::auth
