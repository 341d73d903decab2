#include "common/semver.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace dralloc {
namespace {

// Parses text that the test knows to be strictly valid.
SemVer V(std::string_view text) {
  StatusOr<SemVer> v = SemVer::ParseStrict(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : SemVer();
}

struct ValidCase {
  std::string input;
  uint64_t major, minor, patch;
  std::vector<std::string> pre_release;
  std::string build;
};

TEST(SemVerTest, ParseStrictValid) {
  const std::vector<ValidCase> cases = {
      {"0.0.0", 0, 0, 0, {}, ""},
      {"1.2.3", 1, 2, 3, {}, ""},
      {"10.20.30", 10, 20, 30, {}, ""},
      {"1.0.0-alpha", 1, 0, 0, {"alpha"}, ""},
      {"1.0.0-alpha.1", 1, 0, 0, {"alpha", "1"}, ""},
      {"1.0.0-0.3.7", 1, 0, 0, {"0", "3", "7"}, ""},
      {"1.0.0-x.7.z.92", 1, 0, 0, {"x", "7", "z", "92"}, ""},
      {"1.0.0-x-y-z.--", 1, 0, 0, {"x-y-z", "--"}, ""},
      {"1.0.0-alpha0.valid", 1, 0, 0, {"alpha0", "valid"}, ""},
      {"1.0.0-alpha.0valid", 1, 0, 0, {"alpha", "0valid"}, ""},
      {"1.0.0-0A.is.legal", 1, 0, 0, {"0A", "is", "legal"}, ""},
      {"1.0.0-99999999999999999999999",
       1,
       0,
       0,
       {"99999999999999999999999"},
       ""},
      {"1.0.0+20130313144700", 1, 0, 0, {}, "20130313144700"},
      {"1.0.0+001", 1, 0, 0, {}, "001"},  // Build digits may lead with 0.
      {"1.0.0-beta+exp.sha.5114f85", 1, 0, 0, {"beta"}, "exp.sha.5114f85"},
      {"1.0.0+21AF26D3----117B344092BD",
       1,
       0,
       0,
       {},
       "21AF26D3----117B344092BD"},
      {"1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
       1,
       2,
       3,
       {"---RC-SNAPSHOT", "12", "9", "1--", "12"},
       "788"},
      {"10.2.3-DEV-SNAPSHOT", 10, 2, 3, {"DEV-SNAPSHOT"}, ""},
      {"18446744073709551615.18446744073709551615.0",
       18446744073709551615u,
       18446744073709551615u,
       0,
       {},
       ""},
  };
  for (const ValidCase& c : cases) {
    SCOPED_TRACE(c.input);
    StatusOr<SemVer> v = SemVer::ParseStrict(c.input);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->major, c.major);
    EXPECT_EQ(v->minor, c.minor);
    EXPECT_EQ(v->patch, c.patch);
    EXPECT_EQ(v->pre_release, c.pre_release);
    EXPECT_EQ(v->build, c.build);
    EXPECT_EQ(v->ToString(), c.input);
  }
}

struct InvalidCase {
  std::string input;
  std::string message;  // Expected after the "invalid semantic version" part.
};

TEST(SemVerTest, ParseStrictInvalid) {
  const std::string kThree =
      " must have exactly three dot-separated numbers (major.minor.patch)";
  const std::vector<InvalidCase> cases = {
      {"", "version string is empty"},
      {"1", "version core \"1\"" + kThree},
      {"1.2", "version core \"1.2\"" + kThree},
      {"1.2.3.4", "version core \"1.2.3.4\"" + kThree},
      {"1.2-SNAPSHOT", "version core \"1.2\"" + kThree},
      {"-1.2.3", "version core \"\"" + kThree},
      {"v1.2.3", "a leading \"v\" is not allowed"},
      {"V1.2.3", "a leading \"v\" is not allowed"},
      {" 1.2.3", "invalid character(s) found in major number \" 1\""},
      {"1.2.3 ", "invalid character(s) found in patch number \"3 \""},
      {"0a.1.2", "invalid character(s) found in major number \"0a\""},
      {"1.2.x", "invalid character(s) found in patch number \"x\""},
      {"1..3", "minor number is empty"},
      {"01.2.3", "major number \"01\" has a leading zero"},
      {"1.02.3", "minor number \"02\" has a leading zero"},
      {"1.2.03", "patch number \"03\" has a leading zero"},
      {"18446744073709551616.0.0",
       "major number \"18446744073709551616\" does not fit in 64 bits"},
      {"1.99999999999999999999999.0",
       "minor number \"99999999999999999999999\" does not fit in 64 bits"},
      {"1.2.3-", "pre-release is empty"},
      {"1.2.3+", "build metadata is empty"},
      {"1.2.3-+build", "pre-release is empty"},
      {"1.2.3-01", "numeric pre-release identifier \"01\" has a leading zero"},
      {"1.2.3-rc.00",
       "numeric pre-release identifier \"00\" has a leading zero"},
      {"1.2.3-alpha..1", "empty identifier in pre-release \"alpha..1\""},
      {"1.2.3-alpha.", "empty identifier in pre-release \"alpha.\""},
      {"1.2.3+a..b", "empty identifier in build metadata \"a..b\""},
      {"1.2.3-al$pha",
       "invalid character(s) found in pre-release identifier \"al$pha\""},
      {"1.2.3-alpha_beta",
       "invalid character(s) found in pre-release identifier \"alpha_beta\""},
      {"1.2.3+build+1",
       "invalid character(s) found in build metadata identifier \"build+1\""},
  };
  for (const InvalidCase& c : cases) {
    SCOPED_TRACE(c.input);
    StatusOr<SemVer> v = SemVer::ParseStrict(c.input);
    ASSERT_FALSE(v.ok()) << v->ToString();
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(v.status().message(),
              "invalid semantic version \"" + c.input + "\": " + c.message);
  }
}

TEST(SemVerTest, LongInputIsQuotedShortened) {
  const std::string input = std::string(1000, '1') + ".0.0";
  StatusOr<SemVer> v = SemVer::ParseStrict(input);
  ASSERT_FALSE(v.ok());
  const std::string quoted = "\"" + std::string(64, '1') + "...\"";
  EXPECT_EQ(v.status().message(), "invalid semantic version " + quoted +
                                      ": major number " + quoted +
                                      " does not fit in 64 bits");
}

TEST(SemVerTest, ParseTolerant) {
  struct Case {
    std::string_view input;
    std::string_view canonical;
  };
  const Case cases[] = {
      {"1.2.3", "1.2.3"},
      {"v1.2", "1.2.0"},
      {"V2", "2.0.0"},
      {"1", "1.0.0"},
      {" 01.02.03 ", "1.2.3"},
      {"\t1.2.3\n", "1.2.3"},
      {"000.0.0010", "0.0.10"},
      {"v1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5"},
      {"1-rc.1", "1.0.0-rc.1"},
      {"1.2+build.007", "1.2.0+build.007"},
      {"v18446744073709551615", "18446744073709551615.0.0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    StatusOr<SemVer> v = SemVer::ParseTolerant(c.input);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->ToString(), c.canonical);
  }
}

TEST(SemVerTest, ParseTolerantInvalid) {
  struct Case {
    std::string input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "version string is empty"},
      {" \t ", "version string is empty"},
      {"v", "major number is empty"},
      {"vv1.2.3", "a leading \"v\" is not allowed"},
      {"1..2", "minor number is empty"},
      {"1.2.3 beta", "invalid character(s) found in patch number \"3 beta\""},
      {"1.2.3-01", "numeric pre-release identifier \"01\" has a leading zero"},
      {"a.b.c", "invalid character(s) found in major number \"a\""},
      {"99999999999999999999",
       "major number \"99999999999999999999\" does not fit in 64 bits"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    StatusOr<SemVer> v = SemVer::ParseTolerant(c.input);
    ASSERT_FALSE(v.ok()) << v->ToString();
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    // Errors quote the caller's text, not the normalized one.
    EXPECT_EQ(v.status().message(),
              "invalid semantic version \"" + c.input + "\": " + c.message);
  }
  StatusOr<SemVer> four = SemVer::ParseTolerant("1.2.3.4");
  EXPECT_FALSE(four.ok());
}

// Each version ranks strictly below every later one.
TEST(SemVerTest, PrecedenceChain) {
  const std::vector<std::string_view> chain = {
      "0.0.1",
      "0.1.0",
      "1.0.0-0",
      "1.0.0-2",
      "1.0.0-10",
      "1.0.0-99999999999999999999",
      "1.0.0-100000000000000000000",
      "1.0.0-1a",  // Numeric identifiers rank below alphanumeric ones.
      "1.0.0-B",   // ASCII: upper case before lower case.
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.1",
      "1.1.0",
      "2.0.0",
      "2.1.0",
      "2.1.1",
      "10.0.0",
      "18446744073709551615.0.0",
  };
  for (size_t i = 0; i < chain.size(); ++i) {
    for (size_t j = 0; j < chain.size(); ++j) {
      SCOPED_TRACE(std::string(chain[i]) + " vs " + std::string(chain[j]));
      const SemVer a = V(chain[i]);
      const SemVer b = V(chain[j]);
      const int expected = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(a.Compare(b), expected);
      EXPECT_EQ(a == b, expected == 0);
      EXPECT_EQ(a != b, expected != 0);
      EXPECT_EQ(a < b, expected < 0);
      EXPECT_EQ(a <= b, expected <= 0);
      EXPECT_EQ(a > b, expected > 0);
      EXPECT_EQ(a >= b, expected >= 0);
    }
  }
}

TEST(SemVerTest, BuildMetadataIsIgnoredByPrecedence) {
  EXPECT_EQ(V("1.0.0+a").Compare(V("1.0.0+b")), 0);
  EXPECT_EQ(V("1.0.0-rc.1+x"), V("1.0.0-rc.1"));
  EXPECT_LT(V("1.0.0-rc.1+zzz"), V("1.0.0+aaa"));
  EXPECT_NE(V("1.0.0+a").ToString(), V("1.0.0+b").ToString());
}

TEST(SemVerTest, CompareHandWrittenValues) {
  SemVer a{1, 0, 0, {"01"}, ""};  // Not strictly valid; compares as 1.
  SemVer b{1, 0, 0, {"1"}, ""};
  EXPECT_EQ(a.Compare(b), 0);
  SemVer release{1, 0, 0, {}, ""};
  EXPECT_LT(b, release);
}

TEST(SemVerTest, ToStringAndStreaming) {
  SemVer v;
  EXPECT_EQ(v.ToString(), "0.0.0");
  v.major = 4;
  v.pre_release = {"rc", "2"};
  v.build = "sha.abc";
  EXPECT_EQ(v.ToString(), "4.0.0-rc.2+sha.abc");
  std::ostringstream os;
  os << v;
  EXPECT_EQ(os.str(), "4.0.0-rc.2+sha.abc");
}

// IsStrict must agree with ParseStrict everywhere: the listed cases plus
// random strings over the grammar's alphabet.
TEST(SemVerTest, IsStrictAgreesWithParseStrict) {
  const std::vector<std::string> fixed = {"0.0.0",
                                          "1.2.3",
                                          "1.2.3-rc.1",
                                          "1.2.3+b.5",
                                          "1.2.3-0.a-b+x-y.01",
                                          "01.2.3",
                                          "1.2",
                                          "1.2.3.4",
                                          "1.2.3-",
                                          "1.2.3+",
                                          "1.2.3-01",
                                          "1.2.3-a..b",
                                          "18446744073709551615.0.0",
                                          "18446744073709551616.0.0",
                                          "v1.2.3",
                                          " 1.2.3",
                                          "1.2.3-+",
                                          "1.2.3+a+b",
                                          "1..3",
                                          ".1.2",
                                          "1.2.",
                                          "",
                                          "1.2.3-a+b-c"};
  for (const std::string& text : fixed) {
    EXPECT_EQ(SemVer::IsStrict(text), SemVer::ParseStrict(text).ok()) << text;
  }
  std::mt19937 random(7);
  const std::string alphabet = "0123456789.-+aZ";
  for (int i = 0; i < 50000; ++i) {
    std::string text(random() % 12, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    ASSERT_EQ(SemVer::IsStrict(text), SemVer::ParseStrict(text).ok()) << text;
  }
}

}  // namespace
}  // namespace dralloc
