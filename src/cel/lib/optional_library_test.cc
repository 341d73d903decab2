// Tests of the optional library (cel-go optional types, version 2).
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- optionals ----

TEST(ExtLibOptional, Functions) {
  Value map = M({{S("a"), I(1)}, {S("null_key"), Value::Null()}});
  Value list = L({S("foo")});
  RunCases({
      {"optional_of", {Value::Null()}, Value::OptionalOf(Value::Null())},
      {"optional_ofNonZeroValue", {Value::Null()}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {I(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {U(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {D(-0.0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {S("")}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {B("")}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {Value::Bool(false)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {L({})}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {M({})}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {Value::Duration(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue",
       {Value::Timestamp(-62135596800, 0)},
       Value::OptionalNone()},
      {"optional_ofNonZeroValue",
       {Value::Timestamp(0, 0)},
       Value::OptionalOf(Value::Timestamp(0, 0))},
      {"optional_ofNonZeroValue", {I(42)}, Value::OptionalOf(I(42))},
      {"optional_ofNonZeroValue", {S("hello")}, Value::OptionalOf(S("hello"))},
      {"optional_none", {}, Value::OptionalNone()},
      {"optional_hasValue", {Value::OptionalOf(I(1))}, Value::Bool(true)},
      {"optional_hasValue", {Value::OptionalNone()}, Value::Bool(false)},
      {"optional_value", {Value::OptionalOf(I(1))}, I(1)},
      {"optional_value",
       {Value::OptionalNone()},
       Err("optional.none() dereference")},
      {"optional_or_optional",
       {Value::OptionalNone(), Value::OptionalNone()},
       Value::OptionalNone()},
      {"optional_or_optional",
       {Value::OptionalOf(I(42)), Value::OptionalOf(I(20))},
       Value::OptionalOf(I(42))},
      {"optional_or_optional",
       {Value::OptionalNone(), Value::OptionalOf(I(20))},
       Value::OptionalOf(I(20))},
      // Short-circuit: the alternative's error only matters for none.
      {"optional_or_optional",
       {Value::OptionalOf(I(1)), Err("boom")},
       Value::OptionalOf(I(1))},
      {"optional_or_optional",
       {Value::OptionalNone(), Err("boom")},
       Err("boom")},
      {"optional_orValue_value", {Value::OptionalNone(), I(42)}, I(42)},
      {"optional_orValue_value", {Value::OptionalOf(I(1)), Err("boom")}, I(1)},
      {"optional_orValue_value", {Err("first"), I(1)}, Err("first")},
      {"select_optional_field", {map, S("a")}, Value::OptionalOf(I(1))},
      {"select_optional_field",
       {map, S("null_key")},
       Value::OptionalOf(Value::Null())},
      {"select_optional_field", {map, S("b")}, Value::OptionalNone()},
      {"select_optional_field",
       {Value::OptionalOf(map), S("a")},
       Value::OptionalOf(I(1))},
      {"select_optional_field",
       {Value::OptionalNone(), S("a")},
       Value::OptionalNone()},
      {"select_optional_field", {I(1), S("a")}, Err("no matching overload")},
      {"list_optindex_optional_int", {list, I(0)}, Value::OptionalOf(S("foo"))},
      {"list_optindex_optional_int", {list, I(1)}, Value::OptionalNone()},
      {"list_optindex_optional_int", {list, I(-1)}, Value::OptionalNone()},
      {"list_optindex_optional_int", {L({}), I(0)}, Value::OptionalNone()},
      {"optional_list_optindex_optional_int",
       {Value::OptionalOf(list), I(0)},
       Value::OptionalOf(S("foo"))},
      {"optional_list_optindex_optional_int",
       {Value::OptionalNone(), I(0)},
       Value::OptionalNone()},
      {"map_optindex_optional_value",
       {M({{Value::Bool(true), I(1)}, {I(2), I(2)}, {U(5), I(3)}}),
        Value::Bool(true)},
       Value::OptionalOf(I(1))},
      {"map_optindex_optional_value",
       {M({{U(1), D(1.0)}, {I(2), D(2.0)}, {U(3), D(3.0)}}), D(3.0)},
       Value::OptionalOf(D(3.0))},
      {"map_optindex_optional_value",
       {M({{U(1), D(1.0)}, {I(2), D(2.0)}}), U(2)},
       Value::OptionalOf(D(2.0))},
      {"map_optindex_optional_value",
       {M({}), S("missing")},
       Value::OptionalNone()},
      {"optional_map_index_value",
       {Value::OptionalOf(M({{S("index"), S("goodbye")}})), S("index")},
       Value::OptionalOf(S("goodbye"))},
      {"optional_map_index_value",
       {Value::OptionalOf(M({})), S("missing")},
       Value::OptionalNone()},
      {"optional_list_index_int",
       {Value::OptionalNone(), I(0)},
       Value::OptionalNone()},
      {"optional_list_index_int",
       {Value::OptionalOf(Strs({"list-value"})), I(0)},
       Value::OptionalOf(S("list-value"))},
  });
}

}  // namespace
}  // namespace dralloc::cel
