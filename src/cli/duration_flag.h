// Duration flags, written as Go's time.ParseDuration reads them (the form
// upstream's components take): "15s", "500ms", "1m30s", "1.5h", or "0".
#ifndef DRALLOC_CLI_DURATION_FLAG_H_
#define DRALLOC_CLI_DURATION_FLAG_H_

#include <chrono>
#include <string_view>

#include "common/status.h"

namespace dralloc::cli {

// `text` as a duration; kInvalidArgument naming `flag` when malformed or
// negative.
StatusOr<std::chrono::milliseconds> ParseGoDuration(std::string_view text,
                                                    std::string_view flag);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_DURATION_FLAG_H_
