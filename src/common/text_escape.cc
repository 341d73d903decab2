#include "common/text_escape.h"

#include <cstdint>

namespace dralloc {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

void AppendHexDigits(std::string& out, uint32_t value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
    out += kHexDigits[(value >> shift) & 0xF];
  }
}

// Length of the UTF-8 sequence at text[i] under Go's rules (no overlong
// forms, no surrogates, nothing past U+10FFFF), storing its code point in
// `rune`; 0 when the bytes there are not a valid sequence.
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t& rune) {
  const auto lead = static_cast<unsigned char>(text[i]);
  size_t length = 0;
  uint32_t code_point = 0;
  uint32_t smallest = 0;
  if (lead < 0x80) {
    rune = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code_point = lead & 0x1F;
    smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code_point = lead & 0x0F;
    smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code_point = lead & 0x07;
    smallest = 0x10000;
  } else {
    return 0;
  }
  if (length > text.size() - i) return 0;
  for (size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (next & 0x3F);
  }
  if (code_point < smallest || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return 0;
  }
  rune = code_point;
  return length;
}

// Go's unicode.IsPrint for runes at or above U+0080, approximated by the
// ranges Go escapes: C1 controls, no-break and other spaces, format
// characters, line and paragraph separators, private use, noncharacters and
// tags.
bool PrintableNonAscii(uint32_t rune) {
  if (rune < 0xA0) return false;
  if (rune == 0xA0 || rune == 0xAD) return false;
  if (rune >= 0x2000 && rune <= 0x200F) return false;
  if (rune >= 0x2028 && rune <= 0x202F) return false;
  if (rune >= 0x205F && rune <= 0x206F) return false;
  if (rune == 0x3000 || rune == 0x1680 || rune == 0x180E) return false;
  if (rune == 0xFEFF) return false;
  if (rune >= 0xFFF0 && rune <= 0xFFFB) return false;
  if (rune >= 0xE000 && rune <= 0xF8FF) return false;
  if ((rune & 0xFFFE) == 0xFFFE) return false;
  if (rune >= 0xFDD0 && rune <= 0xFDEF) return false;
  if (rune >= 0xF0000) return false;
  if (rune >= 0xE0000 && rune <= 0xE0FFF) return false;
  return true;
}

// One ASCII byte of a Go-quoted string.
void AppendGoQuotedAscii(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\v':
      out += "\\v";
      return;
    default:
      if (c < 0x20 || c == 0x7F) {
        out += "\\x";
        AppendHexDigits(out, c, 2);
      } else {
        out += static_cast<char>(c);
      }
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  size_t run = 0;  // start of the pending run of bytes copied verbatim
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHexDigits[c >> 4];
        out += kHexDigits[c & 0xF];
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

std::string GoQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      AppendGoQuotedAscii(out, c);
      ++i;
      continue;
    }
    uint32_t rune = 0;
    const size_t length = DecodeUtf8(text, i, rune);
    if (length == 0) {
      out += "\\x";
      AppendHexDigits(out, c, 2);
      ++i;
      continue;
    }
    if (PrintableNonAscii(rune)) {
      out.append(text.data() + i, length);
    } else if (rune < 0x10000) {
      out += "\\u";
      AppendHexDigits(out, rune, 4);
    } else {
      out += "\\U";
      AppendHexDigits(out, rune, 8);
    }
    i += length;
  }
  out += '"';
  return out;
}

}  // namespace dralloc
