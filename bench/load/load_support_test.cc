#include "load/load_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace dralloc::load {
namespace {

TEST(LoadSupportTest, UrlEncodeKeepsUnreservedOnly) {
  EXPECT_EQ(UrlEncode("abc-_.~XYZ09"), "abc-_.~XYZ09");
  EXPECT_EQ(UrlEncode("a+b/c="), "a%2Bb%2Fc%3D");
  EXPECT_EQ(UrlEncode(""), "");
}

TEST(LoadSupportTest, WithLabelEditsCompactBodiesAndFallsBack) {
  // Replaces an existing value, keeps everything else.
  EXPECT_EQ(
      WithLabel(
          R"({"metadata":{"name":"a","labels":{"k":"1","x":"y"},"managedFields":[{"f:k":{}}]}})",
          "k", "2"),
      R"({"metadata":{"name":"a","labels":{"k":"2","x":"y"},"managedFields":[{"f:k":{}}]}})");
  // Adds to existing and to empty labels.
  EXPECT_EQ(WithLabel(R"({"metadata":{"labels":{"x":"y"}}})", "k", "1"),
            R"({"metadata":{"labels":{"k":"1","x":"y"}}})");
  EXPECT_EQ(WithLabel(R"({"metadata":{"labels":{}}})", "k", "1"),
            R"({"metadata":{"labels":{"k":"1"}}})");
  // No labels, or spaced JSON: re-encoded.
  EXPECT_EQ(WithLabel(R"({"metadata":{"name":"a"}})", "k", "1"),
            R"({"metadata":{"labels":{"k":"1"},"name":"a"}})");
  EXPECT_EQ(WithLabel(R"({"metadata": {"labels": {"k": "1"}}})", "k", "2"),
            R"({"metadata":{"labels":{"k":"2"}}})");
  EXPECT_EQ(WithLabel("not json", "k", "1"), std::nullopt);
  EXPECT_EQ(WithLabel(R"({"metadata":[]})", "k", "1"), std::nullopt);
}

TEST(LoadSupportTest, ResourceVersionOfReadsMetadata) {
  EXPECT_EQ(ResourceVersionOf(R"({"metadata":{"resourceVersion":"15"}})"),
            "15");
  EXPECT_EQ(ResourceVersionOf(R"({"metadata":{}})"), "");
  EXPECT_EQ(ResourceVersionOf(R"({"metadata":{"resourceVersion":15}})"), "");
  EXPECT_EQ(ResourceVersionOf("not json"), "");
}

TEST(LoadSupportTest, ParseResourceVersionAcceptsDecimalOnly) {
  EXPECT_EQ(ParseResourceVersion("0"), 0u);
  EXPECT_EQ(ParseResourceVersion("18446744073709551615"),
            18446744073709551615u);
  EXPECT_EQ(ParseResourceVersion(""), std::nullopt);
  EXPECT_EQ(ParseResourceVersion("12a"), std::nullopt);
  EXPECT_EQ(ParseResourceVersion("-1"), std::nullopt);
  EXPECT_EQ(ParseResourceVersion("18446744073709551616"), std::nullopt);
}

TEST(LoadSupportTest, ErrorKeyIsStatusOrTransport) {
  EXPECT_EQ(ErrorKey(StatusOr<HttpResult>(HttpResult{.status = 409})), "409");
  EXPECT_EQ(ErrorKey(StatusOr<HttpResult>(UnavailableError("refused"))),
            "transport");
  EXPECT_TRUE(IsSuccess(StatusOr<HttpResult>(HttpResult{.status = 201})));
  EXPECT_FALSE(IsSuccess(StatusOr<HttpResult>(HttpResult{.status = 300})));
}

TEST(LoadSupportTest, ReadsOwnVmRss) {
  const std::optional<std::int64_t> kib = ReadVmRssKib(getpid());
  ASSERT_TRUE(kib.has_value());
  EXPECT_GT(*kib, 0);
  EXPECT_EQ(ReadVmRssKib(-5), std::nullopt);
}

TEST(LoadSupportTest, RunIdsAreEightHexDigits) {
  const std::string id = MakeRunId();
  ASSERT_EQ(id.size(), 8u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
}

}  // namespace
}  // namespace dralloc::load
