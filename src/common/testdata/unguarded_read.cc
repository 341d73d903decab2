// Must NOT compile in the clang build: reads a GUARDED_BY member without
// its lock. The thread_safety_check test compiles this file with the
// project's thread-safety flags and expects exactly that error, so that
// losing the flags (or the annotations) fails the tests.
#include "common/mutex.h"

namespace dralloc {

class Counter {
 public:
  void Increment() {
    MutexLock lock(mu_);
    ++count_;
  }
  int Read() const { return count_; }  // the error: mu_ is not held

 private:
  mutable Mutex mu_;
  int count_ GUARDED_BY(mu_) = 0;
};

int ReadCounter() {
  Counter counter;
  counter.Increment();
  return counter.Read();
}

}  // namespace dralloc
