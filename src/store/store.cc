#include "store/store.h"

namespace dralloc::store {

std::string StampRevision(std::string value, int64_t revision) {
  const size_t at = value.find(kRevisionMarker);
  if (at != std::string::npos) {
    value.replace(at, kRevisionMarker.size(), std::to_string(revision));
  }
  return value;
}

StatusOr<KeyValue> Store::PutReserving(std::string_view, Precondition,
                                       const ValueEncoder&,
                                       const Reservations&) {
  return Status(StatusCode::kUnimplemented,
                "reservations need a shared store (etcd)");
}

StatusOr<KeyValue> Store::DeleteReleasing(std::string_view, Precondition,
                                          const std::vector<std::string>&) {
  return Status(StatusCode::kUnimplemented,
                "reservations need a shared store (etcd)");
}

}  // namespace dralloc::store
