// Store: the key-value interface every storage backend implements.
//
// Keys are strings ("/resourceclaims/default/claim-1"); values are the
// encoded objects. One global revision counts every write; it is the
// Kubernetes resourceVersion. A backend keeps a window of recent events so
// that watches can resume from a revision; a watch from before the window
// fails with kOutOfRange (HTTP 410 Gone).
//
// Errors: kAlreadyExists (create of an existing key), kNotFound (update or
// delete of a missing key), kAborted (a revision precondition failed:
// HTTP 409 Conflict), kOutOfRange (revision compacted), kUnavailable or
// kInternal (the backend failed; nothing was written).
//
// The same window serves lists as of an earlier revision (ListAt), which
// make paginated lists one consistent snapshot.
#ifndef DRALLOC_STORE_STORE_H_
#define DRALLOC_STORE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::store {

using Value = std::shared_ptr<const std::string>;

struct KeyValue {
  std::string key;
  Value value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;  // for a deletion event: the deletion revision
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  // After a put: the new state. After a delete: the last state, with
  // mod_revision set to the revision of the deletion.
  KeyValue kv;
  // For a put that replaced a value: that value (selector-filtered watches
  // turn an object that stops matching into a deletion).
  Value previous;
  // The mod_revision of the state this event replaced or deleted (0 when
  // the key did not exist); lists as of an earlier revision undo the event
  // with it. For a delete, the previous state is `kv` with this revision.
  int64_t previous_mod_revision = 0;
  // True for a put that created the key.
  bool created() const {
    return type == Type::kPut && kv.create_revision == kv.mod_revision;
  }
};

// What a write requires of the key's current state.
struct Precondition {
  enum class Kind { kNone, kMustNotExist, kMustExist, kModRevision };
  Kind kind = Kind::kNone;
  int64_t mod_revision = 0;  // for kModRevision

  static Precondition None() { return {}; }
  static Precondition MustNotExist() { return {Kind::kMustNotExist, 0}; }
  static Precondition MustExist() { return {Kind::kMustExist, 0}; }
  static Precondition AtRevision(int64_t revision) {
    return {Kind::kModRevision, revision};
  }
};

// Builds the value to store once the write's revision is known (objects
// carry their resourceVersion). Runs while the store serialises writes, so
// it must be quick and must not call back into the store.
//
// A backend whose revisions are assigned by a server only as the write
// commits (etcd) passes kRevisionAtCommit instead: the value must then hold
// kRevisionMarker where the revision goes, and the backend puts the
// revision in its place (StampRevision) in every value it returns.
using ValueEncoder = std::function<std::string(int64_t revision)>;
inline constexpr int64_t kRevisionAtCommit = -1;
inline constexpr std::string_view kRevisionMarker = "@revision@";

// `value` with its first kRevisionMarker replaced by `revision` (decimal);
// unchanged when it has none.
std::string StampRevision(std::string value, int64_t revision);

struct ListResult {
  std::vector<KeyValue> items;  // key order
  int64_t revision = 0;         // the store revision the list reflects
  bool more = false;            // items remain after the last one returned
  // From ListAt: how many keys under the prefix follow the last item
  // returned (0 unless `more`).
  size_t remaining = 0;
};

// Keys a write takes or gives up for the key it writes, in the same atomic
// step. The API server keeps one key per exclusively allocated device so
// that servers sharing a store never give one device to two claims.
struct Reservations {
  // Each must be free or already held by the written key; afterwards the
  // written key holds it (its value is the written key).
  std::vector<std::string> take;
  // Deleted when held by the written key.
  std::vector<std::string> release;
};

// A stream of events for keys under one prefix, after a start revision.
class Watcher {
 public:
  virtual ~Watcher() = default;
  // Waits up to `timeout` for events and returns those available (possibly
  // none on timeout), in revision order. kOutOfRange when the watcher fell
  // behind the event window; kCancelled after Stop() or store shutdown.
  virtual StatusOr<std::vector<WatchEvent>> Next(
      std::chrono::milliseconds timeout) = 0;
  // The revision of the last event delivered (or the start revision).
  virtual int64_t revision() const = 0;
  // Wakes a blocked Next(); later calls return kCancelled.
  virtual void Stop() = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Writes `encode(revision)` at `key` if `precondition` holds.
  virtual StatusOr<KeyValue> Put(std::string_view key,
                                 Precondition precondition,
                                 const ValueEncoder& encode) = 0;
  // Deletes `key`; returns its last state with the deletion revision.
  virtual StatusOr<KeyValue> Delete(std::string_view key,
                                    Precondition precondition) = 0;
  virtual std::optional<KeyValue> Get(std::string_view key) const = 0;
  // Keys with `prefix`, strictly after `start_after` (empty: from the
  // start), at most `limit` (0: no limit).
  virtual ListResult List(std::string_view prefix, std::string_view start_after,
                          size_t limit) const = 0;
  // Keys with `prefix`, from `start` on (inclusive; empty: from the
  // start), at most `limit` (0: no limit), as they were at `revision` (0:
  // the current revision), with `remaining` counted. kOutOfRange when
  // `revision` is older than OldestListableRevision(); kInvalidArgument
  // when it is newer than Revision().
  virtual StatusOr<ListResult> ListAt(std::string_view prefix,
                                      std::string_view start, size_t limit,
                                      int64_t revision) const = 0;
  // The oldest revision ListAt can serve.
  virtual int64_t OldestListableRevision() const = 0;
  // Number of keys under `prefix`.
  virtual size_t Count(std::string_view prefix) const = 0;
  virtual int64_t Revision() const = 0;
  // Events for keys under `prefix` with revision > `after_revision`.
  virtual StatusOr<std::unique_ptr<Watcher>> Watch(std::string prefix,
                                                   int64_t after_revision) = 0;
  // The oldest revision a watch can start after.
  virtual int64_t OldestWatchableRevision() const = 0;
  // Wakes and cancels every watcher (server shutdown).
  virtual void Shutdown() = 0;

  // Waits until reads reflect every write acknowledged before the call,
  // through any server sharing the store: the next Get or List is a
  // linearizable read. Embedded stores are always in sync. kUnavailable or
  // kDeadlineExceeded when that cannot be established.
  virtual Status Sync() { return OkStatus(); }

  // True when several servers may write the store at once (etcd). Their
  // writes that must exclude one another use reservations.
  virtual bool Shared() const { return false; }
  // Put and Delete that also apply `reservations` (Delete: releases only)
  // atomically. kFailedPrecondition "KEY is held by HOLDER" when a key to
  // take is held by another key; nothing is written then. Only Shared()
  // backends implement them (kUnimplemented otherwise): an embedded store
  // has one server, whose in-process index is the guard.
  virtual StatusOr<KeyValue> PutReserving(std::string_view key,
                                          Precondition precondition,
                                          const ValueEncoder& encode,
                                          const Reservations& reservations);
  virtual StatusOr<KeyValue> DeleteReleasing(
      std::string_view key, Precondition precondition,
      const std::vector<std::string>& release);
};

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_STORE_H_
