// Opens a Store from a `--storage` specification.
#ifndef DRALLOC_STORE_STORE_FACTORY_H_
#define DRALLOC_STORE_STORE_FACTORY_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "store/store.h"

namespace dralloc::store {

// Settings that only some backends read.
struct OpenOptions {
  std::string etcd_prefix = "/registry";               // --etcd-prefix
  std::chrono::seconds etcd_compaction_interval{300};  // 0: never
  std::chrono::seconds etcd_start_timeout{30};
};

// "sqlite:DIR" (durable, embedded), "etcd:http://H:P[,http://H:P…]" (an
// etcd cluster, shared by any number of servers) or "memory:" (nothing
// persists). kInvalidArgument for an unknown scheme or a bad endpoint.
StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view spec,
                                           const OpenOptions& options = {});

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_STORE_FACTORY_H_
