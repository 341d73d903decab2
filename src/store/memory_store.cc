#include "store/memory_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace dralloc::store {
namespace {

bool HasPrefix(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

size_t EventBytes(const WatchEvent& event) {
  return event.kv.key.size() + (event.kv.value ? event.kv.value->size() : 0) +
         sizeof(WatchEvent);
}

}  // namespace

class MemoryStore::WindowWatcher : public Watcher {
 public:
  WindowWatcher(MemoryStore& store, std::string prefix, int64_t after)
      : store_(store), prefix_(std::move(prefix)), revision_(after) {}

  StatusOr<std::vector<WatchEvent>> Next(
      std::chrono::milliseconds timeout) override {
    // Advances past every revision scanned, matching or not, so that a
    // quiet prefix does not rescan the window.
    return store_.EventsAfter(prefix_, revision_, timeout, &stopped_, wake_);
  }
  int64_t revision() const override { return revision_; }
  void Stop() override {
    MutexLock lock(store_.window_mutex_);
    stopped_ = true;
    wake_.SignalAll();
  }

 private:
  MemoryStore& store_;
  const std::string prefix_;
  int64_t revision_;
  bool stopped_ GUARDED_BY(store_.window_mutex_) = false;
  CondVar wake_;
};

MemoryStore::MemoryStore(StoreOptions options,
                         std::unique_ptr<Persistence> persistence,
                         std::vector<KeyValue> initial,
                         int64_t initial_revision)
    : options_(options),
      persistence_(std::move(persistence)),
      revision_(initial_revision),
      assigned_revision_(initial_revision),
      window_start_(initial_revision) {
  SeedWindow(initial, initial_revision);
  for (KeyValue& kv : initial) {
    objects_.emplace(
        std::move(kv.key),
        Entry{std::move(kv.value), kv.create_revision, kv.mod_revision});
  }
}

void MemoryStore::SeedWindow(const std::vector<KeyValue>& initial,
                             int64_t revision) {
  // The newest revisions whose writes are each still a key's current state
  // are known exactly (a put of that value): a client that saw revision R
  // before a restart can keep watching from R if every write after R is
  // one of them. A delete or an overwritten write breaks the run.
  constexpr int64_t kMaxSeeded = 1024;
  std::map<int64_t, const KeyValue*> recent;
  for (const KeyValue& kv : initial) {
    if (kv.mod_revision > revision - kMaxSeeded) recent[kv.mod_revision] = &kv;
  }
  int64_t start = revision;
  while (start > 0 && revision - start < kMaxSeeded && recent.contains(start)) {
    --start;
  }
  MutexLock window(window_mutex_);
  window_start_ = start;
  for (int64_t r = start + 1; r <= revision; ++r) {
    WatchEvent event;
    event.type = WatchEvent::Type::kPut;
    event.kv = *recent.at(r);
    // An update's previous state is unknown: no list can go back past it.
    if (!event.created()) list_floor_ = r;
    RecordEvent(std::move(event));
  }
}

MemoryStore::~MemoryStore() { Shutdown(); }

Status MemoryStore::CheckPrecondition(const Entry* current,
                                      Precondition precondition,
                                      std::string_view key) {
  switch (precondition.kind) {
    case Precondition::Kind::kNone:
      return OkStatus();
    case Precondition::Kind::kMustNotExist:
      if (current != nullptr) {
        return AlreadyExistsError(fmt::format("key {} already exists", key));
      }
      return OkStatus();
    case Precondition::Kind::kMustExist:
      if (current == nullptr) {
        return NotFoundError(fmt::format("key {} not found", key));
      }
      return OkStatus();
    case Precondition::Kind::kModRevision:
      if (current == nullptr) {
        return NotFoundError(fmt::format("key {} not found", key));
      }
      if (current->mod_revision != precondition.mod_revision) {
        return Status(
            StatusCode::kAborted,
            fmt::format("key {} is at revision {}, not {}", key,
                        current->mod_revision, precondition.mod_revision));
      }
      return OkStatus();
  }
  return OkStatus();
}

StatusOr<KeyValue> MemoryStore::Put(std::string_view key,
                                    Precondition precondition,
                                    const ValueEncoder& encode) {
  MutexLock writer(write_mutex_);
  AwaitKeySettled(key);
  const ObjectMap& objects = ObjectsForWriter();
  auto it = objects.find(key);
  const Entry* current = it == objects.end() ? nullptr : &it->second;
  if (Status s = CheckPrecondition(current, precondition, key); !s.ok()) {
    return s;
  }
  const int64_t revision = assigned_revision_ + 1;
  WatchEvent event;
  event.type = WatchEvent::Type::kPut;
  event.kv.key = std::string(key);
  event.kv.value = std::make_shared<const std::string>(encode(revision));
  event.kv.create_revision = current ? current->create_revision : revision;
  event.kv.mod_revision = revision;
  if (current) {
    event.previous = current->value;
    event.previous_mod_revision = current->mod_revision;
  }
  KeyValue kv = event.kv;
  if (Status s = Commit(std::move(event)); !s.ok()) return s;
  return kv;
}

StatusOr<KeyValue> MemoryStore::Delete(std::string_view key,
                                       Precondition precondition) {
  MutexLock writer(write_mutex_);
  AwaitKeySettled(key);
  const ObjectMap& objects = ObjectsForWriter();
  auto it = objects.find(key);
  if (it == objects.end()) {
    return NotFoundError(fmt::format("key {} not found", key));
  }
  if (Status s = CheckPrecondition(&it->second, precondition, key); !s.ok()) {
    return s;
  }
  const int64_t revision = assigned_revision_ + 1;
  WatchEvent event;
  event.type = WatchEvent::Type::kDelete;
  event.kv = KeyValue{std::string(key), it->second.value,
                      it->second.create_revision, revision};
  event.previous_mod_revision = it->second.mod_revision;
  KeyValue kv = event.kv;
  if (Status s = Commit(std::move(event)); !s.ok()) return s;
  return kv;
}

void MemoryStore::AwaitKeySettled(std::string_view key) {
  // The writer of the in-flight write waits for (or leads) its batch's
  // commit, which clears the key.
  while (in_flight_.find(key) != in_flight_.end()) {
    batch_done_.Wait(write_mutex_);
  }
}

void MemoryStore::Apply(std::span<WatchEvent> events) {
  if (events.empty()) return;
  // The map and the window change together (data_mutex_, then
  // window_mutex_): a reader holding both never sees half a batch.
  WriterMutexLock data(data_mutex_);
  for (const WatchEvent& event : events) {
    const KeyValue& kv = event.kv;
    if (event.type == WatchEvent::Type::kDelete) {
      objects_.erase(kv.key);
      continue;
    }
    Entry entry{kv.value, kv.create_revision, kv.mod_revision};
    auto [it, inserted] = objects_.try_emplace(kv.key, entry);
    if (!inserted) it->second = std::move(entry);
  }
  revision_ = events.back().kv.mod_revision;
  MutexLock window(window_mutex_);
  for (WatchEvent& event : events) RecordEvent(std::move(event));
}

Status MemoryStore::Commit(WatchEvent event) {
  assigned_revision_ = event.kv.mod_revision;
  if (!persistence_) {
    Apply(std::span<WatchEvent>(&event, 1));
    return OkStatus();
  }
  if (!open_batch_) open_batch_ = std::make_shared<Batch>();
  std::shared_ptr<Batch> batch = open_batch_;
  in_flight_.insert(event.kv.key);
  batch->writes.push_back(std::move(event));
  while (!batch->done) {
    if (committing_) {
      batch_done_.Wait(write_mutex_);
    } else {
      CommitOpenBatch();
    }
  }
  return batch->status;
}

void MemoryStore::CommitOpenBatch() {
  committing_ = true;
  std::shared_ptr<Batch> batch = std::move(open_batch_);
  open_batch_.reset();
  std::vector<Persistence::Record> records;
  records.reserve(batch->writes.size());
  for (const WatchEvent& event : batch->writes) {
    const KeyValue& kv = event.kv;
    const bool deleted = event.type == WatchEvent::Type::kDelete;
    records.push_back({kv.key, deleted ? nullptr : kv.value.get(),
                       kv.create_revision, kv.mod_revision});
  }
  write_mutex_.Unlock();
  Status status = persistence_->Write(records);
  write_mutex_.Lock();
  if (status.ok()) {
    for (const WatchEvent& event : batch->writes)
      in_flight_.erase(event.kv.key);
    Apply(batch->writes);
  } else {
    // Writes queued meanwhile were numbered after the failed ones; they
    // fail too, so that revisions stay contiguous.
    for (const std::shared_ptr<Batch>& failed : {batch, open_batch_}) {
      if (!failed) continue;
      failed->status = status;
      failed->done = true;
    }
    open_batch_.reset();
    in_flight_.clear();
    assigned_revision_ = RevisionForWriter();
  }
  batch->status = status;
  batch->done = true;
  committing_ = false;
  batch_done_.SignalAll();
}

void MemoryStore::RecordEvent(WatchEvent event) {
  window_bytes_ += EventBytes(event);
  window_.push_back(std::move(event));
  while (!window_.empty() && (window_.size() > options_.window_events ||
                              window_bytes_ > options_.window_bytes)) {
    const WatchEvent& oldest = window_.front();
    // A blocked waiter has seen every event before `oldest`; if `oldest` is
    // not under its prefix it loses nothing by moving past it (otherwise it
    // is woken and falls out of the window: kOutOfRange).
    for (Waiter& waiter : waiters_) {
      if (*waiter.after < oldest.kv.mod_revision &&
          !HasPrefix(oldest.kv.key, waiter.prefix)) {
        *waiter.after = oldest.kv.mod_revision;
      }
    }
    window_bytes_ -= EventBytes(oldest);
    window_start_ = oldest.kv.mod_revision;
    window_.pop_front();
  }
  const std::string& key = window_.back().kv.key;
  for (Waiter& waiter : waiters_) {
    if (HasPrefix(key, waiter.prefix)) waiter.wake->Signal();
  }
}

size_t MemoryStore::FirstEventAfter(int64_t revision) const {
  // Revisions ascend but may repeat (a transaction's writes share one) or
  // skip (a replica sees only its prefix of the source's writes).
  auto it = std::partition_point(window_.begin(), window_.end(),
                                 [revision](const WatchEvent& e) {
                                   return e.kv.mod_revision <= revision;
                                 });
  return static_cast<size_t>(it - window_.begin());
}

// Replicas --------------------------------------------------------------

void MemoryStore::ApplyReplicated(std::vector<WatchEvent> events) {
  MutexLock writer(write_mutex_);
  assigned_revision_ = std::max(
      assigned_revision_, events.empty() ? 0 : events.back().kv.mod_revision);
  Apply(events);
}

void MemoryStore::ResetReplica(std::vector<KeyValue> objects,
                               int64_t revision) {
  MutexLock writer(write_mutex_);
  WriterMutexLock data(data_mutex_);
  objects_.clear();
  for (KeyValue& kv : objects) {
    objects_.emplace(
        std::move(kv.key),
        Entry{std::move(kv.value), kv.create_revision, kv.mod_revision});
  }
  revision_ = revision;
  assigned_revision_ = revision;
  MutexLock window(window_mutex_);
  // Every watch is now behind the window: each is woken and gets
  // kOutOfRange, and its client lists again.
  window_.clear();
  window_bytes_ = 0;
  window_start_ = revision;
  list_floor_ = revision;
  for (Waiter& waiter : waiters_) waiter.wake->SignalAll();
}

std::optional<KeyValue> MemoryStore::Get(std::string_view key) const {
  ReaderMutexLock data(data_mutex_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return KeyValue{it->first, it->second.value, it->second.create_revision,
                  it->second.mod_revision};
}

ListResult MemoryStore::List(std::string_view prefix,
                             std::string_view start_after, size_t limit) const {
  ListResult result;
  ReaderMutexLock data(data_mutex_);
  result.revision = revision_;
  auto it = start_after.empty() || start_after < prefix
                ? objects_.lower_bound(prefix)
                : objects_.upper_bound(start_after);
  for (; it != objects_.end() && HasPrefix(it->first, prefix); ++it) {
    if (limit != 0 && result.items.size() == limit) {
      result.more = true;
      break;
    }
    result.items.push_back(KeyValue{it->first, it->second.value,
                                    it->second.create_revision,
                                    it->second.mod_revision});
  }
  return result;
}

size_t MemoryStore::Count(std::string_view prefix) const {
  ReaderMutexLock data(data_mutex_);
  size_t count = 0;
  for (auto it = objects_.lower_bound(prefix);
       it != objects_.end() && HasPrefix(it->first, prefix); ++it) {
    ++count;
  }
  return count;
}

int64_t MemoryStore::Revision() const {
  ReaderMutexLock data(data_mutex_);
  return revision_;
}

int64_t MemoryStore::OldestWatchableRevision() const {
  MutexLock window(window_mutex_);
  return window_start_;
}

StatusOr<std::unique_ptr<Watcher>> MemoryStore::Watch(std::string prefix,
                                                      int64_t after_revision) {
  MutexLock window(window_mutex_);
  if (shutdown_) return Status(StatusCode::kCancelled, "store is shut down");
  if (after_revision < window_start_) {
    return OutOfRangeError(fmt::format("too old resource version: {} ({})",
                                       after_revision, window_start_));
  }
  return std::unique_ptr<Watcher>(
      new WindowWatcher(*this, std::move(prefix), after_revision));
}

StatusOr<std::vector<WatchEvent>> MemoryStore::EventsAfter(
    std::string_view prefix, int64_t& after, std::chrono::milliseconds wait,
    const bool* stopped, CondVar& wake) {
  MutexLock window(window_mutex_);
  // True when there is something to report; otherwise moves `after` past
  // the events scanned (none under `prefix`).
  const auto has_news = [&]() REQUIRES(window_mutex_) {
    if (shutdown_ || *stopped || after < window_start_) return true;
    if (window_.empty()) return false;
    for (size_t i = FirstEventAfter(after); i < window_.size(); ++i) {
      if (HasPrefix(window_[i].kv.key, prefix)) return true;
    }
    after = std::max(after, window_.back().kv.mod_revision);
    return false;
  };
  if (!has_news() && wait.count() > 0) {
    waiters_.push_back({prefix, &after, &wake});
    wake.WaitFor(window_mutex_, wait, has_news);
    std::erase_if(waiters_, [&](const Waiter& w) { return w.wake == &wake; });
  }
  if (shutdown_ || *stopped) {
    return Status(StatusCode::kCancelled, "watch stopped");
  }
  if (after < window_start_) {
    return OutOfRangeError(
        fmt::format("too old resource version: {} ({})", after, window_start_));
  }
  std::vector<WatchEvent> events;
  if (window_.empty()) return events;
  for (size_t i = FirstEventAfter(after); i < window_.size(); ++i) {
    if (HasPrefix(window_[i].kv.key, prefix)) events.push_back(window_[i]);
  }
  after = window_.back().kv.mod_revision;
  return events;
}

void MemoryStore::Shutdown() {
  MutexLock window(window_mutex_);
  shutdown_ = true;
  for (Waiter& waiter : waiters_) waiter.wake->SignalAll();
}

// Lists as of an earlier revision ---------------------------------------

StatusOr<ListResult> MemoryStore::ListAt(std::string_view prefix,
                                         std::string_view start, size_t limit,
                                         int64_t revision) const {
  const std::string_view from = start < prefix ? prefix : start;
  // The state at `revision` of every key written since: the state the
  // first later event replaced (nullopt: the key did not exist).
  struct Before {
    Value value;  // null: absent at `revision`
    int64_t create_revision = 0;
    int64_t mod_revision = 0;
  };
  std::map<std::string_view, Before, std::less<>> undone;

  // Writers update the map and the window under both locks (Apply):
  // holding both here gives a consistent pair.
  ReaderMutexLock data(data_mutex_);
  {
    MutexLock window(window_mutex_);
    if (revision == 0) revision = revision_;
    if (revision > revision_) {
      return InvalidArgumentError(fmt::format(
          "revision {} is newer than the store ({})", revision, revision_));
    }
    const int64_t oldest = std::max(window_start_, list_floor_);
    if (revision < oldest) {
      return OutOfRangeError(
          fmt::format("too old resource version: {} ({})", revision, oldest));
    }
    if (revision < revision_ && !window_.empty()) {
      for (size_t i = FirstEventAfter(revision); i < window_.size(); ++i) {
        const WatchEvent& event = window_[i];
        const std::string& key = event.kv.key;
        if (!HasPrefix(key, prefix) || key < from || undone.contains(key)) {
          continue;
        }
        Before before;
        if (event.type == WatchEvent::Type::kDelete) {
          before = {event.kv.value, event.kv.create_revision,
                    event.previous_mod_revision};
        } else if (event.previous) {
          before = {event.previous, event.kv.create_revision,
                    event.previous_mod_revision};
        }
        undone.emplace(key, std::move(before));
      }
    }
  }
  // Writers change the window only while holding data_mutex_ exclusively:
  // holding `data` keeps both (and the keys `undone` views) as they are.

  ListResult result;
  result.revision = revision;
  const auto emit = [&](std::string_view key, const Value& value,
                        int64_t create_revision, int64_t mod_revision) {
    if (limit != 0 && result.items.size() == limit) {
      result.more = true;
      ++result.remaining;
      return;
    }
    result.items.push_back(
        KeyValue{std::string(key), value, create_revision, mod_revision});
  };
  auto it = objects_.lower_bound(from);
  auto past = undone.begin();
  for (;;) {
    const bool current = it != objects_.end() && HasPrefix(it->first, prefix);
    const bool earlier = past != undone.end();
    if (!current && !earlier) break;
    if (earlier && (!current || past->first <= it->first)) {
      if (current && past->first == it->first) ++it;
      if (past->second.value) {
        emit(past->first, past->second.value, past->second.create_revision,
             past->second.mod_revision);
      }
      ++past;
    } else {
      emit(it->first, it->second.value, it->second.create_revision,
           it->second.mod_revision);
      ++it;
    }
  }
  return result;
}

int64_t MemoryStore::OldestListableRevision() const {
  MutexLock window(window_mutex_);
  return std::max(window_start_, list_floor_);
}

}  // namespace dralloc::store
