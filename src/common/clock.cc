#include "common/clock.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <random>

namespace dralloc {

std::string NowRfc3339() {
  // Timestamps have one-second resolution and writers stamp several objects
  // a second, so each thread formats a second once.
  thread_local std::time_t cached_second = -1;
  thread_local std::string cached;
  const std::time_t now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (now != cached_second) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cached = buffer;
    cached_second = now;
  }
  return cached;
}

std::string NewUid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = rng(), lo = rng();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", hi >> 32,
                     (hi >> 16) & 0xffff, hi & 0x0fff,
                     0x8000 | ((lo >> 48) & 0x3fff), lo & 0xffffffffffffULL);
}

}  // namespace dralloc
