// Metrics: the API server's Prometheus counters and histograms.
#ifndef DRALLOC_APISERVER_METRICS_H_
#define DRALLOC_APISERVER_METRICS_H_

#include <array>
#include <atomic>
#include <map>
#include <string>
#include <tuple>

#include "common/mutex.h"

namespace dralloc::apiserver {

// A latency histogram with fixed buckets (seconds), Prometheus style.
class LatencyHistogram {
 public:
  static constexpr std::array<double, 12> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,   0.1,   0.25,   0.5,   1.0,  5.0};
  void Observe(double seconds);
  // Appends `name_bucket{labels,le=...}`, `_sum` and `_count` lines.
  void Render(std::string& out, const std::string& name,
              const std::string& labels) const;

 private:
  std::array<uint64_t, kBuckets.size()> counts_{};
  uint64_t count_ = 0;
  double sum_ = 0;
};

class Metrics {
 public:
  void ObserveRequest(const std::string& verb, const std::string& resource,
                      int code, double seconds) EXCLUDES(mutex_);
  void ObserveStorage(const std::string& operation, double seconds)
      EXCLUDES(mutex_);
  void WatchOpened() { ++open_watches_; }
  void WatchClosed() { --open_watches_; }
  // The Prometheus text exposition format (version 0.0.4).
  std::string Render() const EXCLUDES(mutex_);

 private:
  mutable Mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_
      GUARDED_BY(mutex_);
  std::map<std::pair<std::string, std::string>, LatencyHistogram> latency_
      GUARDED_BY(mutex_);
  std::map<std::string, LatencyHistogram> storage_latency_ GUARDED_BY(mutex_);
  std::atomic<int64_t> open_watches_{0};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_METRICS_H_
