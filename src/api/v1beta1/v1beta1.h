// resource.k8s.io/v1beta1 wire shapes and their conversion to and from v1.
//
// v1beta1 differs from v1 in two places: a DeviceRequest is flat (the fields
// of v1's `exactly` sit beside `firstAvailable`) and a Device wraps its
// properties in `basic`. All other types are shared with v1.
#ifndef DRALLOC_API_V1BETA1_V1BETA1_H_
#define DRALLOC_API_V1BETA1_V1BETA1_H_

#include <optional>
#include <string_view>

#include "api/object.h"
#include "api/struct_codec.h"
#include "common/status.h"

namespace dralloc::api::v1beta1 {

// True if v1beta1 serves `kind`.
bool Serves(std::string_view kind);

// Decodes a v1beta1 object of `kind` (which Serves) and converts it to v1.
// Problems are recorded in `ctx`; `out` is set when decoding succeeded.
void Decode(std::string_view kind, JsonElement element, DecodeContext& ctx,
            std::optional<Object>& out);

// Converts a hub object to v1beta1 and encodes it (apiVersion and kind set).
StatusOr<Json> Encode(const Object& object);

}  // namespace dralloc::api::v1beta1

#endif  // DRALLOC_API_V1BETA1_V1BETA1_H_
