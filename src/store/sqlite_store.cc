#include "store/sqlite_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

namespace dralloc::store {
namespace {

// WAL frames after which the background checkpointer copies the log into
// the database. The log file is reused only after a checkpoint has copied
// all of it, which one racing a busy writer rarely manages; so past
// kWriterCheckpointPages (48 MiB) the writer checkpoints itself, between two
// commits: writes wait for that once every few seconds under load instead
// of at every autocheckpoint.
constexpr int kCheckpointPages = 2000;
constexpr int kWriterCheckpointPages = 12000;

// One server per directory: an exclusive flock on DIR/LOCK, held while the
// store is open (released by the kernel if the process dies).
class DirectoryLock {
 public:
  ~DirectoryLock() {
    if (fd_ >= 0) close(fd_);
  }
  Status Acquire(const std::string& dir) {
    const std::string path = dir + "/LOCK";
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("storage {}: {}", path, std::strerror(errno)));
    }
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const bool held = errno == EWOULDBLOCK;
      return Status(
          StatusCode::kUnavailable,
          fmt::format("storage {}: {}", dir,
                      held ? "another dralloc server is using this directory"
                           : std::strerror(errno)));
    }
    return OkStatus();
  }

 private:
  int fd_ = -1;
};

// Copies the write-ahead log into the database on its own connection and
// thread, so that commits do not wait for checkpoints (a commit that runs
// one stalls every writer queued behind it for milliseconds). PASSIVE: it
// never blocks the writer; the log is reused once a checkpoint completes.
class Checkpointer {
 public:
  ~Checkpointer() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (db_ != nullptr) sqlite3_close(db_);
  }
  Status Start(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("storage {}: checkpointer: {}", path,
                                db_ ? sqlite3_errmsg(db_) : "out of memory"));
    }
    sqlite3_busy_timeout(db_, 1000);
    thread_ = std::thread([this] { Run(); });
    return OkStatus();
  }
  void Request() {
    {
      std::lock_guard lock(mu_);
      requested_ = true;
    }
    wake_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || requested_; });
      if (stopping_) return;
      requested_ = false;
      lock.unlock();
      (void)sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_PASSIVE,
                                      nullptr, nullptr);
      lock.lock();
    }
  }

  sqlite3* db_ = nullptr;
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

class Database {
 public:
  ~Database() {
    checkpointer_.reset();  // before the writer's close checkpoints the rest
    for (sqlite3_stmt* s : {upsert_, remove_, set_revision_, begin_, commit_}) {
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
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous={};"
        "PRAGMA cache_size=-32768;"
        // A rowid table: rows up to a page stay in their leaf (a WITHOUT
        // ROWID leaf keeps only ~1 KiB of a row and spills the rest to
        // overflow pages, so every object write dirtied several pages).
        // Data directories created with the earlier WITHOUT ROWID layout
        // keep it; the statements below serve both.
        "CREATE TABLE IF NOT EXISTS objects("
        "  key TEXT PRIMARY KEY, value BLOB NOT NULL,"
        "  create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS meta("
        "  name TEXT PRIMARY KEY, value INTEGER NOT NULL);",
        full_sync ? "FULL" : "NORMAL");
    if (Status s = Exec(setup); !s.ok()) return s;
    // An upsert keeps the row (and its key index entry) in place.
    if (!Prepare("INSERT INTO objects VALUES(?1, ?2, ?3, ?4) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value, "
                 "create_revision = excluded.create_revision, "
                 "mod_revision = excluded.mod_revision",
                 &upsert_) ||
        !Prepare("DELETE FROM objects WHERE key = ?1", &remove_) ||
        !Prepare("INSERT OR REPLACE INTO meta VALUES('revision', ?1)",
                 &set_revision_) ||
        !Prepare("BEGIN IMMEDIATE", &begin_) || !Prepare("COMMIT", &commit_)) {
      return Error("prepare");
    }
    checkpointer_ = std::make_unique<Checkpointer>();
    if (Status s = checkpointer_->Start(path); !s.ok()) return s;
    // Replaces SQLite's automatic checkpoint, which runs inside a commit.
    sqlite3_wal_hook(db_, &Database::AfterCommit, this);
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
    if (!Prepare("SELECT max(mod_revision) FROM objects", &stmt)) {
      return Error("read revision");
    }
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      revision = std::max<int64_t>(revision, sqlite3_column_int64(stmt, 0));
    }
    sqlite3_finalize(stmt);
    if (!Prepare(
            "SELECT key, value, create_revision, mod_revision FROM objects",
            &stmt)) {
      return Error("read objects");
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      KeyValue kv;
      kv.key = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      const void* blob = sqlite3_column_blob(stmt, 1);
      const int size = sqlite3_column_bytes(stmt, 1);
      kv.value = std::make_shared<const std::string>(
          blob ? static_cast<const char*>(blob) : "",
          static_cast<size_t>(size));
      kv.create_revision = sqlite3_column_int64(stmt, 2);
      kv.mod_revision = sqlite3_column_int64(stmt, 3);
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
    bool ok = true;
    for (const Persistence::Record& record : records) {
      ok = WriteRow(record);
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
    return OkStatus();
  }

 private:
  bool WriteRow(const Persistence::Record& record) {
    if (record.value == nullptr) {
      sqlite3_bind_text(remove_, 1, record.key.data(),
                        static_cast<int>(record.key.size()), SQLITE_STATIC);
      return Run(remove_);
    }
    sqlite3_bind_text(upsert_, 1, record.key.data(),
                      static_cast<int>(record.key.size()), SQLITE_STATIC);
    sqlite3_bind_blob(upsert_, 2, record.value->data(),
                      static_cast<int>(record.value->size()), SQLITE_STATIC);
    sqlite3_bind_int64(upsert_, 3, record.create_revision);
    sqlite3_bind_int64(upsert_, 4, record.revision);
    return Run(upsert_);
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

  static int AfterCommit(void* self, sqlite3* db, const char* name,
                         int wal_pages) {
    if (wal_pages < kCheckpointPages) return SQLITE_OK;
    Checkpointer& checkpointer = *static_cast<Database*>(self)->checkpointer_;
    if (wal_pages >= kWriterCheckpointPages) {
      (void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE,
                                      nullptr, nullptr);
    } else {
      checkpointer.Request();
    }
    return SQLITE_OK;
  }

  std::string path_;
  std::unique_ptr<Checkpointer> checkpointer_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* upsert_ = nullptr;
  sqlite3_stmt* remove_ = nullptr;
  sqlite3_stmt* set_revision_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
};

class SqlitePersistence : public Persistence {
 public:
  SqlitePersistence(std::unique_ptr<DirectoryLock> lock,
                    std::unique_ptr<Database> db)
      : lock_(std::move(lock)), db_(std::move(db)) {}
  Status Write(std::span<const Record> records) override {
    return db_->Write(records);
  }

 private:
  std::unique_ptr<DirectoryLock> lock_;  // released after the database closes
  std::unique_ptr<Database> db_;
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
  auto lock = std::make_unique<DirectoryLock>();
  if (Status s = lock->Acquire(dir); !s.ok()) return s;
  auto db = std::make_unique<Database>();
  if (Status s = db->Open(dir + "/dralloc.db", options.full_sync); !s.ok()) {
    return s;
  }
  std::vector<KeyValue> objects;
  int64_t revision = 0;
  if (Status s = db->Load(objects, revision); !s.ok()) return s;
  return std::unique_ptr<Store>(std::make_unique<MemoryStore>(
      options.store,
      std::make_unique<SqlitePersistence>(std::move(lock), std::move(db)),
      std::move(objects), revision));
}

}  // namespace dralloc::store
