// Validation of a ResourceClaim's status (allocation, reservedFor, device
// statuses), following upstream pkg/apis/resource/validation.
#ifndef DRALLOC_API_VALIDATION_RESOURCE_CLAIM_STATUS_VALIDATION_H_
#define DRALLOC_API_VALIDATION_RESOURCE_CLAIM_STATUS_VALIDATION_H_

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/resource_claim.h"
#include "api/validation/request_names.h"

namespace dralloc::api {

// `names` are the requests of the claim's spec, which the allocation's
// results must name.
void ValidateClaimStatus(const ResourceClaimStatus& status,
                         const RequestNames& names, const FieldPath& path,
                         ErrorList& errors);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_RESOURCE_CLAIM_STATUS_VALIDATION_H_
