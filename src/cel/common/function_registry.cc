#include "cel/common/function_registry.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

namespace dralloc::cel {

void FunctionRegistry::Add(Overload overload) {
  auto owned = std::make_unique<Overload>(std::move(overload));
  by_name_[{owned->function, owned->member}].push_back(owned.get());
  overloads_.push_back(std::move(owned));
}

std::span<const Overload* const> FunctionRegistry::Find(
    std::string_view function, bool member) const {
  auto it = by_name_.find(std::pair<std::string, bool>(function, member));
  if (it == by_name_.end()) return {};
  return it->second;
}

bool FunctionRegistry::HasFunction(std::string_view function) const {
  return !Find(function, false).empty() || !Find(function, true).empty();
}

uint64_t CeilCost(uint64_t n, double factor) {
  // Same float arithmetic as cel-go (30 * 0.1 rounds up to 4), without a
  // libm call on the hot path.
  double x = static_cast<double>(n) * factor;
  if (x >= 18446744073709551615.0) return kUnboundedSize;
  uint64_t truncated = static_cast<uint64_t>(x);
  return truncated + (static_cast<double>(truncated) < x ? 1 : 0);
}

bool ParamAccepts(const Type& param, const Value& v) {
  switch (param.kind()) {
    case TypeKind::kDyn:
    case TypeKind::kTypeParam:
      return true;
    case TypeKind::kNull:
      return v.kind() == ValueKind::kNull;
    case TypeKind::kBool:
      return v.kind() == ValueKind::kBool;
    case TypeKind::kInt:
      return v.kind() == ValueKind::kInt;
    case TypeKind::kUint:
      return v.kind() == ValueKind::kUint;
    case TypeKind::kDouble:
      return v.kind() == ValueKind::kDouble;
    case TypeKind::kString:
      return v.kind() == ValueKind::kString;
    case TypeKind::kBytes:
      return v.kind() == ValueKind::kBytes;
    case TypeKind::kDuration:
      return v.kind() == ValueKind::kDuration;
    case TypeKind::kTimestamp:
      return v.kind() == ValueKind::kTimestamp;
    case TypeKind::kList:
      return v.kind() == ValueKind::kList;
    case TypeKind::kMap:
    case TypeKind::kObject:
      return v.kind() == ValueKind::kMap;
    case TypeKind::kType:
      return v.kind() == ValueKind::kType;
    case TypeKind::kOptional:
      return v.kind() == ValueKind::kOptional;
    case TypeKind::kOpaque: {
      if (v.kind() != ValueKind::kOpaque) return false;
      std::string_view name = v.opaque().TypeName();
      const std::string& want = param.name();
      return name.size() == want.size() &&
             (name.data() == want.data() || name == want);
    }
    case TypeKind::kError:
      return false;
  }
  return false;
}

const Overload* FunctionRegistry::Resolve(std::string_view function,
                                          bool member,
                                          std::span<const Value> args) const {
  for (const Overload* o : Find(function, member)) {
    if (o->params.size() != args.size()) continue;
    bool fits = true;
    for (size_t i = 0; i < args.size() && fits; ++i) {
      fits = ParamAccepts(o->params[i], args[i]);
    }
    if (fits) return o;
  }
  return nullptr;
}

uint64_t CodePointCount(std::string_view text) {
  // A continuation byte is 0b10xxxxxx: bit 7 set and bit 6 clear.
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  uint64_t continuation = 0;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    continuation += std::popcount(word & ~(word << 1) & kHigh);
  }
  for (; i < text.size(); ++i) {
    continuation += (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  }
  return text.size() - continuation;
}

uint64_t ActualSize(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
      return CodePointCount(v.string_view());
    case ValueKind::kBytes:
      return v.string_view().size();
    case ValueKind::kList:
      return v.list().Size();
    case ValueKind::kMap:
      return v.map().Size();
    default:
      return 1;
  }
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return kUnboundedSize;
  return r;
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return kUnboundedSize;
  return r;
}

}  // namespace dralloc::cel
