// LoadTarget: the API server a load run talks to.
//
// The load generator is a local benchmark. It accepts only loopback targets
// (http://127.0.0.1:PORT or http://localhost:PORT) so that it can never be
// pointed at a real cluster by mistake.
#ifndef DRALLOC_BENCH_LOAD_LOAD_TARGET_H_
#define DRALLOC_BENCH_LOAD_LOAD_TARGET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::load {

struct LoadTarget {
  // Always "127.0.0.1": localhost is resolved here, nothing else is allowed.
  std::string host;
  std::uint16_t port = 0;

  // Value for the HTTP Host header ("127.0.0.1:PORT").
  std::string HostHeader() const;
};

// Parses "http://127.0.0.1:PORT" or "http://localhost:PORT", optionally
// followed by a single "/". Any other scheme, host or path is
// kInvalidArgument.
StatusOr<LoadTarget> ParseLoadTarget(std::string_view url);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LOAD_TARGET_H_
