// What the control-plane controller library of classic DRA drivers decides
// (k8s.io/dynamic-resource-allocation/controller at Kubernetes 1.30, issue
// #27), as pure functions of the objects it read: what syncing a claim does,
// which claims of a PodSchedulingContext the driver handles and for which
// nodes it reports, when it allocates, and the status it writes back.
// Reading and writing objects (and calling the driver) is the caller's
// part: Controller (controller.h) is built on these decisions
// (docs/classic-dra.md).
#ifndef DRALLOC_CLASSICCONTROLLER_CONTROLLER_DECISIONS_H_
#define DRALLOC_CLASSICCONTROLLER_CONTROLLER_DECISIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/v1alpha2/types.h"

namespace dralloc::classiccontroller {

// "<driver>/deletion-protection": present on every claim the driver
// allocated (added before Allocate, removed after Deallocate).
std::string DriverFinalizer(std::string_view driver);

// What syncing one claim does (1.30's syncClaim).
struct ClaimSync {
  enum class Action {
    kNothing,     // in use, allocated, waiting for a consumer, or not ours
    kDeallocate,  // Deallocate, clear what is listed, remove the finalizer
    kAllocate,    // an Immediate claim: allocate with no selected node
    kRetryLater,  // the class names another driver: retry with backoff
  };
  Action action = Action::kNothing;
  // kDeallocate: one status update clears allocation, driverName and
  // deallocationRequested when allocated; otherwise (an allocation still
  // in flight is stopped) only a set deallocationRequested is cleared.
  bool clear_allocation = false;
  bool clear_deallocation_requested = false;
};

// `resource_class` is the claim's class, or null when it does not exist
// (only read for an unallocated Immediate claim; missing is an error there
// and reported as kRetryLater).
ClaimSync DecideClaimSync(const api::v1alpha2::ResourceClaim& claim,
                          const api::v1alpha2::ResourceClass* resource_class,
                          std::string_view driver);

// Whether a PodSchedulingContext needs the driver: not being deleted, the
// scheduler has set a selected node or potential nodes, and its pod is not
// being deleted and controls it.
bool SchedulingContextNeedsDriver(
    const api::v1alpha2::PodSchedulingContext& context, const api::Pod& pod);

// Whether `claim` (with class `resource_class`) waits for this driver in a
// PodSchedulingContext: WaitForFirstConsumer, unallocated, of our class.
bool ClaimPendingForDriver(const api::v1alpha2::ResourceClaim& claim,
                           const api::v1alpha2::ResourceClass* resource_class,
                           std::string_view driver);

// The nodes the driver reports on: spec.potentialNodes, then the selected
// node when it is not among them.
std::vector<std::string> NodesToCheck(
    const api::v1alpha2::PodSchedulingContext& context);

// A claim's unsuitable nodes cut to 128: one extra comes from the selected
// node; if the list starts with it, the last entry goes, else the first.
std::vector<std::string> TruncateNodes(std::vector<std::string> nodes,
                                       std::string_view selected_node);

// Records a claim's unsuitable nodes (truncated) under its pod claim name
// in `status`, adding or replacing the entry; false when nothing changed
// (the comparison keeps the order, as 1.30's did).
bool SetUnsuitableNodes(api::v1alpha2::PodSchedulingContextStatus& status,
                        std::string_view pod_claim_name,
                        std::vector<std::string> unsuitable_nodes,
                        std::string_view selected_node);

}  // namespace dralloc::classiccontroller

#endif  // DRALLOC_CLASSICCONTROLLER_CONTROLLER_DECISIONS_H_
