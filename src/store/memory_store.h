// MemoryStore: the in-memory Store that every embedded backend builds on.
//
// All current objects live in a sorted map (reads and lists never touch the
// disk); recent events live in a bounded window for watches. A backend that
// persists (SQLite) plugs in a Persistence, written through before a write
// becomes visible, so an acknowledged write is durable and a failed one
// changes nothing.
//
// Group commit: with a Persistence, concurrent writers are checked and given
// revisions one at a time, then written to the log together, one batch per
// log transaction; a batch becomes visible (to reads, lists and watches) and
// is acknowledged only once it is durable. A write to a key with a write
// still in flight waits for that write first, so every precondition is
// checked against visible state.
#ifndef DRALLOC_STORE_MEMORY_STORE_H_
#define DRALLOC_STORE_MEMORY_STORE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <unordered_set>

#include "common/string_hash.h"
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
  // Makes the records (in revision order) durable together, or fails and
  // leaves the log unchanged.
  virtual Status Write(std::span<const Record> records) = 0;
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

  // Writes checked and numbered, waiting to be durable together.
  struct Batch {
    std::vector<WatchEvent> writes;  // revision order
    bool done = false;
    Status status;
  };

  static Status CheckPrecondition(const Entry* current,
                                  Precondition precondition,
                                  std::string_view key);
  // Waits (releasing `writer`) until no write to `key` is in flight.
  void AwaitKeySettled(std::unique_lock<std::mutex>& writer,
                       std::string_view key);
  // Makes `events` (revision order) visible: the object map, the revision
  // and the window. Requires write_mutex_.
  void ApplyLocked(std::span<WatchEvent> events);
  // Queues `event` (numbered, checked) in the open batch and returns once
  // its batch is durable and visible, or failed.
  Status Commit(std::unique_lock<std::mutex>& writer, WatchEvent event);
  // Writes the open batch to the log (releasing `writer` meanwhile) and
  // applies it, or fails it and every write queued behind it.
  void CommitOpenBatch(std::unique_lock<std::mutex>& writer);
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

  // Serialises writers' checks and numbering, and the application of
  // committed batches; not held while the log is written.
  std::mutex write_mutex_;
  mutable std::shared_mutex data_mutex_;  // guards objects_ and revision_
  std::map<std::string, Entry, std::less<>> objects_;
  int64_t revision_ = 0;  // the newest visible revision

  // Group commit state, guarded by write_mutex_.
  int64_t assigned_revision_ = 0;  // the newest revision handed out
  std::shared_ptr<Batch> open_batch_;
  bool committing_ = false;
  std::condition_variable batch_done_;
  // Keys with a write in flight (in the open or the committing batch).
  std::unordered_set<std::string, StringHash, std::equal_to<>> in_flight_;

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
