#include "scheduler/scheduling_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace dralloc::scheduler {
namespace {

using std::chrono::milliseconds;

SchedulingQueue NoBackoff() {
  return SchedulingQueue(BackoffOptions{milliseconds(0), milliseconds(0)});
}

std::vector<std::string> Drain(SchedulingQueue& queue) {
  std::vector<std::string> keys;
  while (auto key = queue.Pop()) keys.push_back(*key);
  return keys;
}

TEST(SchedulingQueueTest, PopsActivePodsInOrderOnce) {
  SchedulingQueue queue = NoBackoff();
  EXPECT_TRUE(queue.Idle());
  queue.Activate("ns/b");
  queue.Activate("ns/a");
  queue.Activate("ns/b");  // already active
  EXPECT_FALSE(queue.Idle());
  EXPECT_TRUE(queue.WaitsUngated("ns/a"));
  EXPECT_EQ(Drain(queue), (std::vector<std::string>{"ns/b", "ns/a"}));
  EXPECT_TRUE(queue.Idle());
}

// Upstream refreshes a pod's queue timestamp when it is re-queued after a
// failed attempt; PrioritySort then orders by that timestamp.
TEST(SchedulingQueueTest, UnschedulablePodsMoveInTimestampOrder) {
  SchedulingQueue queue = NoBackoff();
  for (const char* key : {"ns/c", "ns/a", "ns/b"}) {
    EXPECT_TRUE(queue.MarkUnschedulable(key, "no nodes"));
  }
  EXPECT_FALSE(queue.MarkUnschedulable("ns/a", "no nodes"));  // same message
  EXPECT_TRUE(queue.MarkUnschedulable("ns/a", "other"));
  EXPECT_TRUE(queue.WaitsUngated("ns/a"));
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.MoveAllUnschedulable();
  EXPECT_EQ(Drain(queue), (std::vector<std::string>{"ns/c", "ns/b", "ns/a"}));
}

TEST(SchedulingQueueTest, HigherPriorityFirstThenEarlierTimestamp) {
  SchedulingQueue queue = NoBackoff();
  queue.Activate("ns/low-early");
  queue.SetPriority("ns/high", 100);
  queue.Activate("ns/high");
  queue.Activate("ns/default");
  queue.SetPriority("ns/negative", -5);
  queue.Activate("ns/negative");
  // A priority learned while active re-sorts the pod.
  queue.SetPriority("ns/default", 100);
  EXPECT_EQ(Drain(queue),
            (std::vector<std::string>{"ns/high", "ns/default", "ns/low-early",
                                      "ns/negative"}));
}

TEST(SchedulingQueueTest, GatedPodKeepsItsPlaceWhenItsClaimArrives) {
  SchedulingQueue queue = NoBackoff();
  queue.Activate("ns/first");
  ASSERT_EQ(queue.Pop(), "ns/first");
  queue.MarkGated("ns/first");
  queue.WaitForClaim("ns/first-gpu", "ns/first");
  queue.Activate("ns/second");
  queue.ClaimAdded("ns/first-gpu");
  // Queued before "second": the wait for its generated claim does not
  // cost it its place.
  EXPECT_EQ(Drain(queue), (std::vector<std::string>{"ns/first", "ns/second"}));
}

TEST(SchedulingQueueTest, FailedPodsBackOff) {
  SchedulingQueue queue(BackoffOptions{milliseconds(30), milliseconds(30)});
  queue.MarkUnschedulable("ns/a", "x");
  queue.Activate("ns/a");  // one failed attempt: waits
  EXPECT_FALSE(queue.Idle());
  EXPECT_EQ(queue.Pop(), std::nullopt);
  std::this_thread::sleep_for(milliseconds(40));
  EXPECT_EQ(queue.Pop(), "ns/a");
  // A bound pod starts from zero attempts again.
  queue.Bound("ns/a");
  queue.Activate("ns/a");
  EXPECT_EQ(queue.Pop(), "ns/a");
}

TEST(SchedulingQueueTest, GatedPodsWaitForTheirClaim) {
  SchedulingQueue queue = NoBackoff();
  queue.MarkGated("ns/pod");
  queue.WaitForClaim("ns/claim", "ns/pod");
  EXPECT_FALSE(queue.WaitsUngated("ns/pod"));
  queue.MoveAllUnschedulable();  // gated pods are not unschedulable
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.ClaimAdded("ns/other");
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.ClaimAdded("ns/claim");
  EXPECT_EQ(queue.Pop(), "ns/pod");
  queue.ClaimAdded("ns/claim");  // waiters are woken once
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

// Classic DRA: a pod waiting for a driver counts no failed attempt, wakes
// when the driver answers or allocates one of its claims, and ignores its
// own status updates (WaitsUngated).
TEST(SchedulingQueueTest, PodsWaitingForADriverWakeOnItsAnswer) {
  SchedulingQueue queue(
      BackoffOptions{milliseconds(10000), milliseconds(10000)});
  queue.Activate("ns/pod");
  ASSERT_EQ(queue.Pop(), "ns/pod");
  EXPECT_TRUE(queue.MarkWaitingForDriver("ns/pod", "waiting"));
  EXPECT_FALSE(queue.MarkWaitingForDriver("ns/pod", "waiting"));
  queue.WaitForClaim("ns/claim", "ns/pod");
  queue.WaitForClaim("ns/claim", "ns/pod");  // registered once
  EXPECT_TRUE(queue.WaitsUngated("ns/pod"));
  EXPECT_TRUE(queue.Idle());
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.DriverAnswered("ns/other");
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.DriverAnswered("ns/pod");
  EXPECT_EQ(queue.Pop(), "ns/pod");  // no backoff: no failed attempt
  queue.MarkWaitingForDriver("ns/pod", "waiting");
  queue.ClaimAdded("ns/claim");
  EXPECT_EQ(queue.Pop(), "ns/pod");
  queue.ClaimAdded("ns/claim");  // woken once
  EXPECT_EQ(queue.Pop(), std::nullopt);
}

TEST(SchedulingQueueTest, BindingPodsAreNotActivated) {
  SchedulingQueue queue = NoBackoff();
  queue.MarkBinding("ns/a");
  EXPECT_TRUE(queue.IsBinding("ns/a"));
  EXPECT_FALSE(queue.Idle());
  queue.Activate("ns/a");
  EXPECT_EQ(queue.Pop(), std::nullopt);
  queue.BindFailed("ns/a");  // retried (no backoff configured)
  EXPECT_FALSE(queue.IsBinding("ns/a"));
  EXPECT_EQ(queue.Pop(), "ns/a");
}

TEST(SchedulingQueueTest, ForgetRemovesEveryTrace) {
  SchedulingQueue queue(
      BackoffOptions{milliseconds(10'000), milliseconds(10'000)});
  queue.Activate("ns/active");
  queue.MarkUnschedulable("ns/backoff", "x");
  queue.Activate("ns/backoff");
  queue.MarkBinding("ns/binding");
  queue.MarkGated("ns/gated");
  for (const char* key :
       {"ns/active", "ns/backoff", "ns/binding", "ns/gated"}) {
    queue.Forget(key);
  }
  EXPECT_TRUE(queue.Idle());
  EXPECT_EQ(queue.Pop(), std::nullopt);
  // Forgotten attempts: no backoff on the next activation.
  queue.Activate("ns/backoff");
  EXPECT_EQ(queue.Pop(), "ns/backoff");
}

TEST(SchedulingQueueTest, WaitForWorkWakesOnActivate) {
  SchedulingQueue queue = NoBackoff();
  Mutex mu;
  std::atomic<bool> stopping{false};
  std::thread producer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    MutexLock lock(mu);
    queue.Activate("ns/a");
  });
  {
    MutexLock lock(mu);
    queue.WaitForWork(mu, milliseconds(5'000), stopping);
    EXPECT_EQ(queue.Pop(), "ns/a");
  }
  producer.join();
}

}  // namespace
}  // namespace dralloc::scheduler
