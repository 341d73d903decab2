#include "store/store.h"

namespace dralloc::store {

std::string StampRevision(std::string value, int64_t revision) {
  const size_t at = value.find(kRevisionMarker);
  if (at != std::string::npos) {
    value.replace(at, kRevisionMarker.size(), std::to_string(revision));
  }
  return value;
}

}  // namespace dralloc::store
