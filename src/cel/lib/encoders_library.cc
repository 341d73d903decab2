#include "cel/lib/encoders_library.h"

#include "cel/common/types.h"
#include "common/base64.h"

namespace dralloc::cel {
namespace {

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
  return dralloc::Base64Encode(data, Base64Alphabet::kStandard, /*pad=*/true);
}

std::optional<std::string> Base64Decode(std::string_view text) {
  return dralloc::Base64Decode(text, {.ignore_newlines = true});
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
