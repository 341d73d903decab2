// RunParallelRequests: issue `count` numbered requests from several client
// threads, each with its own kept-alive connection.
#ifndef DRALLOC_BENCH_LOAD_PARALLEL_REQUESTS_H_
#define DRALLOC_BENCH_LOAD_PARALLEL_REQUESTS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/status.h"
#include "load/http_connection.h"
#include "load/load_support.h"
#include "load/load_target.h"

namespace dralloc::load {

struct ParallelRequestsResult {
  std::int64_t succeeded = 0;
  // Indexes never sent because the deadline passed.
  std::int64_t not_sent = 0;
  ErrorCounts errors;
  // Latencies of the successful requests, microseconds.
  std::vector<std::int64_t> latencies_us;
  double seconds = 0;
};

// Sends request(connection, index) for every index in [0, count), handing
// indexes out to `clients` threads in order; no new request starts after
// `deadline`. `on_success(index, result)` runs on the worker thread for each
// 2xx response and must be thread-safe.
ParallelRequestsResult RunParallelRequests(
    const LoadTarget& target, std::int64_t count, int clients,
    std::chrono::milliseconds request_timeout,
    std::chrono::steady_clock::time_point deadline,
    const std::function<StatusOr<HttpResult>(HttpConnection&, std::int64_t)>&
        request,
    const std::function<void(std::int64_t, const HttpResult&)>& on_success);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_PARALLEL_REQUESTS_H_
