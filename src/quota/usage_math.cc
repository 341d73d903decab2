#include "quota/usage_math.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace dralloc::quota {
namespace {

// Quantities in quota lists stay far below Quantity's range; a sum that
// would overflow keeps the larger operand rather than failing admission.
Quantity Sum(const Quantity& a, const Quantity& b) {
  StatusOr<Quantity> sum = a.Add(b);
  if (!sum.ok()) return a.Compare(b) >= 0 ? a : b;
  return *std::move(sum);
}

}  // namespace

ResourceList Add(const ResourceList& a, const ResourceList& b) {
  ResourceList result = a;
  for (const auto& [name, value] : b) {
    auto it = result.find(name);
    if (it == result.end()) {
      result.emplace(name, value);
    } else {
      it->second = Sum(it->second, value);
    }
  }
  return result;
}

ResourceList SubtractNonNegative(const ResourceList& a, const ResourceList& b) {
  ResourceList result;
  for (const auto& [name, value] : a) {
    Quantity left = value;
    if (auto it = b.find(name); it != b.end()) {
      StatusOr<Quantity> difference = value.Sub(it->second);
      left = difference.ok() ? *std::move(difference) : Quantity();
    }
    if (left.Sign() < 0) left = Quantity::FromInt64(0);
    result.emplace(name, left);
  }
  return result;
}

ResourceList Mask(const ResourceList& list,
                  const std::vector<std::string>& names) {
  ResourceList result;
  for (const std::string& name : names) {
    if (auto it = list.find(name); it != list.end()) result.insert(*it);
  }
  return result;
}

std::vector<std::string> ResourceNames(const ResourceList& list) {
  std::vector<std::string> names;
  names.reserve(list.size());
  for (const auto& entry : list) names.push_back(entry.first);
  return names;
}

ResourceList RemoveZeros(const ResourceList& list) {
  ResourceList result;
  for (const auto& entry : list) {
    if (!entry.second.IsZero()) result.insert(entry);
  }
  return result;
}

std::vector<std::string> Exceeded(const ResourceList& a,
                                  const ResourceList& b) {
  std::vector<std::string> names;
  for (const auto& [name, value] : a) {
    auto it = b.find(name);
    if (it != b.end() && value.Compare(it->second) > 0) names.push_back(name);
  }
  return names;
}

bool Equals(const ResourceList& a, const ResourceList& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, value] : a) {
    auto it = b.find(name);
    if (it == b.end() || value.Compare(it->second) != 0) return false;
  }
  return true;
}

std::string PrettyPrint(const ResourceList& list) {
  std::vector<std::string> parts;
  parts.reserve(list.size());
  for (const auto& [name, value] : list) {
    parts.push_back(fmt::format("{}={}", name, value.ToString()));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string PrettyPrintNames(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return fmt::format("{}", fmt::join(names, ","));
}

}  // namespace dralloc::quota
