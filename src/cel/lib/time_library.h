// CEL timestamps and durations: the constructors timestamp() and duration(),
// their string forms, int(timestamp)/int(duration), and the accessors
// getFullYear ... getMilliseconds (timestamps with an optional time zone:
// "UTC", an IANA name such as "America/Los_Angeles", or an offset "+05:30").
// Arithmetic and ordering of these types are in standard_library.h.
//
// Semantics follow cel-go, which Kubernetes uses: durations are int64
// nanoseconds (about ±292 years) parsed with Go's time.ParseDuration syntax;
// timestamps span 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z and
// are parsed as RFC 3339 (time.RFC3339) and printed like time.RFC3339Nano.
// Duration getMilliseconds() returns the total milliseconds (cel-go; the
// cel-spec conformance case expecting the sub-second part is skipped by
// cel-go too).
//
// Constant arguments of timestamp("...") and duration("...") are parsed when
// the program is planned; an invalid literal fails compilation, like
// Kubernetes' ValidateTimestampLiterals / ValidateDurationLiterals.
#ifndef DRALLOC_CEL_LIB_TIME_LIBRARY_H_
#define DRALLOC_CEL_LIB_TIME_LIBRARY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel {

void RegisterTimeLibrary(FunctionRegistry& registry);

// Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
inline constexpr int64_t kMinTimestampSeconds = -62135596800;
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;

// timestamp(string): a timestamp value or an error value.
Value ParseTimestamp(std::string_view text);
// duration(string): a duration value or an error value.
Value ParseDuration(std::string_view text);
// string(timestamp): "2009-02-13T23:31:30Z", "...30.5Z" (trailing zeros of
// the fraction dropped).
std::string FormatTimestamp(int64_t seconds, int32_t nanos);
// string(duration): "1000000s", "1.5s", "-0.000000001s".
std::string FormatDuration(int64_t nanos);

// Checked arithmetic shared with the standard library's operators. Errors are
// "timestamp overflow" (result outside the timestamp range) and
// "integer overflow" (durations outside int64 nanoseconds), as in cel-go.
Value AddTimestampDuration(const Value& timestamp, int64_t nanos);
Value SubtractTimestamps(const Value& a, const Value& b);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_TIME_LIBRARY_H_
