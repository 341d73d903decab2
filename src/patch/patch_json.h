// Shared vocabulary of the patch engines: the JSON document type they operate
// on, order-insensitive equality and the nesting limit that keeps every
// recursive walk bounded.
#ifndef DRALLOC_PATCH_PATCH_JSON_H_
#define DRALLOC_PATCH_PATCH_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace dralloc::patch {

// Whole Kubernetes objects, with the key order of the wire form preserved.
using Json = nlohmann::ordered_json;

// Documents (objects, patches, applied configurations) nested deeper than
// this are refused with kInvalidArgument before any recursive walk starts.
inline constexpr int kMaxNestingDepth = 100;

// Returns kInvalidArgument when `document` nests objects/arrays deeper than
// kMaxNestingDepth. `what` names the document in the message ("patch").
// Iterative, so it is safe on any input.
Status CheckNestingDepth(const Json& document, std::string_view what);

// Structural equality as RFC 6902 "test" defines it: objects compare as sets
// of members (key order does not matter), arrays element-wise in order,
// numbers by numeric value (1 == 1.0). Documents nested deeper than
// kMaxNestingDepth compare unequal (callers check depth first).
bool JsonEqual(const Json& a, const Json& b);

// Compact JSON text; never throws (invalid UTF-8 is replaced).
std::string DumpCompact(const Json& value);

}  // namespace dralloc::patch

#endif  // DRALLOC_PATCH_PATCH_JSON_H_
