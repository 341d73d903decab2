// Structured logging to stderr: `time level component message`.
//
// One line per record, written atomically. The level is process-wide and
// set once at startup (`--log-level`).
#ifndef DRALLOC_COMMON_LOG_H_
#define DRALLOC_COMMON_LOG_H_

#include <fmt/format.h>

#include <string_view>

namespace dralloc::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void SetLevel(Level level);
Level GetLevel();
// "debug", "info", "warn", "error"; false for anything else.
bool ParseLevel(std::string_view text, Level& level);
void Write(Level level, std::string_view component, std::string_view message);

template <typename... Args>
void Debug(std::string_view component, fmt::format_string<Args...> format,
           Args&&... args) {
  if (GetLevel() > Level::kDebug) return;
  Write(Level::kDebug, component,
        fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void Info(std::string_view component, fmt::format_string<Args...> format,
          Args&&... args) {
  if (GetLevel() > Level::kInfo) return;
  Write(Level::kInfo, component,
        fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void Warn(std::string_view component, fmt::format_string<Args...> format,
          Args&&... args) {
  if (GetLevel() > Level::kWarn) return;
  Write(Level::kWarn, component,
        fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(std::string_view component, fmt::format_string<Args...> format,
           Args&&... args) {
  Write(Level::kError, component,
        fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace dralloc::log

#endif  // DRALLOC_COMMON_LOG_H_
