// Fuzzes the offline allocation path (`dralloc allocate`): arbitrary bytes
// are decoded as manifests, validated and allocated for node-1 with a small
// step budget. Any input must end in a result or an error value — never a
// crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "allocator/offline_allocation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto objects = dralloc::allocator::DecodeManifests(text, "fuzz.yaml");
  if (!objects.ok()) return 0;
  dralloc::allocator::AllocatorOptions options;
  options.max_steps = 10'000;
  auto outcome = dralloc::allocator::AllocateOffline(std::move(*objects),
                                                     "node-1", options);
  (void)outcome;
  return 0;
}
