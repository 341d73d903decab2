// Small helpers shared by the load scenarios.
#ifndef DRALLOC_BENCH_LOAD_LOAD_SUPPORT_H_
#define DRALLOC_BENCH_LOAD_LOAD_SUPPORT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "load/http_connection.h"

namespace dralloc::load {

// Counts of failed requests keyed by HTTP status ("409") or "transport".
using ErrorCounts = std::map<std::string, std::int64_t>;

// The key a failed request is counted under: the HTTP status for a non-2xx
// response, "transport" when no response arrived.
std::string ErrorKey(const StatusOr<HttpResult>& result);

// True for a response with a 2xx status.
bool IsSuccess(const StatusOr<HttpResult>& result);

// Adds every count of `from` to `into`.
void MergeErrorCounts(const ErrorCounts& from, ErrorCounts& into);

// " 409=2 timeout=1", or " none" (for report lines).
std::string ErrorsText(const ErrorCounts& errors);

// A short lowercase id (8 hex digits) that keeps object names of separate
// runs apart.
std::string MakeRunId();

// Percent-encodes a query parameter value (RFC 3986 unreserved kept).
std::string UrlEncode(std::string_view value);

// metadata.resourceVersion of a JSON object body; empty when absent or the
// body is not JSON.
std::string ResourceVersionOf(std::string_view object_body);

// The object body with metadata.labels[key] = value; nullopt when the body is
// not a JSON object with object metadata (and labels, if present, an object).
std::optional<std::string> WithLabel(std::string_view object_body,
                                     std::string_view key,
                                     std::string_view value);

// Decimal resourceVersion as a number (our server uses the store revision);
// nullopt when it is not a decimal number.
std::optional<std::uint64_t> ParseResourceVersion(std::string_view text);

// Makes sure namespace `name` exists: GET it, create it on 404. A 403 on the
// GET is taken as "exists, not ours to read" (a user bound in the namespace
// only); the scenario's own requests then fail if it does not.
Status EnsureNamespace(HttpConnection& connection, std::string_view name);

// VmRSS of process `pid` in KiB from /proc/PID/status; nullopt if unreadable.
std::optional<std::int64_t> ReadVmRssKib(int pid);

// Seconds between two steady-clock points.
double SecondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LOAD_SUPPORT_H_
