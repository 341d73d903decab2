#include "store/etcd_store.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <thread>
#include <utility>

#include "common/log.h"
#include "common/mutex.h"
#include "store/etcd_client.h"

namespace dralloc::store {
namespace {

using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;
using etcdserverpb::TxnRequest;
using etcdserverpb::TxnResponse;

// Keys per page when the replica loads everything.
constexpr int64_t kLoadPage = 1000;
// The watch asks its member for a progress report this often, and gives the
// member up when nothing arrived for kWatchSilence.
constexpr std::chrono::milliseconds kProgressPeriod{1000};
constexpr std::chrono::milliseconds kWatchSilence{5000};
// The key through which servers sharing one etcd agree on compactions (the
// same key as kube-apiserver's).
constexpr std::string_view kCompactRevisionKey = "compact_rev_key";

// The first key after every key with `prefix` (etcd's range_end).
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last < 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');  // every key
}

Value Stamped(const std::string& value, int64_t revision) {
  return std::make_shared<const std::string>(StampRevision(value, revision));
}

void AddCompare(TxnRequest& txn, const std::string& key,
                Precondition precondition) {
  if (precondition.kind == Precondition::Kind::kNone) return;
  Compare* compare = txn.add_compare();
  compare->set_key(key);
  compare->set_target(Compare::MOD);
  switch (precondition.kind) {
    case Precondition::Kind::kMustNotExist:
      compare->set_result(Compare::EQUAL);
      compare->set_mod_revision(0);
      break;
    case Precondition::Kind::kMustExist:
      compare->set_result(Compare::GREATER);
      compare->set_mod_revision(0);
      break;
    case Precondition::Kind::kModRevision:
      compare->set_result(Compare::EQUAL);
      compare->set_mod_revision(precondition.mod_revision);
      break;
    case Precondition::Kind::kNone:
      break;
  }
}

// Why a transaction's compare failed, from the key's state read in its
// failure branch (nullptr: absent).
Status PreconditionFailure(std::string_view key,
                           const mvccpb::KeyValue* current,
                           Precondition precondition) {
  if (current == nullptr) {
    return NotFoundError(fmt::format("key {} not found", key));
  }
  if (precondition.kind == Precondition::Kind::kMustNotExist) {
    return AlreadyExistsError(fmt::format("key {} already exists", key));
  }
  return Status(
      StatusCode::kAborted,
      fmt::format("key {} is at revision {}, not {}", key,
                  current->mod_revision(), precondition.mod_revision));
}

// Whether `precondition` holds for a key in state `current` (nullptr:
// absent).
bool Holds(const mvccpb::KeyValue* current, Precondition precondition) {
  switch (precondition.kind) {
    case Precondition::Kind::kNone:
      return true;
    case Precondition::Kind::kMustNotExist:
      return current == nullptr;
    case Precondition::Kind::kMustExist:
      return current != nullptr;
    case Precondition::Kind::kModRevision:
      return current != nullptr &&
             current->mod_revision() == precondition.mod_revision;
  }
  return true;
}

// A transaction refused only because the replica was behind etcd.
constexpr std::string_view kStaleReplica = "the replica was behind etcd";

using WatchStream = grpc::ClientReaderWriter<etcdserverpb::WatchRequest,
                                             etcdserverpb::WatchResponse>;

// Asks the watch's member for a progress report every kProgressPeriod and
// cancels the stream when nothing at all arrived for kWatchSilence (a
// member that is stopped or cut off never closes the stream itself).
class WatchPinger {
 public:
  WatchPinger(WatchStream& stream, grpc::ClientContext& context)
      : stream_(stream),
        context_(context),
        last_heard_(std::chrono::steady_clock::now()),
        thread_([this] { Run(); }) {}
  ~WatchPinger() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      reading_ = false;
      wake_.SignalAll();
    }
    thread_.join();
  }
  // Asks for a progress report now.
  void Poke() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    poke_ = true;
    wake_.SignalAll();
  }
  // The stream delivered a response.
  void Heard() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    last_heard_ = std::chrono::steady_clock::now();
  }

 private:
  void Run() EXCLUDES(mu_) {
    etcdserverpb::WatchRequest progress;
    progress.mutable_progress_request();
    for (;;) {
      {
        MutexLock lock(mu_);
        wake_.WaitFor(mu_, kProgressPeriod,
                      [&]() REQUIRES(mu_) { return !reading_ || poke_; });
        if (!reading_) return;
        poke_ = false;
        if (std::chrono::steady_clock::now() - last_heard_ > kWatchSilence) {
          context_.TryCancel();
          return;
        }
      }
      if (!stream_.Write(progress)) return;
    }
  }

  WatchStream& stream_;
  grpc::ClientContext& context_;
  Mutex mu_;
  CondVar wake_;
  bool reading_ GUARDED_BY(mu_) = true;
  bool poke_ GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point last_heard_ GUARDED_BY(mu_);
  std::thread thread_;  // last: starts once the members above exist
};

class EtcdStore : public Store {
 public:
  EtcdStore(EtcdOptions options, std::unique_ptr<EtcdClient> client)
      : options_(std::move(options)),
        client_(std::move(client)),
        range_start_(options_.prefix + "/"),
        range_end_(PrefixEnd(range_start_)) {}
  ~EtcdStore() override;

  // Loads the replica and starts the watch and compaction threads.
  Status Start();

  StatusOr<KeyValue> Put(std::string_view key, Precondition precondition,
                         const ValueEncoder& encode) override;
  StatusOr<KeyValue> Delete(std::string_view key,
                            Precondition precondition) override;
  std::optional<KeyValue> Get(std::string_view key) const override {
    return mirror_->Get(key);
  }
  ListResult List(std::string_view prefix, std::string_view start_after,
                  size_t limit) const override {
    return mirror_->List(prefix, start_after, limit);
  }
  StatusOr<ListResult> ListAt(std::string_view prefix, std::string_view start,
                              size_t limit, int64_t revision) const override {
    return mirror_->ListAt(prefix, start, limit, revision);
  }
  int64_t OldestListableRevision() const override {
    return mirror_->OldestListableRevision();
  }
  size_t Count(std::string_view prefix) const override {
    return mirror_->Count(prefix);
  }
  int64_t Revision() const override { return mirror_->Revision(); }
  StatusOr<std::unique_ptr<Watcher>> Watch(std::string prefix,
                                           int64_t after_revision) override {
    return mirror_->Watch(std::move(prefix), after_revision);
  }
  int64_t OldestWatchableRevision() const override {
    return mirror_->OldestWatchableRevision();
  }
  void Shutdown() override EXCLUDES(mu_);
  bool Shared() const override { return true; }
  Status Sync() override EXCLUDES(mu_);
  StatusOr<KeyValue> PutReserving(std::string_view key,
                                  Precondition precondition,
                                  const ValueEncoder& encode,
                                  const Reservations& reservations) override;
  StatusOr<KeyValue> DeleteReleasing(
      std::string_view key, Precondition precondition,
      const std::vector<std::string>& release) override;

 private:
  struct Snapshot {
    std::vector<KeyValue> items;
    int64_t revision = 0;
  };

  std::string EtcdKey(std::string_view key) const {
    return options_.prefix + std::string(key);
  }
  std::string StoreKey(const std::string& etcd_key) const {
    return etcd_key.substr(options_.prefix.size());
  }
  // A put (`value`) or delete (nullopt) of `key` with `reservations`, as
  // one transaction, retried while the replica is behind.
  StatusOr<KeyValue> Write(std::string_view key, Precondition precondition,
                           std::optional<std::string> value,
                           const Reservations& reservations);
  StatusOr<KeyValue> TryWrite(std::string_view key, Precondition precondition,
                              const std::optional<std::string>& value,
                              const Reservations& reservations);
  // `key` as etcd has it now (a linearizable read).
  StatusOr<std::optional<KeyValue>> ReadKey(std::string_view key) const;
  // Adds the compares and operations of `reservations` (seen from the
  // replica, or from etcd when the replica shows a key to take held by
  // another); kFailedPrecondition when etcd confirms it is.
  Status AddReservations(etcdserverpb::TxnRequest& txn, std::string_view key,
                         const Reservations& reservations) const;
  // Why etcd refused the transaction (its failure branch read the key and
  // each key to take): kStaleReplica (kAborted) when nothing but the
  // replica's view was wrong.
  StatusOr<KeyValue> Refused(std::string_view key, Precondition precondition,
                             const std::optional<std::string>& value,
                             const Reservations& reservations,
                             const etcdserverpb::TxnResponse& response,
                             bool retried);
  // Every key under the prefix, as of one revision.
  StatusOr<Snapshot> LoadAll();
  // The events of one watch response, as the replica stores them.
  std::vector<WatchEvent> Convert(const etcdserverpb::WatchResponse& response);

  void WatchLoop() EXCLUDES(mu_);
  // One watch stream on the current member, from `after` + 1, until it
  // fails; kOutOfRange when etcd compacted past `after`.
  Status RunWatchStream(int64_t after) EXCLUDES(mu_);
  // Applies the stream's events to the replica until the stream ends.
  Status ReadWatchStream(WatchStream& stream, WatchPinger& pinger,
                         int64_t after) EXCLUDES(mu_);
  // Reloads the replica after it fell behind a compaction.
  void Reload() EXCLUDES(mu_);
  void Applied(int64_t revision) EXCLUDES(mu_);
  void Reported(int64_t revision) EXCLUDES(mu_);
  // Waits (bounded) until the replica holds the write at `revision`.
  void AwaitReplica(int64_t revision) EXCLUDES(mu_);
  void CompactLoop() EXCLUDES(mu_);
  // Sleeps up to `period`; false once the store is shutting down.
  bool Idle(std::chrono::milliseconds period) EXCLUDES(mu_);

  const EtcdOptions options_;
  const std::unique_ptr<EtcdClient> client_;
  const std::string range_start_;  // PREFIX + "/"
  const std::string range_end_;
  std::unique_ptr<MemoryStore> mirror_;

  Mutex mu_;
  CondVar changed_;  // stopping_ (for the background loops)
  // The newest revision of an event the replica applied.
  int64_t applied_ GUARDED_BY(mu_) = 0;
  // The newest revision a progress report announced, and when it came.
  // etcd 3.4 before 3.4.24 may send a report before the events it covers
  // (etcd issue 15220), so a report alone neither moves the replica nor
  // acknowledges a write; Sync trusts one only once it has aged.
  int64_t reported_ GUARDED_BY(mu_) = 0;
  std::chrono::steady_clock::time_point reported_at_ GUARDED_BY(mu_);
  // Writers waiting for the replica, by the revision they wait for: each
  // applied batch wakes only the writers it satisfies.
  std::multimap<int64_t, CondVar*> awaiting_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  grpc::ClientContext* watch_context_ GUARDED_BY(mu_) = nullptr;
  WatchPinger* pinger_ GUARDED_BY(mu_) = nullptr;
  std::thread watch_thread_;
  std::thread compact_thread_;
};

StatusOr<EtcdStore::Snapshot> EtcdStore::LoadAll() {
  Snapshot snapshot;
  std::string from = range_start_;
  for (;;) {
    RangeRequest request;
    request.set_key(from);
    request.set_range_end(range_end_);
    request.set_limit(kLoadPage);
    request.set_revision(snapshot.revision);  // 0 on the first page
    auto page = client_->Range(request);
    if (!page.ok()) return page.status();
    if (snapshot.revision == 0) snapshot.revision = page->header().revision();
    for (const mvccpb::KeyValue& kv : page->kvs()) {
      snapshot.items.push_back(
          KeyValue{StoreKey(kv.key()), Stamped(kv.value(), kv.mod_revision()),
                   kv.create_revision(), kv.mod_revision()});
    }
    if (!page->more() || page->kvs().empty()) return snapshot;
    from = page->kvs().rbegin()->key() + std::string(1, '\0');
  }
}

Status EtcdStore::Start() {
  const auto deadline =
      std::chrono::steady_clock::now() + options_.start_timeout;
  StatusOr<Snapshot> snapshot = LoadAll();
  while (!snapshot.ok() && std::chrono::steady_clock::now() < deadline) {
    log::Warn("etcd", "waiting for etcd at {}: {}", client_->endpoints(),
              snapshot.status().message());
    std::this_thread::sleep_for(std::chrono::seconds(1));
    snapshot = LoadAll();
  }
  if (!snapshot.ok()) {
    return Status(
        StatusCode::kUnavailable,
        fmt::format("--storage etcd:{}: etcd did not answer within "
                    "{}s: {}",
                    client_->endpoints(), options_.start_timeout.count(),
                    snapshot.status().message()));
  }
  log::Info("etcd", "loaded {} objects under {} at revision {} from {}",
            snapshot->items.size(), options_.prefix, snapshot->revision,
            client_->endpoints());
  mirror_ = std::make_unique<MemoryStore>(
      options_.window, nullptr, std::move(snapshot->items), snapshot->revision);
  {
    MutexLock lock(mu_);
    applied_ = snapshot->revision;
  }
  watch_thread_ = std::thread([this] { WatchLoop(); });
  if (options_.compaction_interval.count() > 0) {
    compact_thread_ = std::thread([this] { CompactLoop(); });
  }
  return OkStatus();
}

EtcdStore::~EtcdStore() {
  Shutdown();
  if (watch_thread_.joinable()) watch_thread_.join();
  if (compact_thread_.joinable()) compact_thread_.join();
}

void EtcdStore::Shutdown() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    if (watch_context_ != nullptr) watch_context_->TryCancel();
    changed_.SignalAll();
    for (auto& [revision, waiter] : awaiting_) waiter->Signal();
  }
  if (mirror_) mirror_->Shutdown();
}

bool EtcdStore::Idle(std::chrono::milliseconds period) {
  MutexLock lock(mu_);
  changed_.WaitFor(mu_, period, [&]() REQUIRES(mu_) { return stopping_; });
  return !stopping_;
}

// Writes ----------------------------------------------------------------

StatusOr<KeyValue> EtcdStore::Put(std::string_view key,
                                  Precondition precondition,
                                  const ValueEncoder& encode) {
  return Write(key, precondition, encode(kRevisionAtCommit), {});
}

StatusOr<KeyValue> EtcdStore::PutReserving(std::string_view key,
                                           Precondition precondition,
                                           const ValueEncoder& encode,
                                           const Reservations& reservations) {
  return Write(key, precondition, encode(kRevisionAtCommit), reservations);
}

StatusOr<KeyValue> EtcdStore::Delete(std::string_view key,
                                     Precondition precondition) {
  return DeleteReleasing(key, precondition, {});
}

StatusOr<KeyValue> EtcdStore::DeleteReleasing(
    std::string_view key, Precondition precondition,
    const std::vector<std::string>& release) {
  if (precondition.kind == Precondition::Kind::kMustNotExist) {
    return InvalidArgumentError("a delete cannot require a missing key");
  }
  // Deleting a missing key fails, as it does in every backend.
  if (precondition.kind == Precondition::Kind::kNone) {
    precondition = Precondition::MustExist();
  }
  return Write(key, precondition, std::nullopt,
               {.take = {}, .release = release});
}

StatusOr<std::optional<KeyValue>> EtcdStore::ReadKey(
    std::string_view key) const {
  RangeRequest request;
  request.set_key(EtcdKey(key));
  auto response = client_->Range(request);
  if (!response.ok()) return response.status();
  if (response->kvs().empty()) return std::optional<KeyValue>();
  const mvccpb::KeyValue& kv = response->kvs(0);
  return std::optional<KeyValue>(
      KeyValue{std::string(key), Stamped(kv.value(), kv.mod_revision()),
               kv.create_revision(), kv.mod_revision()});
}

Status EtcdStore::AddReservations(TxnRequest& txn, std::string_view key,
                                  const Reservations& reservations) const {
  for (const std::string& taken : reservations.take) {
    const std::string etcd_key = EtcdKey(taken);
    Compare* compare = txn.add_compare();
    compare->set_key(etcd_key);
    std::optional<KeyValue> holder = mirror_->Get(taken);
    if (holder && *holder->value != key) {
      // The replica may be behind a release: ask etcd.
      auto current = ReadKey(taken);
      if (!current.ok()) return current.status();
      holder = std::move(*current);
    }
    if (!holder) {
      compare->set_target(Compare::MOD);
      compare->set_result(Compare::EQUAL);
      compare->set_mod_revision(0);
    } else if (*holder->value == key) {
      compare->set_target(Compare::VALUE);
      compare->set_result(Compare::EQUAL);
      compare->set_value(std::string(key));
    } else {
      return FailedPreconditionError(
          fmt::format("{} is held by {}", taken, *holder->value));
    }
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(etcd_key);
    put->set_value(std::string(key));
    txn.add_failure()->mutable_request_range()->set_key(etcd_key);
  }
  for (const std::string& released : reservations.release) {
    const std::optional<KeyValue> holder = mirror_->Get(released);
    if (!holder || *holder->value != key) continue;
    const std::string etcd_key = EtcdKey(released);
    Compare* compare = txn.add_compare();
    compare->set_key(etcd_key);
    compare->set_target(Compare::VALUE);
    compare->set_result(Compare::EQUAL);
    compare->set_value(std::string(key));
    txn.add_success()->mutable_request_delete_range()->set_key(etcd_key);
  }
  return OkStatus();
}

StatusOr<KeyValue> EtcdStore::Write(std::string_view key,
                                    Precondition precondition,
                                    std::optional<std::string> value,
                                    const Reservations& reservations) {
  // A reservation compare can fail only because the replica was behind
  // etcd: try again once it has caught up.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    auto outcome = TryWrite(key, precondition, value, reservations);
    if (outcome.ok() || outcome.status().code() != StatusCode::kAborted ||
        outcome.status().message() != kStaleReplica || attempt == kAttempts) {
      return outcome;
    }
  }
}

StatusOr<KeyValue> EtcdStore::TryWrite(std::string_view key,
                                       Precondition precondition,
                                       const std::optional<std::string>& value,
                                       const Reservations& reservations) {
  const std::string etcd_key = EtcdKey(key);
  TxnRequest txn;
  AddCompare(txn, etcd_key, precondition);
  if (value) {
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(etcd_key);
    put->set_value(*value);
    put->set_prev_kv(true);
  } else {
    auto* deletion = txn.add_success()->mutable_request_delete_range();
    deletion->set_key(etcd_key);
    deletion->set_prev_kv(true);
  }
  txn.add_failure()->mutable_request_range()->set_key(etcd_key);
  if (Status s = AddReservations(txn, key, reservations); !s.ok()) return s;
  bool retried = false;
  auto response = client_->Txn(txn, EtcdClient::Retry::kSafe, &retried);
  if (!response.ok()) return response.status();
  if (!response->succeeded()) {
    return Refused(key, precondition, value, reservations, *response, retried);
  }
  const int64_t revision = response->header().revision();
  AwaitReplica(revision);
  if (!value) {
    const auto& deleted = response->responses(0).response_delete_range();
    if (deleted.prev_kvs().empty()) {
      return NotFoundError(fmt::format("key {} not found", key));
    }
    const mvccpb::KeyValue& last = deleted.prev_kvs(0);
    return KeyValue{std::string(key),
                    Stamped(last.value(), last.mod_revision()),
                    last.create_revision(), revision};
  }
  const auto& put = response->responses(0).response_put();
  const int64_t create_revision =
      put.has_prev_kv() ? put.prev_kv().create_revision() : revision;
  return KeyValue{std::string(key), Stamped(*value, revision), create_revision,
                  revision};
}

StatusOr<KeyValue> EtcdStore::Refused(std::string_view key,
                                      Precondition precondition,
                                      const std::optional<std::string>& value,
                                      const Reservations& reservations,
                                      const TxnResponse& response,
                                      bool retried) {
  const auto& kvs = response.responses(0).response_range().kvs();
  const mvccpb::KeyValue* current = kvs.empty() ? nullptr : &kvs[0];
  // A retried put whose first attempt was applied finds its own value.
  if (retried && value && current != nullptr && current->value() == *value) {
    AwaitReplica(current->mod_revision());
    return KeyValue{std::string(key), Stamped(*value, current->mod_revision()),
                    current->create_revision(), current->mod_revision()};
  }
  if (!Holds(current, precondition)) {
    return PreconditionFailure(key, current, precondition);
  }
  for (size_t i = 0; i < reservations.take.size(); ++i) {
    const auto& held =
        response.responses(static_cast<int>(i) + 1).response_range().kvs();
    if (!held.empty() && held[0].value() != key) {
      return FailedPreconditionError(fmt::format(
          "{} is held by {}", reservations.take[i], held[0].value()));
    }
  }
  AwaitReplica(response.header().revision());
  return Status(StatusCode::kAborted, std::string(kStaleReplica));
}

void EtcdStore::Applied(int64_t revision) {
  MutexLock lock(mu_);
  if (revision > applied_) applied_ = revision;
  for (auto it = awaiting_.begin();
       it != awaiting_.end() && it->first <= applied_; ++it) {
    it->second->Signal();
  }
}

void EtcdStore::AwaitReplica(int64_t revision) {
  MutexLock lock(mu_);
  CondVar wake;
  const auto entry = awaiting_.emplace(revision, &wake);
  const bool reached = wake.WaitFor(
      mu_, client_->request_timeout(),
      [&]() REQUIRES(mu_) { return applied_ >= revision || stopping_; });
  awaiting_.erase(entry);
  if (!reached) {
    log::Warn("etcd",
              "revision {} is written but the watch has not delivered it "
              "within {} ms; reads may not show it yet",
              revision, client_->request_timeout().count());
  }
}

Status EtcdStore::Sync() {
  // etcd's current revision, from the header of a linearizable read of
  // one key (a count over the prefix would cost one step per object), then
  // the replica must reach it: through events, or a progress report when
  // the newest writes were outside the prefix.
  RangeRequest request;
  request.set_key(std::string(kCompactRevisionKey));
  request.set_keys_only(true);
  auto response = client_->Range(request);
  if (!response.ok()) return response.status();
  const int64_t target = response->header().revision();
  // A progress report at or past `target` that no event has overtaken for
  // this long covers the writes outside the prefix.
  constexpr auto kReportAge = std::chrono::milliseconds(100);
  const auto deadline =
      std::chrono::steady_clock::now() + client_->request_timeout();
  MutexLock lock(mu_);
  const auto synced = [&]() REQUIRES(mu_) {
    return applied_ >= target ||
           (reported_ >= target &&
            std::chrono::steady_clock::now() - reported_at_ >= kReportAge);
  };
  if (synced()) return OkStatus();
  if (pinger_ != nullptr) pinger_->Poke();
  CondVar wake;
  const auto entry = awaiting_.emplace(target, &wake);
  while (!synced() && !stopping_ &&
         std::chrono::steady_clock::now() < deadline) {
    wake.WaitFor(mu_, std::chrono::milliseconds(20),
                 [&]() REQUIRES(mu_) { return synced() || stopping_; });
  }
  awaiting_.erase(entry);
  if (synced()) return OkStatus();
  return Status(StatusCode::kDeadlineExceeded,
                fmt::format("the watch of etcd at {} has not reached revision "
                            "{} (at {})",
                            client_->endpoints(), target, applied_));
}

void EtcdStore::Reported(int64_t revision) {
  MutexLock lock(mu_);
  if (revision > reported_) {
    reported_ = revision;
    reported_at_ = std::chrono::steady_clock::now();
  }
}

// The replica -----------------------------------------------------------

std::vector<WatchEvent> EtcdStore::Convert(
    const etcdserverpb::WatchResponse& response) {
  std::vector<WatchEvent> events;
  events.reserve(response.events_size());
  for (const mvccpb::Event& in : response.events()) {
    WatchEvent event;
    const mvccpb::KeyValue& kv = in.kv();
    std::string key = StoreKey(kv.key());
    const bool has_prev = in.has_prev_kv() && in.prev_kv().mod_revision() > 0;
    Value previous;
    int64_t previous_mod = 0;
    int64_t previous_create = 0;
    if (has_prev) {
      previous = Stamped(in.prev_kv().value(), in.prev_kv().mod_revision());
      previous_mod = in.prev_kv().mod_revision();
      previous_create = in.prev_kv().create_revision();
    } else if (auto known = mirror_->Get(key)) {
      // etcd leaves prev_kv out when that revision is compacted.
      previous = known->value;
      previous_mod = known->mod_revision;
      previous_create = known->create_revision;
    }
    if (in.type() == mvccpb::Event::DELETE) {
      event.type = WatchEvent::Type::kDelete;
      event.kv = KeyValue{std::move(key), previous, previous_create,
                          kv.mod_revision()};
      if (!event.kv.value) continue;  // a key the replica never had
    } else {
      event.type = WatchEvent::Type::kPut;
      event.kv =
          KeyValue{std::move(key), Stamped(kv.value(), kv.mod_revision()),
                   kv.create_revision(), kv.mod_revision()};
      if (kv.create_revision() != kv.mod_revision()) {
        event.previous = previous;
      }
    }
    event.previous_mod_revision = previous_mod;
    events.push_back(std::move(event));
  }
  return events;
}

void EtcdStore::WatchLoop() {
  std::chrono::milliseconds backoff{100};
  while (Idle(std::chrono::milliseconds(0))) {
    const size_t member = client_->current();
    const Status status = RunWatchStream(mirror_->Revision());
    if (!Idle(std::chrono::milliseconds(0))) return;
    if (status.code() == StatusCode::kOutOfRange) {
      log::Warn("etcd", "watch fell behind compaction ({}); reloading",
                status.message());
      Reload();
      continue;
    }
    log::Warn("etcd", "watch on {} ended: {}", client_->endpoint(member),
              status.message());
    client_->FailOver(member);
    if (!Idle(backoff)) return;
    backoff = std::min(backoff * 2, std::chrono::milliseconds{2000});
  }
}

void EtcdStore::Reload() {
  for (;;) {
    auto snapshot = LoadAll();
    if (snapshot.ok()) {
      const int64_t revision = snapshot->revision;
      mirror_->ResetReplica(std::move(snapshot->items), revision);
      Applied(revision);
      return;
    }
    log::Warn("etcd", "reload failed: {}", snapshot.status().message());
    if (!Idle(std::chrono::milliseconds(1000))) return;
  }
}

Status EtcdStore::RunWatchStream(int64_t after) {
  grpc::ClientContext context;
  {
    MutexLock lock(mu_);
    if (stopping_) return Status(StatusCode::kCancelled, "shutting down");
    watch_context_ = &context;
  }
  auto stream = client_->OpenWatch(context);
  etcdserverpb::WatchRequest create;
  auto* request = create.mutable_create_request();
  request->set_key(range_start_);
  request->set_range_end(range_end_);
  request->set_start_revision(after + 1);
  request->set_prev_kv(true);
  request->set_progress_notify(true);
  Status ended = Status(StatusCode::kUnavailable, "watch stream closed");
  if (stream->Write(create)) {
    WatchPinger pinger(*stream, context);
    {
      MutexLock lock(mu_);
      pinger_ = &pinger;
    }
    ended = ReadWatchStream(*stream, pinger, after);
    context.TryCancel();  // unblocks a pinger caught in a write
    MutexLock lock(mu_);
    pinger_ = nullptr;
  }
  context.TryCancel();
  const grpc::Status finished = stream->Finish();
  {
    MutexLock lock(mu_);
    watch_context_ = nullptr;
  }
  if (ended.code() == StatusCode::kOutOfRange) return ended;
  if (!finished.ok() && finished.error_code() != grpc::StatusCode::CANCELLED) {
    return EtcdCallStatus("watch", finished,
                          client_->endpoint(client_->current()));
  }
  return ended;
}

Status EtcdStore::ReadWatchStream(WatchStream& stream, WatchPinger& pinger,
                                  int64_t after) {
  etcdserverpb::WatchResponse response;
  while (stream.Read(&response)) {
    pinger.Heard();
    if (response.canceled()) {
      if (response.compact_revision() > 0) {
        return OutOfRangeError(
            fmt::format("revision {} is compacted (oldest {})", after + 1,
                        response.compact_revision()));
      }
      return Status(StatusCode::kUnavailable,
                    "watch canceled: " + response.cancel_reason());
    }
    if (response.created()) continue;
    if (response.events().empty()) {
      // A progress report (see reported_ for how far it is trusted).
      Reported(response.header().revision());
      continue;
    }
    std::vector<WatchEvent> events = Convert(response);
    after = response.events().rbegin()->kv().mod_revision();
    if (!events.empty()) mirror_->ApplyReplicated(std::move(events));
    Applied(after);
  }
  return Status(StatusCode::kUnavailable, "watch stream closed");
}

// Compaction ------------------------------------------------------------

void EtcdStore::CompactLoop() {
  int64_t known_version = 0;  // of compact_rev_key, as last seen
  const std::string key(kCompactRevisionKey);
  while (Idle(options_.compaction_interval)) {
    TxnRequest txn;
    Compare* compare = txn.add_compare();
    compare->set_key(key);
    compare->set_target(Compare::VERSION);
    compare->set_result(Compare::EQUAL);
    compare->set_version(known_version);
    auto* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(std::to_string(mirror_->Revision()));
    put->set_prev_kv(true);
    txn.add_failure()->mutable_request_range()->set_key(key);
    auto response = client_->Txn(txn, EtcdClient::Retry::kUnreachable);
    if (!response.ok()) {
      log::Warn("etcd", "compaction round failed: {}",
                response.status().message());
      continue;
    }
    if (!response->succeeded()) {
      // Another server won this round; follow its count.
      const auto& kvs = response->responses(0).response_range().kvs();
      known_version = kvs.empty() ? 0 : kvs[0].version();
      continue;
    }
    ++known_version;
    // Compact to the revision recorded one round earlier, by whichever
    // server won that round: watches keep one interval of history.
    const auto& put_response = response->responses(0).response_put();
    const int64_t target =
        put_response.has_prev_kv()
            ? std::atoll(put_response.prev_kv().value().c_str())
            : 0;
    if (target <= 0) continue;
    auto compacted = client_->Compact(target);
    if (compacted.ok()) {
      log::Info("etcd", "compacted to revision {}", target);
    } else if (compacted.status().code() != StatusCode::kOutOfRange) {
      log::Warn("etcd", "compaction to {} failed: {}", target,
                compacted.status().message());
    }
  }
}

}  // namespace

StatusOr<std::vector<std::string>> ParseEtcdEndpoints(std::string_view list) {
  std::vector<std::string> endpoints;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view url = list.substr(0, comma);
    list = comma == std::string_view::npos ? "" : list.substr(comma + 1);
    if (url.starts_with("https://")) {
      return InvalidArgumentError(fmt::format(
          "etcd endpoint \"{}\": TLS to etcd is not supported yet; use "
          "http:// on a trusted network",
          url));
    }
    if (!url.starts_with("http://")) {
      return InvalidArgumentError(
          fmt::format("etcd endpoint \"{}\": expected http://HOST:PORT", url));
    }
    std::string_view host_port = url.substr(7);
    if (host_port.ends_with('/')) host_port.remove_suffix(1);
    const size_t colon = host_port.rfind(':');
    if (colon == std::string_view::npos || colon == 0 ||
        colon + 1 == host_port.size() ||
        host_port.substr(colon + 1).find_first_not_of("0123456789") !=
            std::string_view::npos) {
      return InvalidArgumentError(
          fmt::format("etcd endpoint \"{}\": expected http://HOST:PORT", url));
    }
    endpoints.emplace_back(host_port);
  }
  if (endpoints.empty()) {
    return InvalidArgumentError(
        "--storage etcd: needs at least one endpoint, e.g. "
        "etcd:http://127.0.0.1:2379");
  }
  return endpoints;
}

StatusOr<std::unique_ptr<Store>> OpenEtcdStore(EtcdOptions options) {
  if (!options.prefix.starts_with('/') || options.prefix.ends_with('/')) {
    return InvalidArgumentError(fmt::format(
        "--etcd-prefix \"{}\": must start with '/' and not end with one",
        options.prefix));
  }
  auto client =
      std::make_unique<EtcdClient>(options.endpoints, options.request_timeout);
  auto store =
      std::make_unique<EtcdStore>(std::move(options), std::move(client));
  if (Status status = store->Start(); !status.ok()) return status;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace dralloc::store
