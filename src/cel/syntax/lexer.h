// The CEL lexer: splits source text into tokens on demand.
//
// Token forms follow cel-spec's lexical grammar with cel-go's extensions
// (backquoted field names, `rb` in either order). String and bytes literals
// are decoded here, so the parser sees their values; numbers keep their
// spelling because a preceding unary minus is folded in by the parser.
#ifndef DRALLOC_CEL_SYNTAX_LEXER_H_
#define DRALLOC_CEL_SYNTAX_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dralloc::cel {

enum class TokenKind : uint8_t {
  kEof,
  kError,         // a lexical error; value holds the detail
  kIdent,         // value: the name
  kEscapedIdent,  // `a-b`; value: the text between the backquotes
  kInt,           // value: decimal digits or "0x" + hex digits
  kUint,          // value: as kInt, without the u/U suffix
  kDouble,        // value: the spelling
  kString,        // value: the decoded text (UTF-8)
  kBytes,         // value: the decoded octets
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNot,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  int32_t offset = 0;        // byte offset of the token's first character
  std::string_view text;     // the token as written (empty for kEof)
  std::string value;         // see TokenKind
  int32_t error_offset = 0;  // kError: byte offset of the problem
};

// Produces the tokens of `text` one at a time. `text` must outlive the
// lexer and be shorter than 2 GiB. After kEof or kError, Next() keeps
// returning that token. Non-ASCII characters are only accepted inside string
// literals and comments (invalid UTF-8 there is copied as is; Parse() rejects
// it before lexing).
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token Next();

 private:
  Token Lex();
  void SkipWhitespaceAndComments();
  Token LexNumber();
  Token LexString(size_t start, size_t quote, bool raw, bool bytes);
  Token LexEscapedIdent();
  Token Simple(TokenKind kind, size_t length);
  Token Error(size_t at, std::string message);

  std::string_view text_;
  size_t pos_ = 0;
  bool done_ = false;
  Token last_;  // the kEof or kError token once done_
};

namespace internal {

// Decodes the UTF-8 sequence starting at text[pos]: returns its length and
// stores the code point, or returns 0 for an invalid sequence (overlong
// forms, surrogates, > U+10FFFF, truncation).
size_t DecodeUtf8(std::string_view text, size_t pos, char32_t* code_point);
// Offset of the first byte that does not start a valid UTF-8 sequence, or
// text.size() when all of it is valid.
size_t FindInvalidUtf8(std::string_view text);
void AppendUtf8(std::string* out, char32_t code_point);

}  // namespace internal
}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_SYNTAX_LEXER_H_
