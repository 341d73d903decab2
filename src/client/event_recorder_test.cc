#include "client/event_recorder.h"

#include <gtest/gtest.h>

#include "client/memory_api_client.h"

namespace dralloc::client {
namespace {

api::Pod TestPod() {
  api::Pod pod;
  pod.metadata.name = "web";
  pod.metadata.namespace_ = "ns";
  pod.metadata.uid = "uid-1";
  return pod;
}

std::vector<api::Event> StoredEvents(MemoryApiClient& api) {
  std::vector<api::Event> events;
  auto list = api.List(EventsResource());
  EXPECT_TRUE(list.ok());
  for (const ObjectPtr& o : list->items) {
    events.push_back(std::get<api::Event>(*o));
  }
  return events;
}

TEST(EventRecorderTest, IdenticalEventsAreCountedOnOneEvent) {
  MemoryApiClient api;
  EventRecorder recorder(api);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(recorder
                    .Record(PodWarningEvent(TestPod(), "FailedScheduling",
                                            "0/1 nodes are available.",
                                            "dralloc-scheduler"))
                    .ok());
  }
  const auto events = StoredEvents(api);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 3);
  EXPECT_EQ(events[0].message, "0/1 nodes are available.");
}

TEST(EventRecorderTest, DifferentMessagesAreSeparateUntilCombined) {
  MemoryApiClient api;
  EventRecorder recorder(api);
  for (size_t i = 0; i < EventRecorder::kMaxSimilar + 2; ++i) {
    ASSERT_TRUE(recorder
                    .Record(PodWarningEvent(TestPod(), "FailedScheduling",
                                            "message " + std::to_string(i),
                                            "dralloc-scheduler"))
                    .ok());
  }
  const auto events = StoredEvents(api);
  // Ten separate events, then one combined event counted twice.
  ASSERT_EQ(events.size(), EventRecorder::kMaxSimilar + 1);
  size_t combined = 0;
  for (const api::Event& event : events) {
    if (event.message.starts_with("(combined from similar events): ")) {
      ++combined;
      EXPECT_EQ(event.count, 2);
      EXPECT_EQ(event.message, "(combined from similar events): message 11");
    }
  }
  EXPECT_EQ(combined, 1u);
}

TEST(EventRecorderTest, AnEventDeletedMeanwhileIsCreatedAgain) {
  MemoryApiClient api;
  EventRecorder recorder(api);
  const api::Event event =
      PodWarningEvent(TestPod(), "FailedScheduling", "no", "dralloc-scheduler");
  ASSERT_TRUE(recorder.Record(event).ok());
  auto events = StoredEvents(api);
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(
      api.Delete(EventsResource(), "ns", events[0].metadata.name, "").ok());
  ASSERT_TRUE(recorder.Record(event).ok());
  events = StoredEvents(api);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 1);
}

}  // namespace
}  // namespace dralloc::client
