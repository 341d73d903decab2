#include "api/v1beta1/v1beta1.h"

namespace dralloc::api::v1beta1 {

bool Serves(std::string_view kind) {
  return kind == "DeviceClass" || kind == "ResourceSlice" || kind == "ResourceClaim" ||
         kind == "ResourceClaimTemplate";
}

void Decode(std::string_view kind, JsonElement, DecodeContext& ctx, std::optional<Object>&) {
  ctx.errors().push_back({FieldErrorType::kInternal, "", "",
                          std::string("v1beta1 ") + std::string(kind) + " not yet supported"});
}

StatusOr<Json> Encode(const Object&) { return UnimplementedError("v1beta1 encoding"); }

}  // namespace dralloc::api::v1beta1
