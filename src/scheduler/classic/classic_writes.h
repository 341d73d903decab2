// ClassicWrites: what the scheduler writes for resource.k8s.io/v1alpha2
// (classic DRA) claims, as Kubernetes 1.30's dynamicresources plugin did:
// the pod's PodSchedulingContext (potential and selected nodes), the
// deallocation PostFilter asks for, the pod's reservations in PreBind (and
// their release in Unreserve), and the context's deletion after binding.
// Each call talks only to the API server (no scheduler lock), with
// optimistic concurrency and a few retries; safe to call concurrently.
#ifndef DRALLOC_SCHEDULER_CLASSIC_CLASSIC_WRITES_H_
#define DRALLOC_SCHEDULER_CLASSIC_CLASSIC_WRITES_H_

#include <optional>
#include <string>
#include <vector>

#include "api/types/core.h"
#include "client/api_client.h"
#include "common/status.h"
#include "scheduler/bind_task.h"

namespace dralloc::scheduler::classic {

// Reserve's outcome for the PodSchedulingContext; nothing set: no write.
struct ContextWrite {
  std::optional<std::string> selected_node;
  std::optional<std::vector<std::string>> potential_nodes;
  bool clear_selected_node = false;

  bool empty() const {
    return !selected_node && !potential_nodes && !clear_selected_node;
  }
};

// PostFilter's decision for a claim allocated where the pod cannot go.
struct ClassicDeallocation {
  client::ObjectPtr claim;  // the v1alpha2 claim
  // A driver's claim gets deallocationRequested; one the scheduler
  // allocated (1.30's structured parameters) has its allocation cleared.
  bool classic = true;
  bool clear_selected_node = false;
};

class ClassicWrites {
 public:
  explicit ClassicWrites(client::ApiClient& client) : client_(client) {}

  // Creates the pod's PodSchedulingContext (named like the pod, controlled
  // by it) or updates it with `write`. kFailedPrecondition when a context
  // of that name belongs to another pod.
  Status PublishContext(const api::Pod& pod, const ContextWrite& write) const;
  // Clears the context's selectedNode when asked, then sets the claim's
  // deallocationRequested and empties its reservedFor (or, for a claim the
  // scheduler allocated, clears allocation and reservedFor).
  Status Deallocate(const api::Pod& pod,
                    const ClassicDeallocation& deallocation) const;
  // PreBind: adds the pod to each claim's reservedFor; a claim with an
  // `allocation` (1.30's structured parameters) first gets the builtin
  // finalizer, then driverName, allocation and the reservation in one
  // status write. kAborted when a claim lost its allocation, is being
  // deallocated, or (to allocate) got allocated elsewhere meanwhile.
  Status Reserve(const api::Pod& pod,
                 const std::vector<ClassicClaimReservation>& claims) const;
  // Unreserve: takes the pod out of those claims' reservedFor (best effort);
  // an allocation this pod's PreBind wrote is cleared with its last user.
  void Unreserve(const api::Pod& pod,
                 const std::vector<ClassicClaimReservation>& claims) const;
  // PostBind: deletes the pod's PodSchedulingContext (best effort; the
  // garbage collector removes it with the pod anyway).
  void DeleteContext(const api::Pod& pod) const;

 private:
  Status ReserveAllocated(const api::Pod& pod,
                          const ClassicClaimReservation& reservation) const;
  Status Allocate(const api::Pod& pod,
                  const ClassicClaimReservation& reservation) const;
  Status AddBuiltinFinalizer(const std::string& ns,
                             const std::string& name) const;

  client::ApiClient& client_;
};

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_CLASSIC_WRITES_H_
