#include "apiserver/metrics.h"

#include <fmt/format.h>

namespace dralloc::apiserver {

void LatencyHistogram::Observe(double seconds) {
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++counts_[i];
  }
  ++count_;
  sum_ += seconds;
}

void LatencyHistogram::Render(std::string& out, const std::string& name,
                              const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : ",";
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    out += fmt::format("{}_bucket{{{}{}le=\"{}\"}} {}\n", name, labels, sep,
                       kBuckets[i], counts_[i]);
  }
  out += fmt::format("{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name, labels, sep,
                     count_);
  out += fmt::format("{}_sum{{{}}} {}\n", name, labels, sum_);
  out += fmt::format("{}_count{{{}}} {}\n", name, labels, count_);
}

void Metrics::ObserveRequest(const std::string& verb,
                             const std::string& resource, int code,
                             double seconds) {
  MutexLock lock(mutex_);
  ++requests_[{verb, resource, code}];
  latency_[{verb, resource}].Observe(seconds);
}

void Metrics::ObserveStorage(const std::string& operation, double seconds) {
  MutexLock lock(mutex_);
  storage_latency_[operation].Observe(seconds);
}

std::string Metrics::Render() const {
  MutexLock lock(mutex_);
  std::string out;
  out +=
      "# HELP apiserver_request_total Requests by verb, resource and HTTP "
      "code.\n# TYPE apiserver_request_total counter\n";
  for (const auto& [key, count] : requests_) {
    const auto& [verb, resource, code] = key;
    out += fmt::format(
        "apiserver_request_total{{verb=\"{}\",resource=\"{}\",code=\"{}\"}} "
        "{}\n",
        verb, resource, code, count);
  }
  out +=
      "# HELP apiserver_request_duration_seconds Request latency by verb and "
      "resource.\n# TYPE apiserver_request_duration_seconds histogram\n";
  for (const auto& [key, histogram] : latency_) {
    histogram.Render(
        out, "apiserver_request_duration_seconds",
        fmt::format("verb=\"{}\",resource=\"{}\"", key.first, key.second));
  }
  out +=
      "# HELP apiserver_storage_duration_seconds Storage operation latency.\n"
      "# TYPE apiserver_storage_duration_seconds histogram\n";
  for (const auto& [operation, histogram] : storage_latency_) {
    histogram.Render(out, "apiserver_storage_duration_seconds",
                     fmt::format("operation=\"{}\"", operation));
  }
  out +=
      "# HELP apiserver_open_watches Watch streams currently open.\n"
      "# TYPE apiserver_open_watches gauge\n";
  out += fmt::format("apiserver_open_watches {}\n", open_watches_.load());
  return out;
}

}  // namespace dralloc::apiserver
