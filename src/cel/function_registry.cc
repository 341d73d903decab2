#include "cel/function_registry.h"

#include <cassert>
#include <cmath>

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
  double c = std::ceil(static_cast<double>(n) * factor);
  if (c >= 18446744073709551615.0) return kUnboundedSize;
  return static_cast<uint64_t>(c);
}

uint64_t ActualSize(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString: {
      uint64_t n = 0;
      for (unsigned char c : v.string_view()) n += (c & 0xC0) != 0x80;
      return n;
    }
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
