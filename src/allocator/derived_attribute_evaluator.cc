#include "allocator/derived_attribute_evaluator.h"

#include <fmt/format.h>

#include <algorithm>

#include "cel/common/eval_context.h"
#include "cel/dra/dra_environment.h"
#include "cel/lib/semver_library.h"

namespace dralloc::allocator {
namespace {

using Type = AttributeSet::Type;

// The type and text of one scalar result, or nullopt for other kinds.
std::optional<std::pair<Type, std::string>> ScalarOf(const cel::Value& v) {
  switch (v.kind()) {
    case cel::ValueKind::kString:
      return std::pair{Type::kString, std::string(v.string_view())};
    case cel::ValueKind::kInt:
      return std::pair{Type::kInt, std::to_string(v.int_value())};
    case cel::ValueKind::kBool:
      return std::pair{Type::kBool,
                       std::string(v.bool_value() ? "true" : "false")};
    default:
      break;
  }
  if (const SemVer* version = cel::AsSemver(v)) {
    return std::pair{Type::kVersion, version->ToString()};
  }
  return std::nullopt;
}

Status WrongType(const cel::Value& v) {
  return InvalidArgumentError(fmt::format(
      "result of type {} is not a string, int, bool or semver, or a list of "
      "one of them",
      v.TypeName()));
}

}  // namespace

StatusOr<std::optional<AttributeSet>> DerivedValueOf(const cel::Value& result) {
  if (result.kind() != cel::ValueKind::kList) {
    auto scalar = ScalarOf(result);
    if (!scalar) return WrongType(result);
    return std::optional<AttributeSet>(
        AttributeSet{scalar->first, {std::move(scalar->second)}});
  }
  const cel::ListValue& list = result.list();
  if (list.Size() == 0) return std::optional<AttributeSet>();
  AttributeSet set;
  for (size_t i = 0; i < list.Size(); ++i) {
    cel::Value item = list.At(i);
    auto scalar = ScalarOf(item);
    if (!scalar) return WrongType(item);
    if (i > 0 && scalar->first != set.type) {
      return InvalidArgumentError(fmt::format(
          "list elements must all have one type, element {} is a {}", i,
          item.TypeName()));
    }
    set.type = scalar->first;
    set.values.push_back(std::move(scalar->second));
  }
  std::sort(set.values.begin(), set.values.end());
  set.values.erase(std::unique(set.values.begin(), set.values.end()),
                   set.values.end());
  return std::optional<AttributeSet>(std::move(set));
}

StatusOr<DerivedAttributeEvaluator> DerivedAttributeEvaluator::Compile(
    const std::vector<api::DerivedAttribute>& attributes) {
  DerivedAttributeEvaluator out;
  out.programs_.reserve(attributes.size());
  for (size_t i = 0; i < attributes.size(); ++i) {
    const api::DerivedAttribute& attribute = attributes[i];
    auto program =
        cel::DerivedAttributeCache().GetOrCompile(attribute.expression);
    if (!program.ok()) {
      return InvalidArgumentError(
          fmt::format("derived attribute #{} \"{}\": CEL compile error: {}", i,
                      attribute.name, program.status().message()));
    }
    out.programs_.push_back({&attribute, *std::move(program)});
  }
  return out;
}

StatusOr<DerivedValues> DerivedAttributeEvaluator::Evaluate(
    const InventoryDevice& device) const {
  DerivedValues values;
  values.reserve(programs_.size());
  for (const Compiled& compiled : programs_) {
    cel::EvalContext ctx;
    StatusOr<std::optional<AttributeSet>> value = [&] {
      StatusOr<cel::Value> result =
          cel::EvaluateDerivedAttribute(*compiled.program, *device.cel, ctx);
      if (!result.ok())
        return StatusOr<std::optional<AttributeSet>>(result.status());
      return DerivedValueOf(*result);
    }();
    if (!value.ok()) {
      return FailedPreconditionError(fmt::format(
          "derived attribute \"{}\" on device {}: CEL runtime error: {}",
          compiled.attribute->name, device.id, value.status().message()));
    }
    values.push_back({compiled.attribute->name, *std::move(value)});
  }
  return values;
}

}  // namespace dralloc::allocator
