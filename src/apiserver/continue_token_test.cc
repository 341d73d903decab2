#include "apiserver/continue_token.h"

#include <gtest/gtest.h>

namespace dralloc::apiserver {
namespace {

TEST(Base64UrlTest, RoundTripsEveryLength) {
  const std::string bytes("\x00\xff\xfe?>~a", 7);
  for (size_t n = 0; n <= bytes.size(); ++n) {
    const std::string data = bytes.substr(0, n);
    const std::string encoded = Base64UrlEncode(data);
    EXPECT_EQ(encoded.find('='), std::string::npos);
    EXPECT_EQ(encoded.find('+'), std::string::npos);
    EXPECT_EQ(encoded.find('/'), std::string::npos);
    EXPECT_EQ(Base64UrlDecode(encoded), data) << encoded;
  }
  EXPECT_EQ(Base64UrlEncode("hello?"), "aGVsbG8_");
  EXPECT_EQ(Base64UrlDecode("aGVsbG8"), "hello");
}

TEST(Base64UrlTest, RejectsPaddingAndForeignCharacters) {
  EXPECT_FALSE(Base64UrlDecode("aGVsbG8=").has_value());
  EXPECT_FALSE(Base64UrlDecode("aGVs+G8").has_value());
  EXPECT_FALSE(Base64UrlDecode("a").has_value());
  EXPECT_FALSE(Base64UrlDecode("aGVsbG9").has_value());  // stray low bits
}

TEST(ContinueTokenTest, EncodesUpstreamsFormat) {
  ContinueToken token{42, std::string("/resourceclaims/default/c2\0", 27)};
  auto text = token.Encode("/resourceclaims/");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*Base64UrlDecode(*text),
            R"({"v":"meta.k8s.io/v1","rv":42,"start":"default/c2\u0000"})");
  auto back = ContinueToken::Decode(*text, "/resourceclaims/");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->revision, 42);
  EXPECT_EQ(back->start, token.start);
}

TEST(ContinueTokenTest, DecodesATokenUpstreamWrote) {
  // {"v":"meta.k8s.io/v1","rv":-1,"start":"b\u0000"}
  const std::string text =
      Base64UrlEncode(R"({"v":"meta.k8s.io/v1","rv":-1,"start":"b\u0000"})");
  auto token = ContinueToken::Decode(text, "/deviceclasses/");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->revision, ContinueToken::kLatest);
  EXPECT_EQ(token->start, std::string("/deviceclasses/b\0", 17));
}

TEST(ContinueTokenTest, RefusesMalformedTokens) {
  const auto decode = [](std::string_view json) {
    return ContinueToken::Decode(Base64UrlEncode(json), "/pods/ns/");
  };
  EXPECT_FALSE(ContinueToken::Decode("%%%", "/pods/").ok());
  EXPECT_FALSE(ContinueToken::Decode("/pods/ns/a", "/pods/").ok());
  EXPECT_FALSE(decode("not json").ok());
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v2","rv":1,"start":"a"})").ok());
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})").ok());
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v1","rv":"1","start":"a"})").ok());
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v1","rv":1,"start":""})").ok());
  auto escape = decode(R"({"v":"meta.k8s.io/v1","rv":1,"start":"../other/x"})");
  ASSERT_FALSE(escape.ok());
  EXPECT_EQ(escape.status().message(), "continue key is not valid: ../other/x");
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v1","rv":1,"start":"a/./b"})").ok());
  EXPECT_FALSE(decode(R"({"v":"meta.k8s.io/v1","rv":1,"start":"a//b"})").ok());
  auto zero = decode(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})");
  EXPECT_EQ(zero.status().message(),
            "continue key is not valid: incorrect encoded start "
            "resourceVersion (version meta.k8s.io/v1)");
  // A leading slash is accepted, as upstream does.
  auto slash = decode(R"({"v":"meta.k8s.io/v1","rv":7,"start":"/a"})");
  ASSERT_TRUE(slash.ok());
  EXPECT_EQ(slash->start, "/pods/ns/a");
}

TEST(ContinueTokenTest, EncodeNeedsTheKeyUnderThePrefix) {
  EXPECT_FALSE((ContinueToken{3, "/other/a"}.Encode("/pods/")).ok());
}

}  // namespace
}  // namespace dralloc::apiserver
