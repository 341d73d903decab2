// Mutex, SharedMutex, their scoped locks and CondVar: std::mutex,
// std::shared_mutex and std::condition_variable with clang thread-safety
// annotations (common/thread_annotations.h), so that the clang build checks
// that every GUARDED_BY member is touched only with its lock held.
//
// Each type holds exactly the std type it wraps and every member is an
// inline call to it: no virtual calls, no extra state, the same code as
// std::mutex + std::lock_guard.
//
// Adopting them in a class that uses std::mutex:
//   1. std::mutex mu_            -> Mutex mu_ (std::shared_mutex ->
//   SharedMutex)
//      std::condition_variable   -> CondVar
//   2. std::lock_guard lock(mu_) -> MutexLock lock(mu_)
//      std::unique_lock / std::shared_lock on a SharedMutex
//                                -> WriterMutexLock / ReaderMutexLock
//      A lock released early: put it in a block of its own, use
//      ReleasableMutexLock, or call mu_.Unlock() / mu_.Lock() in a
//      function marked REQUIRES(mu_).
//   3. cv_.wait(lock, pred)      -> while (!pred) cv_.Wait(mu_);
//      cv_.wait_for(lock, d, pred) -> cv_.WaitFor(mu_, d, [&]() REQUIRES(mu_)
//                                       { return pred; })
//      (the predicate runs with mu_ held; REQUIRES on the lambda says so).
//   4. Members the lock protects get GUARDED_BY(mu_); private helpers called
//      with the lock held get REQUIRES(mu_) (instead of a "Locked" suffix);
//      public functions that take the lock get EXCLUDES(mu_); a documented
//      order between two locks becomes ACQUIRED_AFTER on the inner one.
//   5. Build with clang (scripts/test.sh's ASan build, or
//      CC=clang CXX=clang++ cmake ...): -Werror=thread-safety reports what
//      the annotations and the code disagree on.
// Code the analysis cannot follow (a lock held across a callback, a lock
// taken on one path only) calls mu_.AssertHeld() where the lock is known to
// be held, or, as a last resort, marks a small function
// NO_THREAD_SAFETY_ANALYSIS with a comment saying why it is safe.
//
// Mutex and SharedMutex also have lower-case lock()/unlock() so that
// std::unique_lock and std::condition_variable_any accept them; the analysis
// does not see through those std types, so prefer the scoped types here.
#ifndef DRALLOC_COMMON_MUTEX_H_
#define DRALLOC_COMMON_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "common/thread_annotations.h"

namespace dralloc {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis that the calling thread holds the mutex (for code
  // it cannot follow); checks nothing at run time.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

  // BasicLockable / Lockable, for std::unique_lock and
  // std::condition_variable_any.
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Many readers or one writer.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void ReaderLock() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void ReaderUnlock() RELEASE_SHARED() { mu_.unlock_shared(); }
  void AssertHeld() const ASSERT_CAPABILITY(this) {}
  void AssertReaderHeld() const ASSERT_SHARED_CAPABILITY(this) {}

  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope (std::lock_guard).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// Holds a Mutex until Release() or the end of its scope, whichever comes
// first (std::unique_lock with one early unlock()).
class SCOPED_CAPABILITY ReleasableMutexLock {
 public:
  explicit ReleasableMutexLock(Mutex& mu) ACQUIRE(mu) : mu_(&mu) {
    mu_->Lock();
  }
  ~ReleasableMutexLock() RELEASE() {
    if (mu_ != nullptr) mu_->Unlock();
  }
  ReleasableMutexLock(const ReleasableMutexLock&) = delete;
  ReleasableMutexLock& operator=(const ReleasableMutexLock&) = delete;

  // Unlocks now; the destructor then does nothing.
  void Release() RELEASE() {
    mu_->Unlock();
    mu_ = nullptr;
  }

 private:
  Mutex* mu_;
};

// Holds a SharedMutex exclusively for its scope.
class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex& mu) ACQUIRE(mu) : mu_(mu) {
    mu_.Lock();
  }
  ~WriterMutexLock() RELEASE() { mu_.Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex& mu_;
};

// Holds a SharedMutex shared for its scope (std::shared_lock).
class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : mu_(mu) {
    mu_.ReaderLock();
  }
  ~ReaderMutexLock() RELEASE() { mu_.ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex& mu_;
};

// A condition variable whose waits name the Mutex they release, so the
// analysis knows it is held before and after. Waits may wake spuriously:
// wait in a loop, or use WaitFor with a predicate. Signal and SignalAll do
// not need the mutex.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mu`, waits for a signal, takes `mu` again.
  void Wait(Mutex& mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // Waits (as above) until `pred()` is true or `timeout` has passed;
  // returns `pred()`. `pred` runs with `mu` held: give the lambda
  // REQUIRES(mu) when it reads guarded members.
  template <typename Rep, typename Period, typename Predicate>
  bool WaitFor(Mutex& mu, std::chrono::duration<Rep, Period> timeout,
               Predicate pred) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
    const bool result = cv_.wait_for(lock, timeout, std::move(pred));
    lock.release();
    return result;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace dralloc

#endif  // DRALLOC_COMMON_MUTEX_H_
