#include "load/parallel_requests.h"

#include <atomic>
#include <thread>

namespace dralloc::load {

namespace {
using Clock = std::chrono::steady_clock;
// Pause after a transport failure so a dead server is not spun on.
constexpr std::chrono::milliseconds kTransportBackoff(20);
}  // namespace

ParallelRequestsResult RunParallelRequests(
    const LoadTarget& target, std::int64_t count, int clients,
    std::chrono::milliseconds request_timeout, Clock::time_point deadline,
    const std::function<StatusOr<HttpResult>(HttpConnection&, std::int64_t)>&
        request,
    const std::function<void(std::int64_t, const HttpResult&)>& on_success) {
  std::atomic<std::int64_t> next_index{0};
  std::vector<ParallelRequestsResult> per_client(clients);
  const Clock::time_point start = Clock::now();
  {
    std::vector<std::jthread> threads;
    for (int client = 0; client < clients; ++client) {
      threads.emplace_back([&, client] {
        ParallelRequestsResult& mine = per_client[client];
        HttpConnection connection(target, request_timeout);
        for (;;) {
          const std::int64_t index = next_index.fetch_add(1);
          if (index >= count) return;
          if (Clock::now() >= deadline) {
            ++mine.not_sent;
            continue;
          }
          const Clock::time_point sent = Clock::now();
          StatusOr<HttpResult> result = request(connection, index);
          const auto elapsed =
              std::chrono::duration_cast<std::chrono::microseconds>(
                  Clock::now() - sent);
          if (IsSuccess(result)) {
            ++mine.succeeded;
            mine.latencies_us.push_back(elapsed.count());
            on_success(index, *result);
          } else {
            ++mine.errors[ErrorKey(result)];
            if (!result.ok()) std::this_thread::sleep_for(kTransportBackoff);
          }
        }
      });
    }
  }
  ParallelRequestsResult total;
  total.seconds = SecondsBetween(start, Clock::now());
  for (ParallelRequestsResult& mine : per_client) {
    total.succeeded += mine.succeeded;
    total.not_sent += mine.not_sent;
    MergeErrorCounts(mine.errors, total.errors);
    total.latencies_us.insert(total.latencies_us.end(),
                              mine.latencies_us.begin(),
                              mine.latencies_us.end());
  }
  return total;
}

}  // namespace dralloc::load
