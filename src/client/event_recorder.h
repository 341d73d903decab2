// EventRecorder: writes core/v1 Events the way client-go's recorder does
// (its EventCorrelator), so that a component that reports the same thing
// again does not flood the API:
// - an event identical to one recorded before (same involved object, type,
//   reason, message and source) updates that Event: count + 1, lastTimestamp
//   now, firstTimestamp kept ("(x3 over 5m)" in kubectl describe);
// - more than kMaxSimilar events of the same object, type and reason with
//   different messages within kSimilarWindow are combined: the message
//   becomes "(combined from similar events): <latest message>" and that
//   combined event is counted as above.
// Best effort, as upstream: a failed write is logged and dropped.
// Thread-safe.
#ifndef DRALLOC_CLIENT_EVENT_RECORDER_H_
#define DRALLOC_CLIENT_EVENT_RECORDER_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "api/types/core.h"
#include "client/api_client.h"
#include "common/mutex.h"

namespace dralloc::client {

class EventRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  // client-go's defaults (maxEvents 10 within 600 s).
  static constexpr size_t kMaxSimilar = 10;
  static constexpr std::chrono::seconds kSimilarWindow{600};
  // How many distinct events are remembered (client-go's LRU holds 4096);
  // beyond it the memory starts afresh.
  static constexpr size_t kRemembered = 4096;

  // `client` must outlive the recorder.
  explicit EventRecorder(ApiClient& client) : client_(client) {}

  // Records `event` (named, stamped and counted 1 by its maker, e.g.
  // PodWarningEvent); returns the status of the write.
  Status Record(api::Event event) EXCLUDES(mu_);

 private:
  struct Recorded {
    std::string name;  // the stored Event's metadata.name
    std::string namespace_;
    int32_t count = 0;
    std::string first_timestamp;
  };
  struct Similar {
    std::deque<Clock::time_point> times;  // within the window
  };

  ApiClient& client_;
  Mutex mu_;
  std::map<std::string, Recorded> recorded_ GUARDED_BY(mu_);
  std::map<std::string, Similar> similar_ GUARDED_BY(mu_);
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_EVENT_RECORDER_H_
