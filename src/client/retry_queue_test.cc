#include "client/retry_queue.h"

#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <string>

namespace dralloc::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Outcome = RetryQueue::Outcome;

// A RetryQueue on a clock the test moves; Pop never waits for it.
struct ManualClockQueue {
  explicit ManualClockQueue(int max_retries = 5)
      : now(std::make_shared<SystemTime>()),
        queue(RetryQueueOptions{.max_retries = max_retries,
                                .clock = [now = now] { return *now; }}) {}
  std::optional<std::string> Pop() { return queue.Pop(milliseconds(0)); }
  void Advance(milliseconds by) { *now += by; }

  std::shared_ptr<SystemTime> now;
  RetryQueue queue;
};

TEST(RetryQueueTest, RetryDelayDoublesUpToTheCap) {
  const RetryQueueOptions defaults;
  EXPECT_EQ(RetryQueue::RetryDelay(defaults, 0), milliseconds(5));
  EXPECT_EQ(RetryQueue::RetryDelay(defaults, 1), milliseconds(10));
  EXPECT_EQ(RetryQueue::RetryDelay(defaults, 4), milliseconds(80));
  EXPECT_EQ(RetryQueue::RetryDelay(defaults, 40), seconds(1000));
  EXPECT_EQ(RetryQueue::RetryDelay(defaults, INT_MAX), seconds(1000));
  const RetryQueueOptions immediate{.base_delay = milliseconds(0)};
  EXPECT_EQ(RetryQueue::RetryDelay(immediate, INT_MAX), milliseconds(0));
}

TEST(RetryQueueTest, AddAfterQueuesWhenDueAndKeepsTheEarlierTime) {
  ManualClockQueue q;
  q.queue.AddAfter("a", milliseconds(30));
  EXPECT_FALSE(q.queue.Idle());
  q.Advance(milliseconds(29));
  EXPECT_EQ(q.Pop(), std::nullopt);
  q.queue.AddAfter("a", milliseconds(100));  // later: the earlier time stays
  q.Advance(milliseconds(1));
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", true), Outcome::kDone);
  EXPECT_TRUE(q.queue.Idle());
  q.queue.AddAfter("b", milliseconds(50));
  q.queue.AddAfter("b", milliseconds(10));  // earlier: moved up
  q.Advance(milliseconds(10));
  EXPECT_EQ(q.Pop(), "b");
}

TEST(RetryQueueTest, FailedKeyComesBackAfterItsBackoff) {
  ManualClockQueue q;
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", false), Outcome::kRetrying);
  EXPECT_FALSE(q.queue.Idle());
  EXPECT_EQ(q.queue.PendingRetries(), 1u);
  q.Advance(milliseconds(4));
  EXPECT_EQ(q.Pop(), std::nullopt);
  q.Advance(milliseconds(1));
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.PendingRetries(), 0u);
  // The second requeue waits twice as long.
  EXPECT_EQ(q.queue.Finish("a", false), Outcome::kRetrying);
  q.Advance(milliseconds(9));
  EXPECT_EQ(q.Pop(), std::nullopt);
  q.Advance(milliseconds(1));
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", true), Outcome::kDone);
  EXPECT_TRUE(q.queue.Idle());
}

TEST(RetryQueueTest, DroppedAfterMaxRetriesUntilAddedAgain) {
  ManualClockQueue q(/*max_retries=*/2);
  q.queue.Add("a");
  for (int requeue = 0; requeue < 2; ++requeue) {
    ASSERT_EQ(q.Pop(), "a");
    EXPECT_EQ(q.queue.Finish("a", false), Outcome::kRetrying);
    q.Advance(seconds(1));
  }
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", false), Outcome::kDropped);
  EXPECT_TRUE(q.queue.Idle());
  q.Advance(seconds(10));
  EXPECT_EQ(q.Pop(), std::nullopt);
  // A fresh Add starts a fresh budget: the next failure waits 5 ms again.
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", false), Outcome::kRetrying);
  q.Advance(milliseconds(5));
  EXPECT_EQ(q.Pop(), "a");
}

TEST(RetryQueueTest, SuccessForgetsTheFailures) {
  ManualClockQueue q;
  q.queue.Add("a");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(q.Pop(), "a");
    q.queue.Finish("a", false);
    q.Advance(seconds(1));
  }
  ASSERT_EQ(q.Pop(), "a");
  q.queue.Finish("a", true);
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  q.queue.Finish("a", false);
  q.Advance(milliseconds(5));
  EXPECT_EQ(q.Pop(), "a");
}

TEST(RetryQueueTest, MaxRetriesZeroDropsAtTheFirstFailure) {
  ManualClockQueue q(/*max_retries=*/0);
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.Finish("a", false), Outcome::kDropped);
  EXPECT_TRUE(q.queue.Idle());
}

TEST(RetryQueueTest, AddWhileWaitingQueuesAtOnce) {
  ManualClockQueue q;
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  q.queue.Finish("a", false);
  q.queue.Add("a");
  ASSERT_EQ(q.Pop(), "a");
  EXPECT_EQ(q.queue.PendingRetries(), 1u);
  q.queue.Finish("a", true);
  // The earlier retry still falls due: one more, harmless sync.
  q.Advance(milliseconds(5));
  EXPECT_EQ(q.Pop(), "a");
}

TEST(RetryQueueTest, PopOnTheRealClockReturnsARetryThatFallsDueWithinItsWait) {
  RetryQueue queue(RetryQueueOptions{.base_delay = milliseconds(20)});
  queue.Add("a");
  ASSERT_EQ(queue.Pop(milliseconds(0)), "a");
  queue.Finish("a", false);
  EXPECT_EQ(queue.Pop(seconds(30)), "a");
}

TEST(RetryQueueTest, ShutDownEndsPop) {
  RetryQueue queue;
  queue.ShutDown();
  EXPECT_EQ(queue.Pop(seconds(30)), std::nullopt);
}

}  // namespace
}  // namespace dralloc::client
