#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace dralloc::log {
namespace {
std::atomic<Level> current_level{Level::kInfo};
constexpr std::string_view kNames[] = {"debug", "info", "warn", "error"};
}  // namespace

void SetLevel(Level level) { current_level = level; }
Level GetLevel() { return current_level; }

bool ParseLevel(std::string_view text, Level& level) {
  for (int i = 0; i < 4; ++i) {
    if (text == kNames[i]) {
      level = static_cast<Level>(i);
      return true;
    }
  }
  return false;
}

void Write(Level level, std::string_view component, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch())
                          .count() %
                      1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  const std::string line =
      fmt::format("{}.{:03d}Z level={} component={} msg={:?}\n", stamp,
                  static_cast<int>(millis), kNames[static_cast<int>(level)],
                  component, message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace dralloc::log
