#include "store/store_factory.h"

#include <fmt/format.h>

#include "store/etcd_store.h"
#include "store/memory_store.h"
#include "store/sqlite_store.h"

namespace dralloc::store {

StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view spec,
                                           const OpenOptions& options) {
  if (spec.starts_with("sqlite:")) {
    std::string dir(spec.substr(7));
    if (dir.empty())
      return InvalidArgumentError("--storage sqlite: needs a directory");
    return OpenSqliteStore(dir, {});
  }
  if (spec.starts_with("etcd:")) {
    auto endpoints = ParseEtcdEndpoints(spec.substr(5));
    if (!endpoints.ok()) return endpoints.status();
    EtcdOptions etcd;
    etcd.endpoints = std::move(*endpoints);
    etcd.prefix = options.etcd_prefix;
    etcd.compaction_interval = options.etcd_compaction_interval;
    etcd.start_timeout = options.etcd_start_timeout;
    return OpenEtcdStore(std::move(etcd));
  }
  if (spec == "memory:" || spec == "memory") {
    return std::unique_ptr<Store>(std::make_unique<MemoryStore>());
  }
  return InvalidArgumentError(fmt::format(
      "--storage \"{}\": expected sqlite:DIR, etcd:http://HOST:PORT[,…] or "
      "memory:",
      spec));
}

}  // namespace dralloc::store
