#include "client/event_recorder.h"

#include <fmt/format.h>

namespace dralloc::client {
namespace {

std::string SimilarKey(const api::Event& event) {
  const api::ObjectReference& o = event.involved_object;
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}",
                     event.source.component, o.kind, o.namespace_, o.name,
                     o.uid, event.type, event.reason);
}

}  // namespace

Status EventRecorder::Record(api::Event event) {
  const std::string similar_key = SimilarKey(event);
  std::string key;  // what identical events share
  Recorded previous;
  {
    MutexLock lock(mu_);
    if (recorded_.size() > kRemembered) recorded_.clear();
    if (similar_.size() > kRemembered) similar_.clear();
    // Combine floods of similar events, as client-go's EventAggregator.
    Similar& similar = similar_[similar_key];
    const Clock::time_point now = Clock::now();
    while (!similar.times.empty() &&
           now - similar.times.front() > kSimilarWindow) {
      similar.times.pop_front();
    }
    similar.times.push_back(now);
    // A combined event is one event whatever its latest message says.
    const bool combined = similar.times.size() > kMaxSimilar;
    if (combined) {
      event.message =
          "(combined from similar events): " + std::move(event.message);
    }
    key = similar_key + '\x1f' + (combined ? "" : event.message);
    Recorded& recorded = recorded_[key];
    if (recorded.count > 0) {
      event.metadata.name = recorded.name;
      event.count = recorded.count + 1;
      if (!recorded.first_timestamp.empty()) {
        event.first_timestamp = recorded.first_timestamp;
      }
    }
    previous = recorded;
    recorded.name = event.metadata.name;
    recorded.namespace_ = event.metadata.namespace_;
    recorded.count = event.count;
    recorded.first_timestamp = event.first_timestamp.value_or("");
  }
  if (previous.count > 0) {
    auto stored = client_.Get(ResourceFor<api::Event>(), previous.namespace_,
                              previous.name);
    if (stored.ok()) {
      api::Event updated = std::get<api::Event>(**stored);
      updated.count = event.count;
      updated.last_timestamp = event.last_timestamp;
      updated.message = event.message;
      auto written = client_.Update(api::Object(std::move(updated)));
      if (written.ok()) return OkStatus();
    }
    // Gone (expired) or changed under us: start again with a new Event.
    event.count = 1;
    event.first_timestamp = event.last_timestamp;
    MutexLock lock(mu_);
    Recorded& recorded = recorded_[key];
    recorded.count = 1;
    recorded.first_timestamp = event.first_timestamp.value_or("");
    event.metadata.name = recorded.name =
        fmt::format("{}.{:x}", event.involved_object.name,
                    Clock::now().time_since_epoch().count());
  }
  return client_.CreateEvent(event);
}

}  // namespace dralloc::client
