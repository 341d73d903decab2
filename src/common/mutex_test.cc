#include "common/mutex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace dralloc {
namespace {

// The wrappers add no state to the std types they hold.
static_assert(sizeof(Mutex) == sizeof(std::mutex));
static_assert(sizeof(SharedMutex) == sizeof(std::shared_mutex));
static_assert(sizeof(CondVar) == sizeof(std::condition_variable));
static_assert(sizeof(MutexLock) == sizeof(Mutex*));

class Counter {
 public:
  void Add(int n) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    AddHeld(n);
  }
  int value() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return value_;
  }

 private:
  void AddHeld(int n) REQUIRES(mu_) { value_ += n; }

  mutable Mutex mu_;
  int value_ GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, MutexLockExcludesOtherThreads) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10'000; ++i) counter.Add(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.value(), 40'000);
}

TEST(MutexTest, TryLockFailsWhileHeld) {
  Mutex mu;
  mu.Lock();
  bool taken = true;
  std::thread([&] {
    if (mu.TryLock()) {
      mu.Unlock();
    } else {
      taken = false;
    }
  }).join();
  EXPECT_FALSE(taken);
  mu.Unlock();
  if (mu.TryLock()) {
    mu.Unlock();
  } else {
    ADD_FAILURE() << "TryLock failed on a free mutex";
  }
}

TEST(MutexTest, StdLockTypesAcceptTheWrappers) {
  Mutex mu;
  {
    std::unique_lock<Mutex> lock(mu);
    EXPECT_TRUE(lock.owns_lock());
  }
  SharedMutex shared;
  {
    std::shared_lock<SharedMutex> reader(shared);
    EXPECT_TRUE(reader.owns_lock());
  }
  std::condition_variable_any cv;
  std::unique_lock<Mutex> lock(mu);
  EXPECT_FALSE(
      cv.wait_for(lock, std::chrono::milliseconds(1), [] { return false; }));
}

TEST(SharedMutexTest, ReadersShareWritersExclude) {
  SharedMutex mu;
  std::atomic<int> readers_inside{0};
  std::atomic<int> most_readers{0};
  {
    // Two readers hold the lock together: each waits for the other inside.
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&] {
        ReaderMutexLock lock(mu);
        const int inside = ++readers_inside;
        most_readers = std::max(most_readers.load(), inside);
        while (readers_inside.load() < 2) std::this_thread::yield();
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  EXPECT_EQ(most_readers.load(), 2);

  std::atomic<bool> reader_got_in{false};
  std::thread reader;
  {
    WriterMutexLock writer(mu);
    reader = std::thread([&] {
      ReaderMutexLock lock(mu);
      reader_got_in = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(reader_got_in);  // blocked until the writer leaves
  }
  reader.join();
  EXPECT_TRUE(reader_got_in);
}

class Mailbox {
 public:
  void Put(int value) EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      value_ = value;
      full_ = true;
    }
    cv_.Signal();
  }
  int Take() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (!full_) cv_.Wait(mu_);
    full_ = false;
    return value_;
  }
  bool TakeWithin(std::chrono::milliseconds timeout, int& out) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (!cv_.WaitFor(mu_, timeout, [this]() REQUIRES(mu_) { return full_; })) {
      return false;
    }
    full_ = false;
    out = value_;
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool full_ GUARDED_BY(mu_) = false;
  int value_ GUARDED_BY(mu_) = 0;
};

TEST(CondVarTest, WaitReturnsOnceSignalled) {
  Mailbox box;
  std::thread producer([&] { box.Put(7); });
  EXPECT_EQ(box.Take(), 7);
  producer.join();
}

TEST(CondVarTest, WaitForTimesOutWithoutSignal) {
  Mailbox box;
  int out = 0;
  EXPECT_FALSE(box.TakeWithin(std::chrono::milliseconds(5), out));
  box.Put(3);
  ASSERT_TRUE(box.TakeWithin(std::chrono::milliseconds(5), out));
  EXPECT_EQ(out, 3);
}

TEST(CondVarTest, WaitForSeesSignalFromAnotherThread) {
  Mailbox box;
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    box.Put(11);
  });
  int out = 0;
  EXPECT_TRUE(box.TakeWithin(std::chrono::seconds(10), out));
  EXPECT_EQ(out, 11);
  producer.join();
}

}  // namespace
}  // namespace dralloc
