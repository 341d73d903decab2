#include "common/base64.h"

#include <array>
#include <cstdint>

namespace dralloc {
namespace {

constexpr std::string_view kStandard =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::string_view SymbolsOf(Base64Alphabet alphabet) {
  return alphabet == Base64Alphabet::kUrl ? kUrl : kStandard;
}

constexpr std::array<int8_t, 256> DecodeTable(std::string_view symbols) {
  std::array<int8_t, 256> table{};
  table.fill(-1);
  for (size_t i = 0; i < symbols.size(); ++i) {
    table[static_cast<unsigned char>(symbols[i])] = static_cast<int8_t>(i);
  }
  return table;
}

constexpr std::array<int8_t, 256> kStandardTable = DecodeTable(kStandard);
constexpr std::array<int8_t, 256> kUrlTable = DecodeTable(kUrl);

}  // namespace

std::string Base64Encode(std::string_view data, Base64Alphabet alphabet,
                         bool pad) {
  const std::string_view symbols = SymbolsOf(alphabet);
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  auto byte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(data[i]));
  };
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out += symbols[v >> 18];
    out += symbols[(v >> 12) & 63];
    out += symbols[(v >> 6) & 63];
    out += symbols[v & 63];
  }
  const size_t rest = data.size() - i;
  if (rest == 0) return out;
  uint32_t v = byte(i) << 16;
  if (rest == 2) v |= byte(i + 1) << 8;
  out += symbols[v >> 18];
  out += symbols[(v >> 12) & 63];
  if (rest == 2) out += symbols[(v >> 6) & 63];
  if (pad) out.append(3 - rest, '=');
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text,
                                        const Base64DecodeOptions& options) {
  const std::array<int8_t, 256>& table =
      options.alphabet == Base64Alphabet::kUrl ? kUrlTable : kStandardTable;
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  size_t symbols = 0;
  size_t padding = 0;
  for (char c : text) {
    if (options.ignore_newlines && (c == '\r' || c == '\n')) continue;
    if (c == '=' && options.accept_padding) {
      ++padding;
      continue;
    }
    const int8_t value = table[static_cast<unsigned char>(c)];
    if (padding > 0 || value < 0) return std::nullopt;
    ++symbols;
    acc = (acc << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  const size_t tail = symbols % 4;
  if (tail == 1) return std::nullopt;
  // Padding must fill the last quantum exactly.
  if (padding > 0 && (tail == 0 || padding != 4 - tail)) return std::nullopt;
  if (options.canonical && (acc & ((1u << bits) - 1)) != 0) {
    return std::nullopt;
  }
  return out;
}

}  // namespace dralloc
