#include "common/base64.h"

#include <gtest/gtest.h>

namespace dralloc {
namespace {

TEST(Base64Test, EncodesBothAlphabetsPaddedOrRaw) {
  // RFC 4648 test vectors.
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain, Base64Alphabet::kStandard, true), encoded);
    std::string raw = encoded.substr(0, encoded.find('='));
    EXPECT_EQ(Base64Encode(plain, Base64Alphabet::kUrl, false), raw);
    EXPECT_EQ(Base64Decode(encoded, {}), plain) << encoded;
    EXPECT_EQ(Base64Decode(raw, {}), plain) << raw;
  }
  EXPECT_EQ(Base64Encode("\xfb\xff", Base64Alphabet::kStandard, true), "+/8=");
  EXPECT_EQ(Base64Encode("\xfb\xff", Base64Alphabet::kUrl, false), "-_8");
}

struct DecodeCase {
  std::string text;
  Base64DecodeOptions options;
  std::optional<std::string> want;
};

TEST(Base64Test, DecodingRules) {
  const Base64DecodeOptions url{.alphabet = Base64Alphabet::kUrl,
                                .accept_padding = false,
                                .canonical = true};
  const Base64DecodeOptions lenient{.ignore_newlines = true};
  const DecodeCase cases[] = {
      {"Zm9v\r\nYmFy", lenient, "foobar"},
      {"Zm9v\nYmFy", {}, std::nullopt},  // newlines only when asked
      {"Zg=", {}, std::nullopt},         // padding must fill the quantum
      {"Zg==Zg==", {}, std::nullopt},    // padding only at the end
      {"Z", {}, std::nullopt},           // one symbol is no byte
      {"Zm9v!", {}, std::nullopt},       // not in the alphabet
      {"-_8", url, "\xfb\xff"},
      {"+/8", url, std::nullopt},   // standard symbols
      {"Zg==", url, std::nullopt},  // padding refused
      {"Zh", url, std::nullopt},    // low bits set: not canonical
      {"Zh", {}, "f"},              // accepted when not asked
  };
  for (const DecodeCase& c : cases) {
    EXPECT_EQ(Base64Decode(c.text, c.options), c.want) << c.text;
  }
}

}  // namespace
}  // namespace dralloc
