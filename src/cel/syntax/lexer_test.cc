#include "cel/syntax/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dralloc::cel {
namespace {

TEST(ParserTest, Lexer) {
  Lexer lexer("a.?b >= 0x1Fu `c d` r'x' // c\n1.5e3 !=");
  std::vector<TokenKind> kinds;
  std::vector<std::string> values;
  for (Token t = lexer.Next(); t.kind != TokenKind::kEof; t = lexer.Next()) {
    kinds.push_back(t.kind);
    values.push_back(t.value);
  }
  EXPECT_EQ(kinds, (std::vector<TokenKind>{
                       TokenKind::kIdent, TokenKind::kDot, TokenKind::kQuestion,
                       TokenKind::kIdent, TokenKind::kGe, TokenKind::kUint,
                       TokenKind::kEscapedIdent, TokenKind::kString,
                       TokenKind::kDouble, TokenKind::kNe}));
  EXPECT_EQ(values[5], "0x1F");
  EXPECT_EQ(values[6], "c d");
  EXPECT_EQ(values[7], "x");
  EXPECT_EQ(values[8], "1.5e3");
  EXPECT_EQ(lexer.Next().kind, TokenKind::kEof);
}

}  // namespace
}  // namespace dralloc::cel
