#include "api/v1alpha2/selector_conversion.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "api/validation/names.h"
#include "cel/dra/dra_environment.h"
#include "cel/program.h"
#include "cel/syntax/lexer.h"

namespace dralloc::api::v1alpha2 {
namespace {

constexpr std::array<std::string_view, 7> kMaps = {
    "quantity", "bool", "int", "intslice", "string", "stringslice", "version"};

bool IsMap(std::string_view name) {
  for (std::string_view map : kMaps) {
    if (map == name) return true;
  }
  return false;
}

StatusOr<std::vector<cel::Token>> Tokens(std::string_view text) {
  cel::Lexer lexer(text);
  std::vector<cel::Token> tokens;
  while (true) {
    cel::Token token = lexer.Next();
    if (token.kind == cel::TokenKind::kError) {
      return InvalidArgumentError(fmt::format("selector: {} at offset {}",
                                              token.value, token.error_offset));
    }
    if (token.kind == cel::TokenKind::kEof) return tokens;
    tokens.push_back(std::move(token));
  }
}

bool Is(const std::vector<cel::Token>& tokens, size_t i, cel::TokenKind kind) {
  return i < tokens.size() && tokens[i].kind == kind;
}

}  // namespace

StatusOr<std::string> ToV1Selector(std::string_view selector,
                                   std::string_view driver) {
  ASSIGN_OR_RETURN(std::vector<cel::Token> tokens, Tokens(selector));
  using cel::TokenKind;
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const cel::Token& token = tokens[i];
    // `attributes`, not a field of something else (`x.attributes`).
    if (token.kind != TokenKind::kIdent || token.value != "attributes" ||
        Is(tokens, i - 1, TokenKind::kDot)) {
      continue;
    }
    if (!Is(tokens, i + 1, TokenKind::kDot) ||
        !Is(tokens, i + 2, TokenKind::kIdent) || !IsMap(tokens[i + 2].value)) {
      return InvalidArgumentError(
          "selector: `attributes` is used other than as attributes.<type> "
          "with one of quantity, bool, int, intslice, string, stringslice, "
          "version");
    }
    const std::string& map = tokens[i + 2].value;
    std::string name;
    size_t end = 0;
    if (Is(tokens, i + 3, TokenKind::kLBracket) &&
        Is(tokens, i + 4, TokenKind::kString) &&
        Is(tokens, i + 5, TokenKind::kRBracket)) {
      name = tokens[i + 4].value;
      end = tokens[i + 5].offset + 1;
    } else if (Is(tokens, i + 3, TokenKind::kDot) &&
               Is(tokens, i + 4, TokenKind::kIdent)) {
      name = tokens[i + 4].value;
      end = tokens[i + 4].offset + tokens[i + 4].text.size();
    } else {
      return InvalidArgumentError(fmt::format(
          "selector: attributes.{} is used as a whole; only one attribute "
          "(attributes.{}[\"name\"]) has a v1 form",
          map, map));
    }
    if (!IsCIdentifier(name)) {
      return InvalidArgumentError(fmt::format(
          "selector: attributes.{}[\"{}\"]: a v1 attribute name must be a C "
          "identifier",
          map, name));
    }
    out.append(selector.substr(copied, token.offset - copied));
    out += fmt::format("device.{}[\"{}\"].{}",
                       map == "quantity" ? "capacity" : "attributes", driver,
                       name);
    copied = end;
  }
  out.append(selector.substr(copied));
  auto compiled = cel::Compile(cel::SelectorEnvironment(), out);
  if (!compiled.ok()) {
    return InvalidArgumentError(
        fmt::format("selector: converted to `{}`, which does not compile: {}",
                    out, compiled.status().message()));
  }
  return out;
}

}  // namespace dralloc::api::v1alpha2
