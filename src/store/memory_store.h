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

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <unordered_set>

#include "common/mutex.h"
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
                         const ValueEncoder& encode) override
      EXCLUDES(write_mutex_);
  StatusOr<KeyValue> Delete(std::string_view key,
                            Precondition precondition) override
      EXCLUDES(write_mutex_);
  std::optional<KeyValue> Get(std::string_view key) const override
      EXCLUDES(data_mutex_);
  ListResult List(std::string_view prefix, std::string_view start_after,
                  size_t limit) const override EXCLUDES(data_mutex_);
  StatusOr<ListResult> ListAt(std::string_view prefix, std::string_view start,
                              size_t limit, int64_t revision) const override
      EXCLUDES(data_mutex_, window_mutex_);
  int64_t OldestListableRevision() const override EXCLUDES(window_mutex_);
  size_t Count(std::string_view prefix) const override EXCLUDES(data_mutex_);
  int64_t Revision() const override EXCLUDES(data_mutex_);
  StatusOr<std::unique_ptr<Watcher>> Watch(std::string prefix,
                                           int64_t after_revision) override
      EXCLUDES(window_mutex_);
  int64_t OldestWatchableRevision() const override EXCLUDES(window_mutex_);
  void Shutdown() override EXCLUDES(window_mutex_);

  // For a replica of a store that numbers its own writes (EtcdStore): the
  // source's events, in revision order (revisions may repeat or skip), made
  // visible as they are. Put and Delete must not be used on a replica.
  void ApplyReplicated(std::vector<WatchEvent> events)
      EXCLUDES(write_mutex_, data_mutex_, window_mutex_);
  // Replaces the whole state (after the replica lost events it cannot
  // recover): the event window restarts at `revision`, so every open watch
  // fails with kOutOfRange and its client lists again.
  void ResetReplica(std::vector<KeyValue> objects, int64_t revision)
      EXCLUDES(write_mutex_, data_mutex_, window_mutex_);

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

  using ObjectMap = std::map<std::string, Entry, std::less<>>;

  static Status CheckPrecondition(const Entry* current,
                                  Precondition precondition,
                                  std::string_view key);
  // The object map and revision as writers see them. Every change to
  // objects_ and revision_ is made with write_mutex_ held (in Apply), so a
  // writer may read them without data_mutex_: nothing changes them under it.
  const ObjectMap& ObjectsForWriter() const
      REQUIRES(write_mutex_) NO_THREAD_SAFETY_ANALYSIS {
    return objects_;
  }
  int64_t RevisionForWriter() const
      REQUIRES(write_mutex_) NO_THREAD_SAFETY_ANALYSIS {
    return revision_;
  }
  // Waits (releasing write_mutex_) until no write to `key` is in flight.
  void AwaitKeySettled(std::string_view key) REQUIRES(write_mutex_);
  // Makes `events` (revision order) visible: the object map, the revision
  // and the window.
  void Apply(std::span<WatchEvent> events) REQUIRES(write_mutex_)
      EXCLUDES(data_mutex_, window_mutex_);
  // Queues `event` (numbered, checked) in the open batch and returns once
  // its batch is durable and visible, or failed.
  Status Commit(WatchEvent event) REQUIRES(write_mutex_);
  // Writes the open batch to the log (releasing write_mutex_ meanwhile) and
  // applies it, or fails it and every write queued behind it.
  void CommitOpenBatch() REQUIRES(write_mutex_);
  // Puts the newest writes of `initial` that are known exactly back into
  // the event window (after a restart).
  void SeedWindow(const std::vector<KeyValue>& initial, int64_t revision)
      EXCLUDES(window_mutex_);
  // The index of the first window event with a revision above `revision`.
  size_t FirstEventAfter(int64_t revision) const REQUIRES(window_mutex_);
  // Appends to the window and wakes watchers.
  void RecordEvent(WatchEvent event) REQUIRES(window_mutex_);
  // Events under `prefix` after `after`, or kOutOfRange/kCancelled; moves
  // `after` to the last revision scanned. `stopped` is read with
  // window_mutex_ held.
  StatusOr<std::vector<WatchEvent>> EventsAfter(
      std::string_view prefix, int64_t& after, std::chrono::milliseconds wait,
      const bool* stopped, CondVar& wake) EXCLUDES(window_mutex_);

  const StoreOptions options_;
  const std::unique_ptr<Persistence> persistence_;

  // Lock order: write_mutex_, then data_mutex_, then window_mutex_.
  // Serialises writers' checks and numbering, and the application of
  // committed batches; not held while the log is written.
  Mutex write_mutex_ ACQUIRED_BEFORE(data_mutex_);
  mutable SharedMutex data_mutex_;
  ObjectMap objects_ GUARDED_BY(data_mutex_);
  int64_t revision_ GUARDED_BY(data_mutex_) = 0;  // the newest visible one

  // Group commit state.
  // The newest revision handed out.
  int64_t assigned_revision_ GUARDED_BY(write_mutex_) = 0;
  std::shared_ptr<Batch> open_batch_ GUARDED_BY(write_mutex_);
  bool committing_ GUARDED_BY(write_mutex_) = false;
  CondVar batch_done_;
  // Keys with a write in flight (in the open or the committing batch).
  std::unordered_set<std::string, StringHash, std::equal_to<>> in_flight_
      GUARDED_BY(write_mutex_);

  // A watcher blocked in EventsAfter. Writes wake only the waiters whose
  // prefix they match, so a busy prefix does not wake every watch thread.
  struct Waiter {
    std::string_view prefix;
    int64_t* after;  // the watcher's position, advanced over trimmed events
    CondVar* wake;
  };

  mutable Mutex window_mutex_ ACQUIRED_AFTER(data_mutex_);
  std::vector<Waiter> waiters_ GUARDED_BY(window_mutex_);
  // Contiguous revisions.
  std::deque<WatchEvent> window_ GUARDED_BY(window_mutex_);
  // Watches may start after this revision.
  int64_t window_start_ GUARDED_BY(window_mutex_) = 0;
  // Lists as of a revision need every later event to carry the state it
  // replaced; events seeded after a restart may not (see SeedWindow).
  int64_t list_floor_ GUARDED_BY(window_mutex_) = 0;
  size_t window_bytes_ GUARDED_BY(window_mutex_) = 0;
  bool shutdown_ GUARDED_BY(window_mutex_) = false;
};

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_MEMORY_STORE_H_
