// MemoryStore: the in-memory Store that every embedded backend builds on.
//
// All current objects live in a sorted map (reads and lists never touch the
// disk); recent events live in a bounded window for watches. A backend that
// persists (SQLite) plugs in a Persistence, written through before a write
// becomes visible, so an acknowledged write is durable and a failed one
// changes nothing.
#ifndef DRALLOC_STORE_MEMORY_STORE_H_
#define DRALLOC_STORE_MEMORY_STORE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "store/store.h"

namespace dralloc::store {

// The durable log behind a MemoryStore.
class Persistence {
 public:
  struct Record {
    std::string_view key;
    const std::string* value = nullptr;  // nullptr: the key is deleted
    int64_t create_revision = 0;
    int64_t revision = 0;  // the new store revision
  };
  virtual ~Persistence() = default;
  // Makes the record durable, or fails and leaves the log unchanged.
  virtual Status Write(const Record& record) = 0;
};

struct StoreOptions {
  // Bounds of the watch event window; the older events go first.
  size_t window_events = 200'000;
  size_t window_bytes = size_t{512} << 20;
};

class MemoryStore : public Store {
 public:
  // Starts from `initial` (key order not required) at `initial_revision`.
  explicit MemoryStore(StoreOptions options = {},
                       std::unique_ptr<Persistence> persistence = nullptr,
                       std::vector<KeyValue> initial = {},
                       int64_t initial_revision = 0);
  ~MemoryStore() override;

  StatusOr<KeyValue> Put(std::string_view key, Precondition precondition,
                         const ValueEncoder& encode) override;
  StatusOr<KeyValue> Delete(std::string_view key,
                            Precondition precondition) override;
  std::optional<KeyValue> Get(std::string_view key) const override;
  ListResult List(std::string_view prefix, std::string_view start_after,
                  size_t limit) const override;
  StatusOr<ListResult> ListAt(std::string_view prefix, std::string_view start,
                              size_t limit, int64_t revision) const override;
  int64_t OldestListableRevision() const override;
  size_t Count(std::string_view prefix) const override;
  int64_t Revision() const override;
  StatusOr<std::unique_ptr<Watcher>> Watch(std::string prefix,
                                           int64_t after_revision) override;
  int64_t OldestWatchableRevision() const override;
  void Shutdown() override;

 private:
  class WindowWatcher;
  struct Entry {
    Value value;
    int64_t create_revision = 0;
    int64_t mod_revision = 0;
  };

  static Status CheckPrecondition(const Entry* current,
                                  Precondition precondition,
                                  std::string_view key);
  // Puts the newest writes of `initial` that are known exactly back into
  // the event window (after a restart).
  void SeedWindow(const std::vector<KeyValue>& initial, int64_t revision);
  // Appends to the window and wakes watchers. Requires window_mutex_.
  void RecordEventLocked(WatchEvent event);
  // Events under `prefix` after `after`, or kOutOfRange/kCancelled; moves
  // `after` to the last revision scanned.
  StatusOr<std::vector<WatchEvent>> EventsAfter(std::string_view prefix,
                                                int64_t& after,
                                                std::chrono::milliseconds wait,
                                                const bool& stopped,
                                                std::condition_variable& wake);

  const StoreOptions options_;
  const std::unique_ptr<Persistence> persistence_;

  std::mutex write_mutex_;  // serialises writers (held across persistence)
  mutable std::shared_mutex data_mutex_;  // guards objects_ and revision_
  std::map<std::string, Entry, std::less<>> objects_;
  int64_t revision_ = 0;

  // A watcher blocked in EventsAfter. Writes wake only the waiters whose
  // prefix they match, so a busy prefix does not wake every watch thread.
  struct Waiter {
    std::string_view prefix;
    int64_t* after;  // the watcher's position, advanced over trimmed events
    std::condition_variable* wake;
  };

  std::mutex window_mutex_;  // guards the window, waiters_ and shutdown_
  std::vector<Waiter> waiters_;
  std::deque<WatchEvent> window_;  // contiguous revisions
  int64_t window_start_ = 0;       // watches may start after this revision
  // Lists as of a revision need every later event to carry the state it
  // replaced; events seeded after a restart may not (see SeedWindow).
  int64_t list_floor_ = 0;
  size_t window_bytes_ = 0;
  bool shutdown_ = false;
};

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_MEMORY_STORE_H_
