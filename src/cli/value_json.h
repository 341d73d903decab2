// JSON rendering of CEL values for `dralloc cel eval`.
#ifndef DRALLOC_CLI_VALUE_JSON_H_
#define DRALLOC_CLI_VALUE_JSON_H_

#include <nlohmann/json.hpp>

#include "cel/common/value.h"

namespace dralloc::cli {

// int/uint/double as numbers (NaN and infinities as strings), bytes as
// base64, durations ("1.5s") and timestamps (RFC 3339) as strings, library
// values (quantities, versions...) as their text, optional.none() as null.
nlohmann::ordered_json ValueToJson(const cel::Value& value);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_VALUE_JSON_H_
