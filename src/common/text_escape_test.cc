#include "common/text_escape.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

namespace dralloc {
namespace {

using namespace std::string_view_literals;

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(AppendJsonStringTest, EscapesQuotesBackslashesAndNamedControls) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", R"("")"},
      {"plain ascii", R"("plain ascii")"},
      {"a\"b\\c", R"("a\"b\\c")"},
      {"\b\f\n\r\t", R"("\b\f\n\r\t")"},
      {"/", R"("/")"},  // the solidus needs no escape
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(Json(text), want) << text;
}

TEST(AppendJsonStringTest, OtherControlsAreUnicodeEscapes) {
  EXPECT_EQ(Json("\x00\x01\x07\x0b\x1f"sv),
            R"("\u0000\u0001\u0007\u000b\u001f")");
  EXPECT_EQ(Json("\x7f"), "\"\x7f\"");  // DEL is not a JSON control
}

TEST(AppendJsonStringTest, CopiesNonAsciiAndInvalidUtf8Verbatim) {
  EXPECT_EQ(Json("é€😀"), "\"é€😀\"");
  EXPECT_EQ(Json("\xff\xc0\x80"), "\"\xff\xc0\x80\"");
}

TEST(AppendJsonStringTest, AppendsAfterExistingTextAndKeepsRunsAroundEscapes) {
  std::string out = "key:";
  AppendJsonString(out, "ab\ncd\"ef");
  EXPECT_EQ(out, R"(key:"ab\ncd\"ef")");
  AppendJsonString(out, "\n");
  EXPECT_EQ(out, R"(key:"ab\ncd\"ef""\n")");
}

TEST(GoQuoteTest, AsciiEscapesAsGo) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", R"("")"},
      {"abc", R"("abc")"},
      {"a\"b\\c", R"("a\"b\\c")"},
      {"\a\b\f\n\r\t\v", R"("\a\b\f\n\r\t\v")"},
      {"\x00\x01\x1b\x1f\x7f"sv, R"("\x00\x01\x1b\x1f\x7f")"},
      {"'", R"("'")"},  // single quotes stay
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(GoQuote(text), want);
}

TEST(GoQuoteTest, PrintableRunesVerbatimOthersEscaped) {
  EXPECT_EQ(GoQuote("é"), "\"é\"");
  EXPECT_EQ(GoQuote("日本"), "\"日本\"");
  EXPECT_EQ(GoQuote("😀"), "\"😀\"");
  EXPECT_EQ(GoQuote("\u0085"), R"("\u0085")");          // C1 control
  EXPECT_EQ(GoQuote("\u00a0"), R"("\u00a0")");          // no-break space
  EXPECT_EQ(GoQuote("\u00ad"), R"("\u00ad")");          // soft hyphen
  EXPECT_EQ(GoQuote("\u200b"), R"("\u200b")");          // zero-width space
  EXPECT_EQ(GoQuote("\u2028"), R"("\u2028")");          // line separator
  EXPECT_EQ(GoQuote("\ufeff"), R"("\ufeff")");          // byte order mark
  EXPECT_EQ(GoQuote("\ue000"), R"("\ue000")");          // private use
  EXPECT_EQ(GoQuote("\U000e0001"), R"("\U000e0001")");  // tag
  EXPECT_EQ(GoQuote("\U000f0000"), R"("\U000f0000")");  // private use plane
  EXPECT_EQ(GoQuote("\xef\xbf\xbf"), R"("\uffff")");    // noncharacter
}

TEST(GoQuoteTest, InvalidUtf8BytesAreHexEscapedOneAtATime) {
  EXPECT_EQ(GoQuote("\xff"), R"("\xff")");
  EXPECT_EQ(GoQuote("\xc0\x80"), R"("\xc0\x80")");          // overlong NUL
  EXPECT_EQ(GoQuote("\xed\xa0\x80"), R"("\xed\xa0\x80")");  // surrogate
  EXPECT_EQ(GoQuote("\xf4\x90\x80\x80"), R"("\xf4\x90\x80\x80")");  // >10FFFF
  EXPECT_EQ(GoQuote("\xe2\x82"), R"("\xe2\x82")");                  // truncated
  EXPECT_EQ(GoQuote("a\x80"
                    "b"),
            R"("a\x80b")");  // stray continuation
  EXPECT_EQ(GoQuote("\xe2\x82\xac\xff"), "\"€\\xff\"");
}

}  // namespace
}  // namespace dralloc
