// The admission rule resource claims and claim templates share.
#ifndef DRALLOC_REGISTRY_RESOURCE_CLAIM_STRATEGY_H_
#define DRALLOC_REGISTRY_RESOURCE_CLAIM_STRATEGY_H_

#include <string_view>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/resource_claim.h"
#include "registry/strategy.h"

namespace dralloc::registry {

// Admin access to devices (exactly.adminAccess) needs the
// resource.kubernetes.io/admin-access: "true" label on the namespace, as
// upstream's admission: one Forbidden error per request asking for it
// (`spec` is the path of `spec` in the object) when the namespace lacks it.
api::ErrorList AdminAccessErrors(const api::ResourceClaimSpec& spec,
                                 const api::FieldPath& path,
                                 std::string_view namespace_,
                                 const NamespaceLookup& namespaces);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_RESOURCE_CLAIM_STRATEGY_H_
