// Tests of the encoders library (cel-go ext.Encoders: base64).
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- encoders ----

TEST(ExtLibEncoders, Base64) {
  RunCases({
      {"base64_encode_bytes", {B("hello")}, S("aGVsbG8=")},
      {"base64_encode_bytes", {B("")}, S("")},
      {"base64_encode_bytes", {B("Hello World!")}, S("SGVsbG8gV29ybGQh")},
      {"base64_encode_bytes", {B("\xff\xfe")}, S("//4=")},
      {"base64_decode_string", {S("aGVsbG8=")}, B("hello")},
      {"base64_decode_string", {S("aGVsbG8")}, B("hello")},
      {"base64_decode_string", {S("SGVsbG8gV29ybGQh")}, B("Hello World!")},
      {"base64_decode_string", {S("//4=")}, B("\xff\xfe")},
      {"base64_decode_string", {S("")}, B("")},
      {"base64_decode_string", {S("aGVs\nbG8=")}, B("hello")},
      {"base64_decode_string", {S("aGVsbG8==")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("a")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("aG=Vs")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("a*Vs")}, Err("illegal base64 data")},
  });
}

}  // namespace
}  // namespace dralloc::cel
