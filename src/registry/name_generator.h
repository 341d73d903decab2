// NameGenerator: names for objects created with metadata.generateName
// (upstream's names.SimpleNameGenerator): the prefix and five characters
// from an alphabet without vowels and look-alikes.
#ifndef DRALLOC_REGISTRY_NAME_GENERATOR_H_
#define DRALLOC_REGISTRY_NAME_GENERATOR_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace dralloc::registry {

class NameGenerator {
 public:
  // The characters of a generated suffix.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  static constexpr int kSuffixLength = 5;

  // `prefix` followed by a suffix. Thread-safe.
  virtual std::string GenerateName(std::string_view prefix) = 0;

 protected:
  ~NameGenerator() = default;
};

// Random suffixes, as a server gives them.
class RandomNameGenerator final : public NameGenerator {
 public:
  std::string GenerateName(std::string_view prefix) override;
};

// Suffixes from a counter, so that offline runs are reproducible: a
// bijection of the counter over the 27^5 suffixes, so names look varied.
class DeterministicNameGenerator final : public NameGenerator {
 public:
  std::string GenerateName(std::string_view prefix) override;

 private:
  std::atomic<uint64_t> next_{0};
};

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_NAME_GENERATOR_H_
