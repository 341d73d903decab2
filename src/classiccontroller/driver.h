// Driver: what a classic DRA (resource.k8s.io/v1alpha2, KEP-3063) driver
// gives the control-plane controller library, as the Driver interface of
// k8s.io/dynamic-resource-allocation/controller (Kubernetes 1.30) did. The
// library (controller.h) calls it from several worker threads at once.
#ifndef DRALLOC_CLASSICCONTROLLER_DRIVER_H_
#define DRALLOC_CLASSICCONTROLLER_DRIVER_H_

#include <any>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/v1alpha2/types.h"
#include "common/status.h"

namespace dralloc::classiccontroller {

// One claim the driver is asked about.
struct ClaimAllocation {
  // pod.spec.resourceClaims[].name; empty for an Immediate claim.
  std::string pod_claim_name;
  const api::v1alpha2::ResourceClaim* claim = nullptr;
  const api::v1alpha2::ResourceClass* resource_class = nullptr;
  // What GetClaimParameters and GetClassParameters returned.
  std::any claim_parameters;
  std::any class_parameters;
  // UnsuitableNodes sets: the potential nodes where the claim cannot be
  // allocated.
  std::vector<std::string> unsuitable_nodes;
  // Allocate sets one of these.
  std::optional<api::v1alpha2::AllocationResult> allocation;
  Status error;
};

class Driver {
 public:
  virtual ~Driver() = default;

  // The class's parameters (its parametersRef), in the driver's own form.
  virtual StatusOr<std::any> GetClassParameters(
      const api::v1alpha2::ResourceClass& resource_class) = 0;
  // The claim's parameters (its parametersRef), given its class's.
  virtual StatusOr<std::any> GetClaimParameters(
      const api::v1alpha2::ResourceClaim& claim,
      const api::v1alpha2::ResourceClass& resource_class,
      const std::any& class_parameters) = 0;
  // Allocates every claim for `selected_node` (empty: an Immediate claim,
  // anywhere), setting each one's allocation or error. Must be idempotent:
  // a claim may be allocated again after a failed status write.
  virtual void Allocate(std::span<ClaimAllocation> claims,
                        std::string_view selected_node) = 0;
  // Frees what the claim's allocation holds; idempotent.
  virtual Status Deallocate(const api::v1alpha2::ResourceClaim& claim) = 0;
  // Sets each claim's unsuitable_nodes among `potential_nodes`, for `pod`.
  virtual Status UnsuitableNodes(
      const api::Pod& pod, std::span<ClaimAllocation> claims,
      const std::vector<std::string>& potential_nodes) = 0;
};

}  // namespace dralloc::classiccontroller

#endif  // DRALLOC_CLASSICCONTROLLER_DRIVER_H_
