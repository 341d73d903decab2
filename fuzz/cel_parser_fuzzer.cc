// libFuzzer target for the CEL parser: any input must parse or fail with an
// error, never crash, hang or exhaust the stack. A successful parse is also
// printed, to walk the whole tree.
//
// Build (clang): clang++ -std=c++2b -g -O1 -fsanitize=fuzzer,address,undefined
//   -I src fuzz/cel_parser_fuzzer.cc src/cel/{ast,lexer,parser,
//   macro_expander,debug_string}.cc src/common/status.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cel/syntax/debug_string.h"
#include "cel/syntax/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  dralloc::cel::ParseOptions options;
  // The first byte, when present, toggles the optional features.
  if (size > 0) {
    options.enable_macros = (data[0] & 1) == 0;
    options.enable_optional_syntax = (data[0] & 2) == 0;
  }
  dralloc::StatusOr<dralloc::cel::ParsedExpr> parsed =
      dralloc::cel::Parse(text, options);
  if (parsed.ok()) {
    const std::string printed = dralloc::cel::DebugString(*parsed->root);
    if (printed.empty()) __builtin_trap();
  } else if (parsed.status().message().rfind("ERROR: <input>:", 0) != 0) {
    __builtin_trap();
  }
  return 0;
}
