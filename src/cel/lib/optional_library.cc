#include "cel/lib/optional_library.h"

#include <cmath>

#include "cel/common/types.h"

namespace dralloc::cel {

namespace {
// Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds.
constexpr int64_t kGoZeroTimeSeconds = -62135596800;
}  // namespace

bool IsZeroValue(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return !value.bool_value();
    case ValueKind::kInt:
      return value.int_value() == 0;
    case ValueKind::kUint:
      return value.uint_value() == 0;
    case ValueKind::kDouble:
      return value.double_value() == 0.0;
    case ValueKind::kString:
    case ValueKind::kBytes:
      return value.string_view().empty();
    case ValueKind::kDuration:
      return value.duration_nanos() == 0;
    case ValueKind::kTimestamp:
      return value.timestamp_seconds() == kGoZeroTimeSeconds &&
             value.timestamp_nanos() == 0;
    case ValueKind::kList:
      return value.list().Size() == 0;
    case ValueKind::kMap:
      return value.map().Size() == 0;
    default:
      return false;
  }
}

Value OptionalSelect(const Value& operand, std::string_view field) {
  switch (operand.kind()) {
    case ValueKind::kOptional:
      if (!operand.optional_has_value()) return Value::OptionalNone();
      return OptionalSelect(operand.optional_value(), field);
    case ValueKind::kMap: {
      Value out;
      if (operand.map().FindString(field, &out)) {
        return Value::OptionalOf(std::move(out));
      }
      return Value::OptionalNone();
    }
    case ValueKind::kError:
      return operand;
    default:
      return NoMatchingOverload("_?._");
  }
}

namespace {

// Resolves a list index (int, uint or integral double) against `size`:
// returns false when `key` cannot index a list, else sets `found`/`pos`.
bool ListPosition(const Value& key, size_t size, bool* found, size_t* pos) {
  *found = false;
  switch (key.kind()) {
    case ValueKind::kInt:
      if (key.int_value() >= 0 &&
          static_cast<uint64_t>(key.int_value()) < size) {
        *found = true;
        *pos = static_cast<size_t>(key.int_value());
      }
      return true;
    case ValueKind::kUint:
      if (key.uint_value() < size) {
        *found = true;
        *pos = static_cast<size_t>(key.uint_value());
      }
      return true;
    case ValueKind::kDouble: {
      double d = key.double_value();
      if (std::trunc(d) != d) return false;
      if (d >= 0 && d < static_cast<double>(size)) {
        *found = true;
        *pos = static_cast<size_t>(d);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Value OptionalIndex(const Value& operand, const Value& key) {
  if (key.IsError()) return key;
  switch (operand.kind()) {
    case ValueKind::kOptional:
      if (!operand.optional_has_value()) return Value::OptionalNone();
      return OptionalIndex(operand.optional_value(), key);
    case ValueKind::kList: {
      const ListValue& list = operand.list();
      bool found;
      size_t pos = 0;
      if (!ListPosition(key, list.Size(), &found, &pos)) {
        return NoMatchingOverload("_[?_]");
      }
      if (!found) return Value::OptionalNone();
      return Value::OptionalOf(list.At(pos));
    }
    case ValueKind::kMap: {
      Value out;
      if (operand.map().Find(key, &out)) {
        return Value::OptionalOf(std::move(out));
      }
      return Value::OptionalNone();
    }
    case ValueKind::kError:
      return operand;
    default:
      return NoMatchingOverload("_[?_]");
  }
}

namespace {

Value Of(const CallContext&, std::span<const Value> args) {
  return Value::OptionalOf(args[0]);
}

Value OfNonZeroValue(const CallContext&, std::span<const Value> args) {
  if (IsZeroValue(args[0])) return Value::OptionalNone();
  return Value::OptionalOf(args[0]);
}

Value None(const CallContext&, std::span<const Value>) {
  return Value::OptionalNone();
}

Value GetValue(const CallContext&, std::span<const Value> args) {
  if (!args[0].optional_has_value()) {
    return Value::Error("optional.none() dereference");
  }
  return args[0].optional_value();
}

Value HasValue(const CallContext&, std::span<const Value> args) {
  return Value::Bool(args[0].optional_has_value());
}

// `or` and `orValue` short-circuit in cel-go: the alternative only matters
// (and only its error surfaces) when the receiver is optional.none(). They are
// registered non-strict to keep those results.
Value Or(const CallContext&, std::span<const Value> args) {
  if (args[0].IsError()) return args[0];
  if (args[0].kind() != ValueKind::kOptional) return NoMatchingOverload("or");
  if (args[0].optional_has_value()) return args[0];
  if (!args[1].IsError() && args[1].kind() != ValueKind::kOptional) {
    return NoMatchingOverload("or");
  }
  return args[1];
}

Value OrValue(const CallContext&, std::span<const Value> args) {
  if (args[0].IsError()) return args[0];
  if (args[0].kind() != ValueKind::kOptional) {
    return NoMatchingOverload("orValue");
  }
  if (args[0].optional_has_value()) return args[0].optional_value();
  return args[1];
}

Value SelectField(const CallContext&, std::span<const Value> args) {
  return OptionalSelect(args[0], args[1].string_view());
}

Value Index(const CallContext&, std::span<const Value> args) {
  return OptionalIndex(args[0], args[1]);
}

}  // namespace

void RegisterOptionalLibrary(FunctionRegistry& registry) {
  const Type k = Type::Param("K");
  const Type v = Type::Param("V");
  const Type opt_v = Type::Optional(v);
  const Type list_v = Type::List(v);
  const Type map_kv = Type::Map(k, v);

  registry.Add({.id = "optional_of",
                .function = "optional.of",
                .params = {v},
                .result = opt_v,
                .impl = Of});
  registry.Add({.id = "optional_ofNonZeroValue",
                .function = "optional.ofNonZeroValue",
                .params = {v},
                .result = opt_v,
                .impl = OfNonZeroValue});
  registry.Add({.id = "optional_none",
                .function = "optional.none",
                .params = {},
                .result = opt_v,
                .impl = None});
  registry.Add({.id = "optional_value",
                .function = "value",
                .member = true,
                .params = {opt_v},
                .result = v,
                .impl = GetValue});
  registry.Add({.id = "optional_hasValue",
                .function = "hasValue",
                .member = true,
                .params = {opt_v},
                .result = Type::Bool(),
                .impl = HasValue});
  registry.Add({.id = "optional_or_optional",
                .function = "or",
                .member = true,
                .params = {opt_v, opt_v},
                .result = opt_v,
                .impl = Or,
                .strict = false});
  registry.Add({.id = "optional_orValue_value",
                .function = "orValue",
                .member = true,
                .params = {opt_v, v},
                .result = v,
                .impl = OrValue,
                .strict = false});

  // Runtime of the optional syntax.
  registry.Add({.id = "select_optional_field",
                .function = "_?._",
                .params = {Type::Dyn(), Type::String()},
                .result = Type::Optional(Type::Dyn()),
                .impl = SelectField});
  registry.Add({.id = "list_optindex_optional_int",
                .function = "_[?_]",
                .params = {list_v, Type::Int()},
                .result = opt_v,
                .impl = Index});
  registry.Add({.id = "optional_list_optindex_optional_int",
                .function = "_[?_]",
                .params = {Type::Optional(list_v), Type::Int()},
                .result = opt_v,
                .impl = Index});
  registry.Add({.id = "map_optindex_optional_value",
                .function = "_[?_]",
                .params = {map_kv, k},
                .result = opt_v,
                .impl = Index});
  registry.Add({.id = "optional_map_optindex_optional_value",
                .function = "_[?_]",
                .params = {Type::Optional(map_kv), k},
                .result = opt_v,
                .impl = Index});
  registry.Add({.id = "optional_list_index_int",
                .function = "_[_]",
                .params = {Type::Optional(list_v), Type::Int()},
                .result = opt_v,
                .impl = Index});
  registry.Add({.id = "optional_map_index_value",
                .function = "_[_]",
                .params = {Type::Optional(map_kv), k},
                .result = opt_v,
                .impl = Index});
}

}  // namespace dralloc::cel
