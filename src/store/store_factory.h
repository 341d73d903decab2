// Opens a Store from a `--storage` specification.
#ifndef DRALLOC_STORE_STORE_FACTORY_H_
#define DRALLOC_STORE_STORE_FACTORY_H_

#include <memory>
#include <string_view>

#include "store/store.h"

namespace dralloc::store {

// "sqlite:DIR" (durable, embedded) or "memory:" (nothing persists).
// kInvalidArgument for an unknown scheme.
StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view spec);

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_STORE_FACTORY_H_
