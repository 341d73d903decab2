#include "cel/encoders_library.h"

#include <array>
#include <cstdint>

#include "cel/types.h"

namespace dralloc::cel {
namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> kDecodeTable = [] {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
  return t;
}();

Value Encode(const CallContext&, std::span<const Value> args) {
  return Value::String(Base64Encode(args[0].string_view()));
}

Value Decode(const CallContext&, std::span<const Value> args) {
  std::optional<std::string> decoded = Base64Decode(args[0].string_view());
  if (!decoded) return Value::Error("illegal base64 data");
  return Value::Bytes(std::move(*decoded));
}

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    uint32_t v =
        static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16 |
        static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8 |
        static_cast<unsigned char>(data[i + 2]);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  size_t rest = data.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(data[i]))
                 << 16;
    if (rest == 2) {
      v |= static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8;
    }
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  // Collect the symbols, dropping CR/LF; padding only at the end.
  std::string symbols;
  symbols.reserve(text.size());
  size_t padding = 0;
  for (char c : text) {
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0 || kDecodeTable[static_cast<unsigned char>(c)] < 0) {
      return std::nullopt;
    }
    symbols.push_back(c);
  }
  size_t tail = symbols.size() % 4;
  if (tail == 1) return std::nullopt;
  if (padding > 0) {
    // Padded input must fill the last quantum exactly.
    if (tail == 0 || padding != 4 - tail) return std::nullopt;
  }
  std::string out;
  out.reserve(symbols.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : symbols) {
    acc = (acc << 6) |
          static_cast<uint32_t>(kDecodeTable[static_cast<unsigned char>(c)]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

void RegisterEncodersLibrary(FunctionRegistry& registry) {
  registry.Add({.id = "base64_encode_bytes",
                .function = "base64.encode",
                .params = {Type::Bytes()},
                .result = Type::String(),
                .impl = Encode});
  registry.Add({.id = "base64_decode_string",
                .function = "base64.decode",
                .params = {Type::String()},
                .result = Type::Bytes(),
                .impl = Decode});
}

}  // namespace dralloc::cel
