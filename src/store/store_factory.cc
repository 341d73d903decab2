#include "store/store_factory.h"

#include <fmt/format.h>

#include "store/memory_store.h"
#include "store/sqlite_store.h"

namespace dralloc::store {

StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view spec) {
  if (spec.starts_with("sqlite:")) {
    std::string dir(spec.substr(7));
    if (dir.empty())
      return InvalidArgumentError("--storage sqlite: needs a directory");
    return OpenSqliteStore(dir, {});
  }
  if (spec == "memory:" || spec == "memory") {
    return std::unique_ptr<Store>(std::make_unique<MemoryStore>());
  }
  return InvalidArgumentError(
      fmt::format("--storage \"{}\": expected sqlite:DIR or memory:", spec));
}

}  // namespace dralloc::store
