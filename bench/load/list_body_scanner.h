// ListBodyScanner: reads the parts of a Kubernetes List response the load
// scenarios need (item count, list resourceVersion, continue token), checking
// that the whole body is JSON, fast enough (simdjson) that a list of thousands
// of ResourceSlices (hundreds of MB) is timed at the server's pace.
#ifndef DRALLOC_BENCH_LOAD_LIST_BODY_SCANNER_H_
#define DRALLOC_BENCH_LOAD_LIST_BODY_SCANNER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::load {

struct ListBodySummary {
  // Number of objects in the top-level "items" array.
  std::int64_t item_count = 0;
  // Top-level metadata.resourceVersion and metadata.continue ("" if absent).
  std::string resource_version;
  std::string continue_token;
};

// kInvalidArgument when `body` is not JSON or not an object.
StatusOr<ListBodySummary> ScanListBody(std::string_view body);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LIST_BODY_SCANNER_H_
