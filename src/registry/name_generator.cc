#include "registry/name_generator.h"

#include <random>

namespace dralloc::registry {

std::string RandomNameGenerator::GenerateName(std::string_view prefix) {
  thread_local std::mt19937 rng{std::random_device{}()};
  std::string name(prefix);
  for (int i = 0; i < kSuffixLength; ++i) {
    name += kAlphabet[rng() % kAlphabet.size()];
  }
  return name;
}

std::string DeterministicNameGenerator::GenerateName(std::string_view prefix) {
  constexpr uint64_t kSpace = 27ull * 27 * 27 * 27 * 27;
  static_assert(kAlphabet.size() == 27 && kSuffixLength == 5);
  uint64_t n =
      (next_.fetch_add(1, std::memory_order_relaxed) * 1'000'003ull + 7'919) %
      kSpace;
  std::string name(prefix);
  for (int i = 0; i < kSuffixLength; ++i) {
    name += kAlphabet[n % kAlphabet.size()];
    n /= kAlphabet.size();
  }
  return name;
}

}  // namespace dralloc::registry
