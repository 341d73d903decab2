// TimedStore: a Store that forwards to another and records each
// operation's latency in the server's metrics
// (apiserver_storage_duration_seconds{operation=...}).
#ifndef DRALLOC_APISERVER_TIMED_STORE_H_
#define DRALLOC_APISERVER_TIMED_STORE_H_

#include <chrono>
#include <memory>
#include <string>
#include <type_traits>

#include "apiserver/metrics.h"
#include "store/store.h"

namespace dralloc::apiserver {

class TimedStore : public store::Store {
 public:
  TimedStore(store::Store& inner, Metrics& metrics)
      : inner_(inner), metrics_(metrics) {}

  StatusOr<store::KeyValue> Put(std::string_view key,
                                store::Precondition precondition,
                                const store::ValueEncoder& encode) override {
    return Timed("put", [&] { return inner_.Put(key, precondition, encode); });
  }
  StatusOr<store::KeyValue> Delete(std::string_view key,
                                   store::Precondition precondition) override {
    return Timed("delete", [&] { return inner_.Delete(key, precondition); });
  }
  std::optional<store::KeyValue> Get(std::string_view key) const override {
    return Timed("get", [&] { return inner_.Get(key); });
  }
  store::ListResult List(std::string_view prefix, std::string_view start_after,
                         size_t limit) const override {
    return Timed("list",
                 [&] { return inner_.List(prefix, start_after, limit); });
  }
  StatusOr<store::ListResult> ListAt(std::string_view prefix,
                                     std::string_view start, size_t limit,
                                     int64_t revision) const override {
    return Timed("list",
                 [&] { return inner_.ListAt(prefix, start, limit, revision); });
  }
  int64_t OldestListableRevision() const override {
    return inner_.OldestListableRevision();
  }
  size_t Count(std::string_view prefix) const override {
    return inner_.Count(prefix);
  }
  int64_t Revision() const override { return inner_.Revision(); }
  StatusOr<std::unique_ptr<store::Watcher>> Watch(
      std::string prefix, int64_t after_revision) override {
    return inner_.Watch(std::move(prefix), after_revision);
  }
  int64_t OldestWatchableRevision() const override {
    return inner_.OldestWatchableRevision();
  }
  void Shutdown() override { inner_.Shutdown(); }
  bool Shared() const override { return inner_.Shared(); }
  Status Sync() override {
    return Timed("sync", [&] { return inner_.Sync(); });
  }
  StatusOr<store::KeyValue> PutReserving(
      std::string_view key, store::Precondition precondition,
      const store::ValueEncoder& encode,
      const store::Reservations& reservations) override {
    return Timed("put", [&] {
      return inner_.PutReserving(key, precondition, encode, reservations);
    });
  }
  StatusOr<store::KeyValue> DeleteReleasing(
      std::string_view key, store::Precondition precondition,
      const std::vector<std::string>& release) override {
    return Timed("delete", [&] {
      return inner_.DeleteReleasing(key, precondition, release);
    });
  }

 private:
  // Runs `fn` and records how long it took under `operation`.
  template <typename Fn>
  std::invoke_result_t<Fn> Timed(const char* operation, Fn&& fn) const {
    const auto start = std::chrono::steady_clock::now();
    auto result = fn();
    metrics_.ObserveStorage(
        operation,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    return result;
  }

  store::Store& inner_;
  Metrics& metrics_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_TIMED_STORE_H_
