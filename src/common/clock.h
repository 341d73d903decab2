// Clock and identity helpers shared by every layer that stamps objects:
// the API server's registry, the in-memory client, the scheduler and the
// controllers.
#ifndef DRALLOC_COMMON_CLOCK_H_
#define DRALLOC_COMMON_CLOCK_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace dralloc {

// The current UTC time as Kubernetes writes timestamps, with one-second
// resolution: "2026-11-22T14:05:09Z".
std::string NowRfc3339();

using SystemTime = std::chrono::system_clock::time_point;

// `time` as Kubernetes writes timestamps, whole seconds in UTC:
// "2026-09-23T11:00:00Z".
std::string FormatUtcTime(SystemTime time);

// "2026-09-23T11:00:00Z" (fractional seconds allowed) as a time point;
// nullopt when it is not RFC 3339 UTC.
std::optional<SystemTime> ParseUtcTime(std::string_view text);

// A random (version 4) UUID, as Kubernetes assigns metadata.uid.
std::string NewUid();

}  // namespace dralloc

#endif  // DRALLOC_COMMON_CLOCK_H_
