#include "cel/syntax/lexer.h"

#include <cstdio>
#include <utility>

namespace dralloc::cel {
namespace internal {

size_t DecodeUtf8(std::string_view text, size_t pos, char32_t* code_point) {
  if (pos >= text.size()) return 0;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) {
    *code_point = b0;
    return 1;
  }
  size_t length;
  char32_t cp;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1F;
    min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0F;
    min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - pos < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return length;
}

size_t FindInvalidUtf8(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(text, pos, &cp);
    if (n == 0) return pos;
    pos += n;
  }
  return text.size();
}

void AppendUtf8(std::string* out, char32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace internal

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsOctal(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsIdentStart(char c) { return c == '_' || IsLetter(c); }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsEscapedIdentChar(char c) {
  return IsIdentChar(c) || c == '.' || c == '-' || c == '/' || c == ' ';
}

// Recognises the string prefixes r, b, br and rb (any letter case).
bool IsStringPrefix(std::string_view word, bool* raw, bool* bytes) {
  *raw = false;
  *bytes = false;
  if (word.empty() || word.size() > 2) return false;
  for (char c : word) {
    if (c == 'r' || c == 'R') {
      if (*raw) return false;
      *raw = true;
    } else if (c == 'b' || c == 'B') {
      if (*bytes) return false;
      *bytes = true;
    } else {
      return false;
    }
  }
  return true;
}

// A printable rendering of the character at text[pos] for error messages.
std::string DescribeChar(std::string_view text, size_t pos) {
  char32_t cp;
  const size_t n = internal::DecodeUtf8(text, pos, &cp);
  if (n == 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02X",
                  static_cast<unsigned char>(text[pos]));
    return buf;
  }
  if (cp < 0x20 || cp == 0x7F) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02X", static_cast<unsigned>(cp));
    return buf;
  }
  return std::string(text.substr(pos, n));
}

}  // namespace

Token Lexer::Next() {
  if (done_) return last_;
  Token token = Lex();
  if (token.kind == TokenKind::kEof || token.kind == TokenKind::kError) {
    done_ = true;
    last_ = token;
  }
  return token;
}

Token Lexer::Simple(TokenKind kind, size_t length) {
  Token token;
  token.kind = kind;
  token.offset = static_cast<int32_t>(pos_);
  token.text = text_.substr(pos_, length);
  pos_ += length;
  return token;
}

Token Lexer::Error(size_t at, std::string message) {
  Token token;
  token.kind = TokenKind::kError;
  token.offset = static_cast<int32_t>(pos_);
  token.error_offset = static_cast<int32_t>(at);
  token.text = text_.substr(pos_, at >= pos_ ? at - pos_ + 1 : 0);
  token.value = std::move(message);
  return token;
}

void Lexer::SkipWhitespaceAndComments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      const size_t nl = text_.find('\n', pos_);
      pos_ = nl == std::string_view::npos ? text_.size() : nl;
    } else {
      return;
    }
  }
}

Token Lexer::Lex() {
  SkipWhitespaceAndComments();
  if (pos_ >= text_.size()) {
    Token eof;
    eof.offset = static_cast<int32_t>(text_.size());
    return eof;
  }
  const char c = text_[pos_];
  const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  if (IsIdentStart(c)) {
    size_t end = pos_ + 1;
    while (end < text_.size() && IsIdentChar(text_[end])) ++end;
    const std::string_view word = text_.substr(pos_, end - pos_);
    bool raw, bytes;
    if (end < text_.size() && (text_[end] == '"' || text_[end] == '\'') &&
        IsStringPrefix(word, &raw, &bytes)) {
      return LexString(pos_, end, raw, bytes);
    }
    TokenKind kind = TokenKind::kIdent;
    if (word == "true") {
      kind = TokenKind::kTrue;
    } else if (word == "false") {
      kind = TokenKind::kFalse;
    } else if (word == "null") {
      kind = TokenKind::kNull;
    } else if (word == "in") {
      kind = TokenKind::kIn;
    }
    Token token = Simple(kind, word.size());
    if (kind == TokenKind::kIdent) token.value = std::string(word);
    return token;
  }
  if (IsDigit(c) || (c == '.' && IsDigit(next))) return LexNumber();
  switch (c) {
    case '"':
    case '\'':
      return LexString(pos_, pos_, /*raw=*/false, /*bytes=*/false);
    case '`':
      return LexEscapedIdent();
    case '(':
      return Simple(TokenKind::kLParen, 1);
    case ')':
      return Simple(TokenKind::kRParen, 1);
    case '[':
      return Simple(TokenKind::kLBracket, 1);
    case ']':
      return Simple(TokenKind::kRBracket, 1);
    case '{':
      return Simple(TokenKind::kLBrace, 1);
    case '}':
      return Simple(TokenKind::kRBrace, 1);
    case '.':
      return Simple(TokenKind::kDot, 1);
    case ',':
      return Simple(TokenKind::kComma, 1);
    case ':':
      return Simple(TokenKind::kColon, 1);
    case '?':
      return Simple(TokenKind::kQuestion, 1);
    case '+':
      return Simple(TokenKind::kPlus, 1);
    case '-':
      return Simple(TokenKind::kMinus, 1);
    case '*':
      return Simple(TokenKind::kStar, 1);
    case '/':
      return Simple(TokenKind::kSlash, 1);
    case '%':
      return Simple(TokenKind::kPercent, 1);
    case '=':
      if (next == '=') return Simple(TokenKind::kEq, 2);
      break;
    case '!':
      if (next == '=') return Simple(TokenKind::kNe, 2);
      return Simple(TokenKind::kNot, 1);
    case '<':
      if (next == '=') return Simple(TokenKind::kLe, 2);
      return Simple(TokenKind::kLt, 1);
    case '>':
      if (next == '=') return Simple(TokenKind::kGe, 2);
      return Simple(TokenKind::kGt, 1);
    case '&':
      if (next == '&') return Simple(TokenKind::kAnd, 2);
      break;
    case '|':
      if (next == '|') return Simple(TokenKind::kOr, 2);
      break;
    default:
      break;
  }
  return Error(
      pos_, "token recognition error at: '" + DescribeChar(text_, pos_) + "'");
}

Token Lexer::LexNumber() {
  const size_t start = pos_;
  size_t end = pos_;
  auto digits = [&] {
    while (end < text_.size() && IsDigit(text_[end])) ++end;
  };
  auto at = [&](size_t i) { return i < text_.size() ? text_[i] : '\0'; };
  TokenKind kind = TokenKind::kInt;
  if (at(end) == '0' && at(end + 1) == 'x' && IsHex(at(end + 2))) {
    end += 2;
    while (end < text_.size() && IsHex(text_[end])) ++end;
  } else {
    if (at(end) == '.') {
      ++end;
      digits();
      kind = TokenKind::kDouble;
    } else {
      digits();
      if (at(end) == '.' && IsDigit(at(end + 1))) {
        ++end;
        digits();
        kind = TokenKind::kDouble;
      }
    }
    if (at(end) == 'e' || at(end) == 'E') {
      size_t e = end + 1;
      if (at(e) == '+' || at(e) == '-') ++e;
      if (IsDigit(at(e))) {
        end = e;
        digits();
        kind = TokenKind::kDouble;
      }
    }
  }
  Token token;
  token.offset = static_cast<int32_t>(start);
  token.value = std::string(text_.substr(start, end - start));
  if (kind == TokenKind::kInt && (at(end) == 'u' || at(end) == 'U')) {
    kind = TokenKind::kUint;
    ++end;
  }
  token.kind = kind;
  token.text = text_.substr(start, end - start);
  pos_ = end;
  return token;
}

Token Lexer::LexEscapedIdent() {
  size_t end = pos_ + 1;
  while (end < text_.size() && IsEscapedIdentChar(text_[end])) ++end;
  if (end >= text_.size() || text_[end] != '`' || end == pos_ + 1) {
    return Error(pos_,
                 "invalid quoted field name (allowed: letters, digits, "
                 "'_', '.', '-', '/' and ' ')");
  }
  Token token;
  token.kind = TokenKind::kEscapedIdent;
  token.offset = static_cast<int32_t>(pos_);
  token.text = text_.substr(pos_, end + 1 - pos_);
  token.value = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
  pos_ = end + 1;
  return token;
}

namespace {

// The character a one-letter escape (`\n`, `\t`, `\"`, ...) stands for, or 0
// when `e` does not start such an escape.
char SimpleEscape(char e) {
  switch (e) {
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    case '\\':
    case '?':
    case '"':
    case '\'':
    case '`':
      return e;
    default:
      return 0;
  }
}

}  // namespace

Token Lexer::LexString(size_t start, size_t quote_pos, bool raw, bool bytes) {
  const char quote = text_[quote_pos];
  auto three_quotes_at = [&](size_t p) {
    return text_.size() - p >= 3 && text_[p] == quote &&
           text_[p + 1] == quote && text_[p + 2] == quote;
  };
  const bool triple = three_quotes_at(quote_pos);
  size_t pos = quote_pos + (triple ? 3 : 1);
  std::string value;
  auto hex_digits = [&](size_t from, int count, uint32_t* out) {
    if (text_.size() - from < static_cast<size_t>(count)) return false;
    uint32_t v = 0;
    for (int i = 0; i < count; ++i) {
      const char h = text_[from + i];
      if (!IsHex(h)) return false;
      v = v * 16 + HexValue(h);
    }
    *out = v;
    return true;
  };
  while (true) {
    if (pos >= text_.size()) {
      return Error(start, "unterminated string literal");
    }
    const char c = text_[pos];
    if (c == quote) {
      if (!triple) {
        ++pos;
        break;
      }
      if (three_quotes_at(pos)) {
        pos += 3;
        break;
      }
    }
    if (!triple && (c == '\n' || c == '\r')) {
      return Error(pos,
                   "newline in string literal (only triple-quoted strings "
                   "may span lines)");
    }
    if (c != '\\' || raw) {
      value.push_back(c);
      ++pos;
      continue;
    }
    // An escape sequence.
    const size_t esc = pos;
    if (pos + 1 >= text_.size()) {
      return Error(start, "unterminated string literal");
    }
    const char e = text_[pos + 1];
    pos += 2;
    const char simple = SimpleEscape(e);
    if (simple != 0) {
      value.push_back(simple);
      continue;
    }
    uint32_t cp = 0;
    bool octet = false;  // \x and octal: a byte in bytes, a code point else
    if (e == 'x' || e == 'X') {
      if (!hex_digits(pos, 2, &cp)) {
        return Error(esc, "invalid escape sequence: \\" + std::string(1, e) +
                              " needs 2 hex digits");
      }
      pos += 2;
      octet = true;
    } else if (e >= '0' && e <= '3') {
      if (pos + 1 >= text_.size() || !IsOctal(text_[pos]) ||
          !IsOctal(text_[pos + 1])) {
        return Error(esc, "invalid octal escape sequence (needs 3 digits)");
      }
      cp = (e - '0') * 64 + (text_[pos] - '0') * 8 + (text_[pos + 1] - '0');
      pos += 2;
      octet = true;
    } else if (e == 'u' || e == 'U') {
      const int n = e == 'u' ? 4 : 8;
      if (!hex_digits(pos, n, &cp)) {
        return Error(esc, "invalid escape sequence: \\" + std::string(1, e) +
                              " needs " + std::to_string(n) + " hex digits");
      }
      pos += n;
      if (e == 'U' && bytes) {
        return Error(esc, "\\U escapes are not allowed in bytes literals");
      }
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        return Error(esc, "invalid escape sequence: surrogate code point");
      }
      if (cp > 0x10FFFF) {
        return Error(esc, "invalid escape sequence: code point above U+10FFFF");
      }
    } else {
      return Error(esc, "invalid escape sequence '\\" +
                            DescribeChar(text_, esc + 1) + "'");
    }
    if (octet && bytes) {
      value.push_back(static_cast<char>(cp));
    } else {
      internal::AppendUtf8(&value, cp);
    }
  }
  Token token;
  token.kind = bytes ? TokenKind::kBytes : TokenKind::kString;
  token.offset = static_cast<int32_t>(start);
  token.text = text_.substr(start, pos - start);
  token.value = std::move(value);
  pos_ = pos;
  return token;
}

}  // namespace dralloc::cel
