// The embedded durable backend: a MemoryStore written through to SQLite.
//
// The database is DIR/dralloc.db in WAL mode. Every write is committed
// before it is acknowledged (concurrent writes share one transaction; see
// MemoryStore's group commit), so an acknowledged write survives the process
// being killed. The store revision is the largest row
// mod_revision, or the revision of the last deletion when that is larger.
// `synchronous=NORMAL` does not fsync each commit: a power loss may lose the
// last commits; `full_sync` makes every commit fsync at a large cost in
// throughput. The database is locked exclusively: one server per directory.
// SQLite checkpoints the log inside a commit every 4,000 pages; a background
// thread writes the log back to disk every few milliseconds so that the
// checkpoint's fsync, which every writer waits for, has little left to do.
#ifndef DRALLOC_STORE_SQLITE_STORE_H_
#define DRALLOC_STORE_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "store/memory_store.h"

namespace dralloc::store {

struct SqliteOptions {
  bool full_sync = false;
  StoreOptions store;
};

// Opens the store in `dir` (created if missing) and loads every object.
// Errors name the directory and SQLite's message.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& dir,
                                                 const SqliteOptions& options);

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_SQLITE_STORE_H_
