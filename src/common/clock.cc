#include "common/clock.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>

namespace dralloc {

std::string FormatUtcTime(SystemTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

std::string NowRfc3339() {
  // Timestamps have one-second resolution and writers stamp several objects
  // a second, so each thread formats a second once.
  thread_local std::time_t cached_second = -1;
  thread_local std::string cached;
  const SystemTime now = std::chrono::system_clock::now();
  const std::time_t second = std::chrono::system_clock::to_time_t(now);
  if (second != cached_second) {
    cached = FormatUtcTime(now);
    cached_second = second;
  }
  return cached;
}

std::optional<SystemTime> ParseUtcTime(std::string_view text) {
  std::tm parts{};
  int consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &parts.tm_year,
                  &parts.tm_mon, &parts.tm_mday, &parts.tm_hour, &parts.tm_min,
                  &parts.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(consumed);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') {
      rest.remove_prefix(1);
    }
  }
  if (rest != "Z") return std::nullopt;
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

std::string NewUid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = rng(), lo = rng();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", hi >> 32,
                     (hi >> 16) & 0xffff, hi & 0x0fff,
                     0x8000 | ((lo >> 48) & 0x3fff), lo & 0xffffffffffffULL);
}

}  // namespace dralloc
