#include "cel/lib/strings_library.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/common/types.h"
#include "cel/lib/strings_format.h"
#include "fmt/format.h"

namespace dralloc::cel {
namespace {

using strings_internal::Format;
using strings_internal::IsRuneStart;
using strings_internal::RuneLength;

// ---- UTF-8 helpers ----

int64_t CountRunes(std::string_view s) {
  return static_cast<int64_t>(CodePointCount(s));
}

// Byte offset of code point `index` (0 <= index), s.size() when index equals
// the number of code points, npos when it is larger.
size_t RuneOffset(std::string_view s, int64_t index) {
  size_t i = 0;
  int64_t seen = 0;
  while (i < s.size()) {
    if (IsRuneStart(static_cast<unsigned char>(s[i]))) {
      if (seen == index) return i;
      ++seen;
    }
    ++i;
  }
  return seen == index ? s.size() : std::string_view::npos;
}

constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at s[i] the way Go's range loop does: invalid or
// truncated sequences decode to U+FFFD and consume one byte.
char32_t DecodeRune(std::string_view s, size_t i, size_t* width) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  *width = 1;
  if (c < 0x80) return c;
  size_t n;
  char32_t r;
  char32_t min;
  if ((c & 0xE0) == 0xC0) {
    n = 2, r = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, r = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, r = c & 0x07, min = 0x10000;
  } else {
    return kReplacementChar;
  }
  if (i + n > s.size()) return kReplacementChar;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return kReplacementChar;
    r = (r << 6) | (byte(i + k) & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) {
    return kReplacementChar;
  }
  *width = n;
  return r;
}

void AppendRune(char32_t r, std::string* out) {
  if (r < 0x80) {
    out->push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (r >> 6)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (r >> 12)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (r >> 18)));
    out->push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

// Unicode White_Space as Go's unicode.IsSpace defines it.
bool IsSpace(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

// ---- results that avoid allocation where possible ----

constexpr std::string_view kEmpty = "";

// Single ASCII characters as static storage so that charAt on ASCII text
// allocates nothing.
constexpr auto kAsciiTable = [] {
  std::array<char, 128> t{};
  for (int i = 0; i < 128; ++i) t[i] = static_cast<char>(i);
  return t;
}();

// A string value for `part`, a piece of `source`'s text: `source` itself when
// the piece is the whole text, static storage when empty or one ASCII char.
Value SubstringValue(const Value& source, std::string_view part) {
  if (part.size() == source.string_view().size()) return source;
  if (part.empty()) return Value::BorrowedString(kEmpty);
  if (part.size() == 1 && static_cast<unsigned char>(part[0]) < 0x80) {
    return Value::BorrowedString(
        std::string_view(&kAsciiTable[static_cast<unsigned char>(part[0])], 1));
  }
  return Value::String(std::string(part));
}

Value IndexOutOfRange(int64_t index) {
  return Value::Error(fmt::format("index out of range: {}", index));
}

Value MakeStringList(std::vector<Value> items) {
  if (items.empty()) return Value::BorrowedList(&EmptyList());
  return Value::List(new VectorList(std::move(items)));
}

// ---- charAt / indexOf / lastIndexOf ----

Value CharAt(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  int64_t index = args[1].int_value();
  if (index < 0) return IndexOutOfRange(index);
  size_t b = RuneOffset(s, index);
  if (b == std::string_view::npos) return IndexOutOfRange(index);
  if (b == s.size()) return Value::BorrowedString(kEmpty);
  return SubstringValue(args[0], s.substr(b, RuneLength(s, b)));
}

Value IndexOfFrom(std::string_view s, std::string_view sub, int64_t offset) {
  if (offset < 0) return IndexOutOfRange(offset);
  size_t b = RuneOffset(s, offset);
  if (sub.empty()) {
    // The empty string matches at the offset, clamped to the end.
    return Value::Int(b == std::string_view::npos ? CountRunes(s) : offset);
  }
  // An offset at or past the end finds nothing (cel-go returns -1).
  if (b == std::string_view::npos || b == s.size()) return Value::Int(-1);
  size_t pos = s.find(sub, b);
  if (pos == std::string_view::npos) return Value::Int(-1);
  return Value::Int(offset + CountRunes(s.substr(b, pos - b)));
}

Value IndexOf(const CallContext&, std::span<const Value> args) {
  return IndexOfFrom(args[0].string_view(), args[1].string_view(), 0);
}

Value IndexOfOffset(const CallContext&, std::span<const Value> args) {
  return IndexOfFrom(args[0].string_view(), args[1].string_view(),
                     args[2].int_value());
}

Value LastIndexOf(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  std::string_view sub = args[1].string_view();
  if (sub.empty()) return Value::Int(CountRunes(s));
  size_t pos = s.rfind(sub);
  if (pos == std::string_view::npos) return Value::Int(-1);
  return Value::Int(CountRunes(s.substr(0, pos)));
}

Value LastIndexOfOffset(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  std::string_view sub = args[1].string_view();
  int64_t offset = args[2].int_value();
  if (offset < 0) return IndexOutOfRange(offset);
  size_t b = RuneOffset(s, offset);
  if (sub.empty()) {
    return Value::Int(b == std::string_view::npos ? CountRunes(s) : offset);
  }
  if (b == std::string_view::npos || b == s.size()) return Value::Int(-1);
  // Matches may start at code point `offset` at the latest.
  size_t pos = s.rfind(sub, b);
  if (pos == std::string_view::npos) return Value::Int(-1);
  return Value::Int(CountRunes(s.substr(0, pos)));
}

// ---- case, trim, substring ----

template <bool kUpper>
Value ChangeAsciiCase(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  auto needs_change = [](char c) {
    return kUpper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z');
  };
  auto first = std::find_if(s.begin(), s.end(), needs_change);
  if (first == s.end()) return args[0];
  std::string out(s);
  for (size_t i = static_cast<size_t>(first - s.begin()); i < out.size(); ++i) {
    if (needs_change(out[i])) out[i] = static_cast<char>(out[i] ^ 0x20);
  }
  return Value::String(std::move(out));
}

Value Trim(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  size_t begin = 0;
  while (begin < s.size()) {
    size_t width;
    if (!IsSpace(DecodeRune(s, begin, &width))) break;
    begin += width;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t start = end - 1;
    while (start > begin &&
           !IsRuneStart(static_cast<unsigned char>(s[start]))) {
      --start;
    }
    size_t width;
    char32_t r = DecodeRune(s, start, &width);
    if (start + width != end || !IsSpace(r)) break;
    end = start;
  }
  return SubstringValue(args[0], s.substr(begin, end - begin));
}

Value Substring(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  int64_t start = args[1].int_value();
  size_t b = start < 0 ? std::string_view::npos : RuneOffset(s, start);
  if (b == std::string_view::npos) return IndexOutOfRange(start);
  return SubstringValue(args[0], s.substr(b));
}

Value SubstringRange(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  int64_t start = args[1].int_value();
  int64_t end = args[2].int_value();
  if (start > end) {
    return Value::Error(
        fmt::format("invalid substring range. start: {}, end: {}", start, end));
  }
  size_t b = start < 0 ? std::string_view::npos : RuneOffset(s, start);
  if (b == std::string_view::npos) return IndexOutOfRange(start);
  // `end` counts from the beginning; continue from `b`.
  size_t e = RuneOffset(s.substr(b), end - start);
  if (e == std::string_view::npos) return IndexOutOfRange(end);
  return SubstringValue(args[0], s.substr(b, e));
}

// ---- replace / split / join ----

// Go's strings.Replace: at most `n` replacements (all when n < 0); an empty
// `old` matches before every code point and at the end.
Value ReplaceN(const Value& source, std::string_view old_text,
               std::string_view new_text, int64_t n) {
  std::string_view s = source.string_view();
  if (n == 0 || old_text == new_text) return source;
  int64_t matches = 0;
  if (old_text.empty()) {
    matches = CountRunes(s) + 1;
  } else {
    for (size_t p = s.find(old_text); p != std::string_view::npos;
         p = s.find(old_text, p + old_text.size())) {
      ++matches;
      if (n > 0 && matches >= n) break;
    }
  }
  if (matches == 0) return source;
  if (n < 0 || matches < n) n = matches;
  std::string out;
  out.reserve(s.size() + static_cast<size_t>(n) * new_text.size());
  size_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t j = start;
    if (old_text.empty()) {
      if (i > 0) j += RuneLength(s, start);
    } else {
      j = s.find(old_text, start);
    }
    out.append(s.substr(start, j - start));
    out.append(new_text);
    start = j + old_text.size();
  }
  out.append(s.substr(std::min(start, s.size())));
  return Value::String(std::move(out));
}

Value Replace(const CallContext&, std::span<const Value> args) {
  return ReplaceN(args[0], args[1].string_view(), args[2].string_view(), -1);
}

Value ReplaceWithLimit(const CallContext&, std::span<const Value> args) {
  return ReplaceN(args[0], args[1].string_view(), args[2].string_view(),
                  args[3].int_value());
}

// Go's strings.SplitN: n == 0 gives no pieces, n < 0 all pieces, otherwise
// at most n with the remainder in the last one. An empty separator splits
// into code points.
Value SplitN(const Value& source, std::string_view sep, int64_t n) {
  std::string_view s = source.string_view();
  std::vector<Value> pieces;
  if (n == 0) return MakeStringList({});
  if (sep.empty()) {
    int64_t runes = CountRunes(s);
    if (n < 0 || n > runes) n = runes;
    pieces.reserve(static_cast<size_t>(n));
    size_t pos = 0;
    for (int64_t i = 0; i + 1 < n; ++i) {
      size_t w = RuneLength(s, pos);
      pieces.push_back(SubstringValue(source, s.substr(pos, w)));
      pos += w;
    }
    if (n > 0) pieces.push_back(SubstringValue(source, s.substr(pos)));
    return MakeStringList(std::move(pieces));
  }
  size_t pos = 0;
  while (n < 0 || static_cast<int64_t>(pieces.size()) + 1 < n) {
    size_t m = s.find(sep, pos);
    if (m == std::string_view::npos) break;
    pieces.push_back(SubstringValue(source, s.substr(pos, m - pos)));
    pos = m + sep.size();
  }
  pieces.push_back(SubstringValue(source, s.substr(pos)));
  return MakeStringList(std::move(pieces));
}

Value Split(const CallContext&, std::span<const Value> args) {
  return SplitN(args[0], args[1].string_view(), -1);
}

Value SplitWithLimit(const CallContext&, std::span<const Value> args) {
  return SplitN(args[0], args[1].string_view(), args[2].int_value());
}

Value JoinList(const ListValue& list, std::string_view sep) {
  size_t n = list.Size();
  if (n == 0) return Value::BorrowedString(kEmpty);
  if (n == 1) {
    Value only = list.At(0);
    if (only.kind() == ValueKind::kString) return only;
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    Value item = list.At(i);
    if (item.kind() != ValueKind::kString) {
      return Value::Error(
          fmt::format("join: invalid input: {}", item.DebugString()));
    }
    if (i > 0) out.append(sep);
    out.append(item.string_view());
  }
  return Value::String(std::move(out));
}

Value Join(const CallContext&, std::span<const Value> args) {
  return JoinList(args[0].list(), "");
}

Value JoinWithSeparator(const CallContext&, std::span<const Value> args) {
  return JoinList(args[0].list(), args[1].string_view());
}

// ---- strings.quote ----

Value Quote(const CallContext&, std::span<const Value> args) {
  std::string_view s = args[0].string_view();
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    size_t width;
    char32_t r = DecodeRune(s, i, &width);
    switch (r) {
      case '\a':
        out.append("\\a");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\v':
        out.append("\\v");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '"':
        out.append("\\\"");
        break;
      default:
        if (width == 1 && r == kReplacementChar) {
          AppendRune(r, &out);
        } else {
          out.append(s.substr(i, width));
        }
    }
    i += width;
  }
  out.push_back('"');
  return Value::String(std::move(out));
}

// ---- costs ----
//
// Kubernetes' CallCost: ceil(size * 0.1) for lowerAscii, upperAscii,
// substring, trim; ceil(size * 2 * 0.1) for replace and split;
// ceil(size(result) * 2 * 0.1) for join; for indexOf/lastIndexOf the
// traversal cost trunc(bytes * 0.1). cel-go: ceil(size * 0.1) for format and
// strings.quote.

uint64_t ReceiverScanCost(std::span<const Value> args, const Value&) {
  return CeilCost(ActualSize(args[0]), 0.1);
}

uint64_t DoubleCeil(uint64_t n) {
  return CeilCost(n * 2, 0.1);  // float(n) * 2 * 0.1, exact doubling
}

uint64_t ReceiverDoubleScanCost(std::span<const Value> args, const Value&) {
  return DoubleCeil(ActualSize(args[0]));
}

uint64_t JoinCost(std::span<const Value>, const Value& result) {
  return DoubleCeil(ActualSize(result));
}

uint64_t StringTraversalCost(std::span<const Value> args, const Value&) {
  return static_cast<uint64_t>(
      static_cast<double>(args[0].string_view().size()) * 0.1);
}

CostEstimate ScaleEstimate(const SizeEstimate& size, double factor) {
  return {CeilCost(size.min, factor), CeilCost(size.max, factor)};
}

CostEstimate ReceiverScanEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], 0.1);
}

CostEstimate ReceiverDoubleScanEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], 0.2);
}

SizeEstimate SameSize(std::span<const SizeEstimate> args) { return args[0]; }

SizeEstimate QuoteSize(std::span<const SizeEstimate> args) {
  return {SaturatingAdd(args[0].min, 2),
          SaturatingAdd(SaturatingMul(args[0].max, 2), 2)};
}

SizeEstimate SplitSize(std::span<const SizeEstimate> args) {
  return {0, args[0].max};
}

// Kubernetes' replace result size: the most (fewest) replacements of the
// shortest (longest) pattern by the longest (shortest) replacement.
SizeEstimate ReplaceSize(std::span<const SizeEstimate> args) {
  const SizeEstimate& sz = args[0];
  const SizeEstimate& from = args[1];
  const SizeEstimate& to = args[2];
  SizeEstimate count{0, 0};
  SizeEstimate retained{0, 0};
  if (from.min == 0) {
    count.max = sz.max < kUnboundedSize ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (to.max <= from.min) {
    count.max = 0;
    retained.max = sz.max;
  } else {
    count.max = static_cast<uint64_t>(
        std::ceil(static_cast<double>(sz.max) / static_cast<double>(from.min)));
  }
  if (from.max == 0) {
    count.min = sz.min < kUnboundedSize ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (from.max <= to.min) {
    count.min = 0;
    retained.min = sz.min;
  } else {
    count.min = static_cast<uint64_t>(
        std::ceil(static_cast<double>(sz.min) / static_cast<double>(from.max)));
  }
  return {SaturatingAdd(SaturatingMul(count.min, to.min), retained.min),
          SaturatingAdd(SaturatingMul(count.max, to.max), retained.max)};
}

// Kubernetes' join estimate: list size times element size (unknown here, so
// unbounded) plus the separators, times 0.1.
SizeEstimate JoinSizeImpl(std::span<const SizeEstimate> args) {
  const SizeEstimate& list = args[0];
  SizeEstimate size{0, list.max == 0 ? 0 : kUnboundedSize};
  if (args.size() > 1) {
    uint64_t min_seps = list.min > 0 ? list.min - 1 : 0;
    uint64_t max_seps = list.max > 0 ? list.max - 1 : 0;
    size.min = SaturatingAdd(size.min, SaturatingMul(args[1].min, min_seps));
    size.max = SaturatingAdd(size.max, SaturatingMul(args[1].max, max_seps));
  }
  return size;
}

CostEstimate JoinEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(JoinSizeImpl(args), 0.1);
}

// charAt, indexOf, lastIndexOf.
void RegisterStringSearch(FunctionRegistry& registry) {
  const Type kString = Type::String();
  const Type kInt = Type::Int();
  registry.Add({.id = "string_char_at_int",
                .function = "charAt",
                .member = true,
                .params = {kString, kInt},
                .result = kString,
                .impl = CharAt});
  registry.Add({.id = "string_index_of_string",
                .function = "indexOf",
                .member = true,
                .params = {kString, kString},
                .result = kInt,
                .impl = IndexOf,
                .runtime_cost = StringTraversalCost,
                .estimate_cost = ReceiverScanEstimate});
  registry.Add({.id = "string_index_of_string_int",
                .function = "indexOf",
                .member = true,
                .params = {kString, kString, kInt},
                .result = kInt,
                .impl = IndexOfOffset,
                .runtime_cost = StringTraversalCost,
                .estimate_cost = ReceiverScanEstimate});
  registry.Add({.id = "string_last_index_of_string",
                .function = "lastIndexOf",
                .member = true,
                .params = {kString, kString},
                .result = kInt,
                .impl = LastIndexOf,
                .runtime_cost = StringTraversalCost,
                .estimate_cost = ReceiverScanEstimate});
  registry.Add({.id = "string_last_index_of_string_int",
                .function = "lastIndexOf",
                .member = true,
                .params = {kString, kString, kInt},
                .result = kInt,
                .impl = LastIndexOfOffset,
                .runtime_cost = StringTraversalCost,
                .estimate_cost = ReceiverScanEstimate});
}

// lowerAscii, upperAscii, replace, split, substring, trim.
void RegisterStringEditing(FunctionRegistry& registry) {
  const Type kString = Type::String();
  const Type kInt = Type::Int();
  const Type kStringList = Type::List(Type::String());
  registry.Add({.id = "string_lower_ascii",
                .function = "lowerAscii",
                .member = true,
                .params = {kString},
                .result = kString,
                .impl = ChangeAsciiCase<false>,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = SameSize});
  registry.Add({.id = "string_upper_ascii",
                .function = "upperAscii",
                .member = true,
                .params = {kString},
                .result = kString,
                .impl = ChangeAsciiCase<true>,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = SameSize});
  registry.Add({.id = "string_replace_string_string",
                .function = "replace",
                .member = true,
                .params = {kString, kString, kString},
                .result = kString,
                .impl = Replace,
                .runtime_cost = ReceiverDoubleScanCost,
                .estimate_cost = ReceiverDoubleScanEstimate,
                .estimate_size = ReplaceSize});
  registry.Add({.id = "string_replace_string_string_int",
                .function = "replace",
                .member = true,
                .params = {kString, kString, kString, kInt},
                .result = kString,
                .impl = ReplaceWithLimit,
                .runtime_cost = ReceiverDoubleScanCost,
                .estimate_cost = ReceiverDoubleScanEstimate,
                .estimate_size = ReplaceSize});
  registry.Add({.id = "string_split_string",
                .function = "split",
                .member = true,
                .params = {kString, kString},
                .result = kStringList,
                .impl = Split,
                .runtime_cost = ReceiverDoubleScanCost,
                .estimate_cost = ReceiverDoubleScanEstimate,
                .estimate_size = SplitSize});
  registry.Add({.id = "string_split_string_int",
                .function = "split",
                .member = true,
                .params = {kString, kString, kInt},
                .result = kStringList,
                .impl = SplitWithLimit,
                .runtime_cost = ReceiverDoubleScanCost,
                .estimate_cost = ReceiverDoubleScanEstimate,
                .estimate_size = SplitSize});
  registry.Add({.id = "string_substring_int",
                .function = "substring",
                .member = true,
                .params = {kString, kInt},
                .result = kString,
                .impl = Substring,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = SameSize});
  registry.Add({.id = "string_substring_int_int",
                .function = "substring",
                .member = true,
                .params = {kString, kInt, kInt},
                .result = kString,
                .impl = SubstringRange,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = SameSize});
  registry.Add({.id = "string_trim",
                .function = "trim",
                .member = true,
                .params = {kString},
                .result = kString,
                .impl = Trim,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = SameSize});
}

// join, strings.quote, format.
void RegisterStringJoining(FunctionRegistry& registry) {
  const Type kString = Type::String();
  const Type kStringList = Type::List(Type::String());
  registry.Add({.id = "list_join",
                .function = "join",
                .member = true,
                .params = {kStringList},
                .result = kString,
                .impl = Join,
                .runtime_cost = JoinCost,
                .estimate_cost = JoinEstimate,
                .estimate_size = JoinSizeImpl});
  registry.Add({.id = "list_join_string",
                .function = "join",
                .member = true,
                .params = {kStringList, kString},
                .result = kString,
                .impl = JoinWithSeparator,
                .runtime_cost = JoinCost,
                .estimate_cost = JoinEstimate,
                .estimate_size = JoinSizeImpl});
  registry.Add({.id = "strings_quote",
                .function = "strings.quote",
                .member = false,
                .params = {kString},
                .result = kString,
                .impl = Quote,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate,
                .estimate_size = QuoteSize});
  registry.Add({.id = "string_format",
                .function = "format",
                .member = true,
                .params = {kString, Type::List(Type::Dyn())},
                .result = kString,
                .impl = Format,
                .runtime_cost = ReceiverScanCost,
                .estimate_cost = ReceiverScanEstimate});
}

}  // namespace

void RegisterStringsLibrary(FunctionRegistry& registry) {
  RegisterStringSearch(registry);
  RegisterStringEditing(registry);
  RegisterStringJoining(registry);
}

}  // namespace dralloc::cel
