#include "cel/lib/kubernetes_library_util.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dralloc::cel::k8s_internal {
namespace {

constexpr char kLowerHex[] = "0123456789abcdef";

void AppendHex(std::string& out, uint32_t value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
    out += kLowerHex[(value >> shift) & 0xF];
  }
}

// Decodes one UTF-8 sequence at s[i] with Go's validity rules (no overlong
// forms, no surrogates, at most U+10FFFF). Returns its length, 0 if invalid.
size_t DecodeRune(std::string_view s, size_t i, uint32_t* rune) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    *rune = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *rune = cp;
  return len;
}

// An approximation of Go's unicode.IsPrint for non-ASCII code points: the
// C1 controls, format characters and separators that Go escapes.
bool IsPrintableNonAscii(uint32_t cp) {
  if (cp < 0xA0) return false;                 // C1 controls
  if (cp == 0xA0 || cp == 0xAD) return false;  // no-break space, soft hyphen
  if (cp >= 0x2000 && cp <= 0x200F) return false;  // spaces, Cf
  if (cp >= 0x2028 && cp <= 0x202F) return false;
  if (cp >= 0x205F && cp <= 0x206F) return false;
  if (cp == 0x3000 || cp == 0x1680 || cp == 0x180E) return false;
  if (cp == 0xFEFF) return false;
  if (cp >= 0xFFF0 && cp <= 0xFFFB) return false;
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;    // private use
  if ((cp & 0xFFFE) == 0xFFFE) return false;         // noncharacters
  if (cp >= 0xFDD0 && cp <= 0xFDEF) return false;    // noncharacters
  if (cp >= 0xF0000) return false;                   // private use planes
  if (cp >= 0xE0000 && cp <= 0xE0FFF) return false;  // tags, variation sel.
  return true;
}

}  // namespace

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\a':
          out += "\\a";
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
        case '\v':
          out += "\\v";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            out += "\\x";
            AppendHex(out, c, 2);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    uint32_t rune = 0;
    const size_t len = DecodeRune(s, i, &rune);
    if (len == 0) {
      out += "\\x";
      AppendHex(out, c, 2);
      ++i;
      continue;
    }
    if (IsPrintableNonAscii(rune)) {
      out.append(s.substr(i, len));
    } else if (rune < 0x10000) {
      out += "\\u";
      AppendHex(out, rune, 4);
    } else {
      out += "\\U";
      AppendHex(out, rune, 8);
    }
    i += len;
  }
  out += '"';
  return out;
}

uint64_t ArgTraversalCost(std::span<const Value> args, size_t index,
                          double factor) {
  if (index >= args.size()) return 1;
  return CeilCost(ActualSize(args[index]), factor);
}

CostEstimate ScaleEstimate(SizeEstimate size, double factor) {
  return CostEstimate{CeilCost(size.min, factor), CeilCost(size.max, factor)};
}

Overload MakeOverload(std::string id, std::string function, bool member,
                      std::vector<Type> params, Type result, FunctionImpl impl,
                      RuntimeCostFn runtime_cost,
                      EstimateCostFn estimate_cost) {
  Overload o;
  o.id = std::move(id);
  o.function = std::move(function);
  o.member = member;
  o.params = std::move(params);
  o.result = std::move(result);
  o.impl = impl;
  o.runtime_cost = runtime_cost;
  o.estimate_cost = estimate_cost;
  return o;
}

SizeEstimate UnitSize(std::span<const SizeEstimate>) {
  return SizeEstimate{1, 1};
}

const OpaqueValue* OpaqueOf(const Value& v, std::string_view type_name) {
  if (v.kind() != ValueKind::kOpaque) return nullptr;
  const OpaqueValue& o = v.opaque();
  std::string_view name = o.TypeName();
  // Type names are static constants: pointer equality is the common case.
  if (name.data() != type_name.data() && name != type_name) return nullptr;
  return &o;
}

}  // namespace dralloc::cel::k8s_internal
