#include "store/sqlite_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stop_token>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::store {
namespace {

// Writes the WAL's dirty pages back to disk in the background. A checkpoint
// runs inside a commit and fsyncs the WAL first, stalling every writer until
// the log since the last checkpoint (up to 16 MiB) reaches the disk; with
// the log flushed as it is written, that fsync finds little left to do.
// Durability does not depend on this thread: SQLite's own syncs stay.
class WalFlusher {
 public:
  explicit WalFlusher(std::string wal_path)
      : wal_path_(std::move(wal_path)),
        thread_([this](std::stop_token stop) { Run(stop); }) {}
  WalFlusher(const WalFlusher&) = delete;
  WalFlusher& operator=(const WalFlusher&) = delete;
  ~WalFlusher() {
    thread_.request_stop();
    thread_.join();
    if (fd_ >= 0) close(fd_);
  }

  // Called after each commit. Wakes the thread only when it was idle (the
  // first commit after a quiet period), so a busy writer pays one atomic
  // exchange per commit.
  void NoteCommit() {
    if (written_.exchange(true, std::memory_order_relaxed)) return;
    // Under the mutex: the thread checks the flag and sleeps atomically.
    MutexLock lock(mutex_);
    wake_.notify_one();
  }

 private:
  // Short enough that a checkpoint's fsync has at most a few commits'
  // frames to write, long enough to cost one cheap syscall per period.
  static constexpr std::chrono::milliseconds kPeriod{5};

  // Sleeps until a commit, then syncs the log every kPeriod while commits
  // keep coming; an idle server does not wake up.
  void Run(std::stop_token stop) {
    // std::condition_variable_any (for its stop_token waits) needs a
    // std::unique_lock; mutex_ guards no member, so nothing is lost to the
    // analysis.
    std::unique_lock<Mutex> lock(mutex_);
    while (wake_.wait(lock, stop, [this] {
      return written_.load(std::memory_order_relaxed);
    })) {
      // Let the period's commits accumulate before syncing them together.
      wake_.wait_for(lock, stop, kPeriod, [] { return false; });
      if (stop.stop_requested()) return;
      written_.store(false, std::memory_order_relaxed);
      lock.unlock();
      // The WAL exists once the first transaction is written; a failed
      // open or sync is retried after the next commit.
      if (fd_ < 0) fd_ = open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ >= 0) (void)fdatasync(fd_);
      lock.lock();
    }
  }

  const std::string wal_path_;
  std::atomic<bool> written_{false};
  Mutex mutex_;
  std::condition_variable_any wake_;
  int fd_ = -1;
  std::jthread thread_;  // last: starts after the members it uses
};

// Objects are rows of a rowid table with no index on the key: the store
// holds every key in memory anyway, so this class maps keys to row ids
// itself. An update then writes only its row's leaf page and a batch of
// creates shares the last leaf, where a key index would add a page (and
// a lookup by string) to every create and every upsert.
class Database {
 public:
  ~Database() {
    for (sqlite3_stmt* s :
         {insert_, update_, remove_, set_revision_, begin_, commit_}) {
      sqlite3_finalize(s);
    }
    if (db_ != nullptr) sqlite3_close(db_);
  }

  Status Open(const std::string& path, bool full_sync) {
    path_ = path;
    if (sqlite3_open_v2(
            path.c_str(), &db_,
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            nullptr) != SQLITE_OK) {
      return Error("open");
    }
    sqlite3_busy_timeout(db_, 200);
    const std::string setup = fmt::format(
        "PRAGMA locking_mode=EXCLUSIVE;"
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous={};"
        "PRAGMA wal_autocheckpoint=4000;"
        "PRAGMA cache_size=-32768;"
        "CREATE TABLE IF NOT EXISTS object_rows("
        "  id INTEGER PRIMARY KEY, key TEXT NOT NULL, value BLOB NOT NULL,"
        "  create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS meta("
        "  name TEXT PRIMARY KEY, value INTEGER NOT NULL);",
        full_sync ? "FULL" : "NORMAL");
    if (Status s = Exec(setup); !s.ok()) return s;
    if (Status s = MigrateKeyedTable(); !s.ok()) return s;
    if (!Prepare("INSERT INTO object_rows(key, value, create_revision, "
                 "mod_revision) VALUES(?1, ?2, ?3, ?4)",
                 &insert_) ||
        !Prepare("UPDATE object_rows SET value = ?2, create_revision = ?3, "
                 "mod_revision = ?4 WHERE id = ?1",
                 &update_) ||
        !Prepare("DELETE FROM object_rows WHERE id = ?1", &remove_) ||
        !Prepare("INSERT OR REPLACE INTO meta VALUES('revision', ?1)",
                 &set_revision_) ||
        !Prepare("BEGIN IMMEDIATE", &begin_) || !Prepare("COMMIT", &commit_)) {
      return Error("prepare");
    }
    return OkStatus();
  }

  Status Load(std::vector<KeyValue>& objects, int64_t& revision) {
    sqlite3_stmt* stmt = nullptr;
    if (!Prepare("SELECT value FROM meta WHERE name = 'revision'", &stmt)) {
      return Error("read revision");
    }
    revision = 0;
    if (sqlite3_step(stmt) == SQLITE_ROW)
      revision = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    // The store revision is the newest of the last deletion's and the rows'.
    if (!Prepare("SELECT id, key, value, create_revision, mod_revision "
                 "FROM object_rows",
                 &stmt)) {
      return Error("read objects");
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      KeyValue kv;
      kv.key = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
      const void* blob = sqlite3_column_blob(stmt, 2);
      const int size = sqlite3_column_bytes(stmt, 2);
      kv.value = std::make_shared<const std::string>(
          blob ? static_cast<const char*>(blob) : "",
          static_cast<size_t>(size));
      kv.create_revision = sqlite3_column_int64(stmt, 3);
      kv.mod_revision = sqlite3_column_int64(stmt, 4);
      revision = std::max(revision, kv.mod_revision);
      ids_[kv.key] = sqlite3_column_int64(stmt, 0);
      objects.push_back(std::move(kv));
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return Error("read objects");
    return OkStatus();
  }

  // One transaction for all `records`. A put's revision is its row's
  // mod_revision; the meta revision is written only when the newest record
  // is a deletion, which leaves no row (one page fewer per commit).
  Status Write(std::span<const Persistence::Record> records) {
    if (records.empty()) return OkStatus();
    if (!Run(begin_)) return Error("begin");
    // Row ids this transaction assigns (0: deleted), applied to ids_ only
    // once it commits.
    std::unordered_map<std::string_view, int64_t, StringHash> changed;
    bool ok = true;
    for (const Persistence::Record& record : records) {
      ok = WriteRow(record, changed);
      if (!ok) break;
    }
    if (ok && records.back().value == nullptr) {
      sqlite3_bind_int64(set_revision_, 1, records.back().revision);
      ok = Run(set_revision_);
    }
    if (!ok) {
      Status error = Error("write");
      (void)Exec("ROLLBACK");
      return error;
    }
    if (!Run(commit_)) {
      Status error = Error("commit");
      (void)Exec("ROLLBACK");
      return error;
    }
    for (const auto& [key, id] : changed) {
      if (id == 0) {
        if (auto it = ids_.find(key); it != ids_.end()) ids_.erase(it);
      } else {
        ids_[std::string(key)] = id;
      }
    }
    return OkStatus();
  }

 private:
  // The row id of `key` as of the records written so far (0: no row).
  int64_t IdOf(std::string_view key,
               const std::unordered_map<std::string_view, int64_t, StringHash>&
                   changed) const {
    if (auto it = changed.find(key); it != changed.end()) return it->second;
    auto it = ids_.find(key);
    return it == ids_.end() ? 0 : it->second;
  }

  bool WriteRow(
      const Persistence::Record& record,
      std::unordered_map<std::string_view, int64_t, StringHash>& changed) {
    const int64_t id = IdOf(record.key, changed);
    if (record.value == nullptr) {
      if (id == 0) return true;  // never stored
      sqlite3_bind_int64(remove_, 1, id);
      changed[record.key] = 0;
      return Run(remove_);
    }
    sqlite3_stmt* stmt = id == 0 ? insert_ : update_;
    if (id == 0) {
      sqlite3_bind_text(stmt, 1, record.key.data(),
                        static_cast<int>(record.key.size()), SQLITE_STATIC);
    } else {
      sqlite3_bind_int64(stmt, 1, id);
    }
    sqlite3_bind_blob(stmt, 2, record.value->data(),
                      static_cast<int>(record.value->size()), SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, record.create_revision);
    sqlite3_bind_int64(stmt, 4, record.revision);
    if (!Run(stmt)) return false;
    if (id == 0) changed[record.key] = sqlite3_last_insert_rowid(db_);
    return true;
  }

  // Data directories written before object_rows keep objects in a table
  // keyed by `key` ("objects"); their rows move over once, in one
  // transaction.
  Status MigrateKeyedTable() {
    sqlite3_stmt* stmt = nullptr;
    if (!Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                 "name = 'objects'",
                 &stmt)) {
      return Error("read schema");
    }
    const bool keyed = sqlite3_step(stmt) == SQLITE_ROW;
    sqlite3_finalize(stmt);
    if (!keyed) return OkStatus();
    Status moved = Exec(
        "BEGIN IMMEDIATE;"
        "INSERT INTO object_rows(key, value, create_revision, mod_revision)"
        "  SELECT key, value, create_revision, mod_revision FROM objects;"
        "DROP TABLE objects;"
        "COMMIT;");
    if (!moved.ok()) (void)Exec("ROLLBACK");
    return moved;
  }

  bool Prepare(const char* sql, sqlite3_stmt** stmt) {
    return sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr) == SQLITE_OK;
  }
  static bool Run(sqlite3_stmt* stmt) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc == SQLITE_DONE;
  }
  Status Exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) !=
        SQLITE_OK) {
      Status error(StatusCode::kUnavailable,
                   fmt::format("storage {}: {}", path_,
                               message ? message : sqlite3_errmsg(db_)));
      sqlite3_free(message);
      return error;
    }
    return OkStatus();
  }
  Status Error(std::string_view what) const {
    const bool busy =
        db_ != nullptr && (sqlite3_errcode(db_) & 0xff) == SQLITE_BUSY;
    return Status(StatusCode::kUnavailable,
                  fmt::format("storage {}: {}: {}{}", path_, what,
                              db_ ? sqlite3_errmsg(db_) : "out of memory",
                              busy ? " (is another dralloc server using this "
                                     "directory?)"
                                   : ""));
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* update_ = nullptr;
  sqlite3_stmt* remove_ = nullptr;
  sqlite3_stmt* set_revision_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  // Row id of every stored key.
  StringKeyedMap<int64_t> ids_;
};

class SqlitePersistence : public Persistence {
 public:
  // `flusher` may be null (full sync: every commit is synced anyway).
  SqlitePersistence(std::unique_ptr<Database> db,
                    std::unique_ptr<WalFlusher> flusher)
      : db_(std::move(db)), flusher_(std::move(flusher)) {}
  Status Write(std::span<const Record> records) override {
    Status status = db_->Write(records);
    if (flusher_) flusher_->NoteCommit();
    return status;
  }

 private:
  std::unique_ptr<Database> db_;
  // Declared after db_: stops before the database closes.
  std::unique_ptr<WalFlusher> flusher_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir,
                                                 const SqliteOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("storage {}: {}", dir, ec.message()));
  }
  auto db = std::make_unique<Database>();
  const std::string path = dir + "/dralloc.db";
  if (Status s = db->Open(path, options.full_sync); !s.ok()) return s;
  std::vector<KeyValue> objects;
  int64_t revision = 0;
  if (Status s = db->Load(objects, revision); !s.ok()) return s;
  return std::unique_ptr<Store>(std::make_unique<MemoryStore>(
      options.store,
      std::make_unique<SqlitePersistence>(
          std::move(db), options.full_sync
                             ? nullptr
                             : std::make_unique<WalFlusher>(path + "-wal")),
      std::move(objects), revision));
}

}  // namespace dralloc::store
