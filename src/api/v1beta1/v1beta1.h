// resource.k8s.io/v1beta1 wire shapes and their conversion to and from v1.
//
// v1beta1 differs from v1 in three places: a DeviceRequest is flat (the
// fields of v1's `exactly` sit beside `firstAvailable`), a Device wraps its
// properties in `basic`, and ResourceSliceSpec's nodeName and allNodes are
// plain values (empty means unset) instead of pointers. All other types are
// shared with v1.
//
// Conversion rules (those of upstream's pkg/apis/resource/v1beta1):
//  - A v1beta1 request with any of deviceClassName, selectors, allocationMode,
//    count, adminAccess, tolerations or capacity set becomes a v1 request with
//    `exactly`; its firstAvailable is kept as well (a request with both is
//    invalid, which validation reports). v1 → v1beta1 flattens `exactly`; an
//    `exactly` whose fields are all empty is written as `selectors: []` so it
//    survives the round trip (upstream decodes that the same way).
//  - A v1beta1 device without `basic` becomes a v1 device with only a name;
//    v1 → v1beta1 always writes `basic` (upstream does too, even when empty).
//  - v1beta1 spec.nodeName "" and spec.allNodes false mean unset. A v1 slice
//    whose nodeName is set to "" or allNodes to false (both invalid in v1)
//    cannot be expressed in v1beta1: encoding it is an error.
//
// With these rules hub → v1beta1 → hub is the identity for every encodable
// hub object.
#ifndef DRALLOC_API_V1BETA1_V1BETA1_H_
#define DRALLOC_API_V1BETA1_V1BETA1_H_

#include <optional>
#include <string_view>

#include "api/object.h"
#include "api/struct_codec.h"
#include "api/v1beta1/types.h"
#include "common/status.h"

namespace dralloc::api::v1beta1 {

// True if v1beta1 serves `kind`.
bool Serves(std::string_view kind);

// Decodes a v1beta1 object of `kind` (which Serves) and converts it to v1.
// Problems are recorded in `ctx` (paths are v1beta1 paths); `out` is set when
// decoding succeeded.
void Decode(std::string_view kind, JsonElement element, DecodeContext& ctx,
            std::optional<Object>& out);

// Converts a hub object to v1beta1 and encodes it (apiVersion and kind set,
// first). InvalidArgument when v1beta1 does not serve the kind or cannot
// express the object (see above).
StatusOr<Json> Encode(const Object& object);

// ---- Conversions (v1beta1 → hub never fails) ----

api::Device ToHub(const Device& in);
api::DeviceRequest ToHub(const DeviceRequest& in);
api::ResourceSlice ToHub(const ResourceSlice& in);
api::ResourceClaim ToHub(const ResourceClaim& in);
api::ResourceClaimTemplate ToHub(const ResourceClaimTemplate& in);

Device FromHub(const api::Device& in);
DeviceRequest FromHub(const api::DeviceRequest& in);
StatusOr<ResourceSlice> FromHub(const api::ResourceSlice& in);
ResourceClaim FromHub(const api::ResourceClaim& in);
ResourceClaimTemplate FromHub(const api::ResourceClaimTemplate& in);

}  // namespace dralloc::api::v1beta1

#endif  // DRALLOC_API_V1BETA1_V1BETA1_H_
