// ValidateServiceAccount: upstream pkg/apis/core/validation semantics
// (a namespaced DNS-subdomain name; the references are not checked).
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {

ErrorList ValidateServiceAccount(const ServiceAccount& service_account) {
  return ObjectMetaErrors(service_account.metadata, /*namespaced=*/true);
}

}  // namespace dralloc::api
