#include "scheduler/classic/classic_writes.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/claim_helpers.h"
#include "client/informer.h"
#include "scheduler/classic/classic_claims.h"

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
using client::As;
using client::ObjectPtr;

constexpr int kWriteAttempts = 5;

const api::ResourceInfo& ContextsResource() {
  return client::ResourceFor<v1alpha2::PodSchedulingContext>();
}

const api::ResourceInfo& ClaimsResource() {
  return client::ResourceFor<v1alpha2::ResourceClaim>();
}

// Applies `write` to `spec`; false when nothing changes.
bool Apply(const ContextWrite& write,
           v1alpha2::PodSchedulingContextSpec& spec) {
  const v1alpha2::PodSchedulingContextSpec before = spec;
  if (write.clear_selected_node) spec.selected_node.clear();
  if (write.selected_node) spec.selected_node = *write.selected_node;
  if (write.potential_nodes) spec.potential_nodes = *write.potential_nodes;
  return !(spec == before);
}

v1alpha2::ResourceClaimConsumerReference ConsumerRef(const api::Pod& pod) {
  return {.api_group = "",
          .resource = "pods",
          .name = pod.metadata.name,
          .uid = pod.metadata.uid};
}

// Runs `change` on the current claim and writes its status, again on a
// conflict; `change` returns false when there is nothing to write, or sets
// `refused` to stop with that status.
template <typename Change>
Status UpdateClaimStatus(client::ApiClient& client, const std::string& ns,
                         const std::string& name, ObjectPtr current,
                         const Change& change) {
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    if (current == nullptr) {
      auto fresh = client.Get(ClaimsResource(), ns, name);
      if (!fresh.ok()) return fresh.status();
      current = std::move(*fresh);
    }
    const auto* claim = As<v1alpha2::ResourceClaim>(current);
    if (claim == nullptr) {
      return Status(StatusCode::kNotFound,
                    fmt::format("resourceclaim {}/{} is gone", ns, name));
    }
    v1alpha2::ResourceClaim next = *claim;
    Status refused = OkStatus();
    if (!change(next, refused)) return refused;
    auto written = client.UpdateStatus(api::Object(std::move(next)));
    if (written.ok()) return OkStatus();
    if (written.status().code() != StatusCode::kAborted) {
      return written.status();
    }
    current = nullptr;  // a newer version: fetch it
  }
  return Status(StatusCode::kAborted,
                fmt::format("resourceclaim {}/{} kept changing", ns, name));
}

}  // namespace

Status ClassicWrites::PublishContext(const api::Pod& pod,
                                     const ContextWrite& write) const {
  if (write.empty()) return OkStatus();
  const std::string& ns = pod.metadata.namespace_;
  const std::string& name = pod.metadata.name;
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    auto got = client_.Get(ContextsResource(), ns, name);
    if (!got.ok() && got.status().code() != StatusCode::kNotFound) {
      return got.status();
    }
    if (!got.ok()) {
      if (write.clear_selected_node && !write.selected_node &&
          !write.potential_nodes) {
        return OkStatus();  // nothing to clear
      }
      v1alpha2::PodSchedulingContext context;
      context.metadata.name = name;
      context.metadata.namespace_ = ns;
      context.metadata.owner_references.push_back(
          {.api_version = "v1",
           .kind = "Pod",
           .name = name,
           .uid = pod.metadata.uid,
           .controller = true,
           .block_owner_deletion = true});
      Apply(write, context.spec);
      auto created = client_.Create(api::Object(std::move(context)));
      if (created.ok()) return OkStatus();
      if (created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
      continue;  // created meanwhile: update it
    }
    v1alpha2::PodSchedulingContext context =
        std::get<v1alpha2::PodSchedulingContext>(**got);
    if (!api::IsControlledBy(context.metadata, pod.metadata.uid)) {
      return Status(
          StatusCode::kFailedPrecondition,
          fmt::format("PodSchedulingContext object with UID {} is not owned "
                      "by Pod {}/{}",
                      context.metadata.uid, ns, name));
    }
    if (!Apply(write, context.spec)) return OkStatus();
    auto updated = client_.Update(api::Object(std::move(context)));
    if (updated.ok()) return OkStatus();
    if (updated.status().code() != StatusCode::kAborted) {
      return updated.status();
    }
  }
  return Status(
      StatusCode::kAborted,
      fmt::format("PodSchedulingContext {}/{} kept changing", ns, name));
}

Status ClassicWrites::Deallocate(
    const api::Pod& pod, const ClassicDeallocation& deallocation) const {
  if (deallocation.clear_selected_node) {
    RETURN_IF_ERROR(PublishContext(pod, {.clear_selected_node = true}));
  }
  const auto& base = std::get<v1alpha2::ResourceClaim>(*deallocation.claim);
  return UpdateClaimStatus(client_, base.metadata.namespace_,
                           base.metadata.name, deallocation.claim,
                           [&](v1alpha2::ResourceClaim& claim, Status&) {
                             if (!claim.status.allocation)
                               return false;  // already done
                             claim.status.reserved_for.clear();
                             if (deallocation.classic) {
                               if (claim.status.deallocation_requested)
                                 return false;
                               claim.status.deallocation_requested = true;
                             } else {
                               // (1.30 cleared both.)
                               claim.status.allocation.reset();
                               claim.status.driver_name.clear();
                             }
                             return true;
                           });
}

Status ClassicWrites::Reserve(
    const api::Pod& pod,
    const std::vector<ClassicClaimReservation>& claims) const {
  for (const ClassicClaimReservation& reservation : claims) {
    RETURN_IF_ERROR(reservation.allocation
                        ? Allocate(pod, reservation)
                        : ReserveAllocated(pod, reservation));
  }
  return OkStatus();
}

Status ClassicWrites::ReserveAllocated(
    const api::Pod& pod, const ClassicClaimReservation& reservation) const {
  const auto& base = std::get<v1alpha2::ResourceClaim>(*reservation.base);
  const std::string& name = base.metadata.name;
  return UpdateClaimStatus(
      client_, base.metadata.namespace_, name, reservation.base,
      [&](v1alpha2::ResourceClaim& claim, Status& refused) {
        if (!claim.status.allocation || claim.status.deallocation_requested) {
          refused = Status(
              StatusCode::kAborted,
              fmt::format("resourceclaim {} is no longer allocated", name));
          return false;
        }
        if (IsReservedFor(claim, pod.metadata.uid)) return false;
        if (!CanBeReserved(claim)) {
          refused = Status(StatusCode::kAborted,
                           fmt::format("resourceclaim {} in use", name));
          return false;
        }
        claim.status.reserved_for.push_back(ConsumerRef(pod));
        return true;
      });
}

Status ClassicWrites::Allocate(
    const api::Pod& pod, const ClassicClaimReservation& reservation) const {
  const auto& base = std::get<v1alpha2::ResourceClaim>(*reservation.base);
  const std::string& ns = base.metadata.namespace_;
  const std::string& name = base.metadata.name;
  RETURN_IF_ERROR(AddBuiltinFinalizer(ns, name));
  return UpdateClaimStatus(
      client_, ns, name, nullptr,
      [&](v1alpha2::ResourceClaim& claim, Status& refused) {
        if (claim.status.allocation) {
          refused = Status(StatusCode::kAborted,
                           fmt::format("claim {}/{} got allocated elsewhere in "
                                       "the meantime",
                                       ns, name));
          return false;
        }
        claim.status.driver_name = reservation.driver_name;
        claim.status.allocation = reservation.allocation;
        claim.status.reserved_for.push_back(ConsumerRef(pod));
        return true;
      });
}

Status ClassicWrites::AddBuiltinFinalizer(const std::string& ns,
                                          const std::string& name) const {
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    auto got = client_.Get(ClaimsResource(), ns, name);
    if (!got.ok()) return got.status();
    const auto* claim = As<v1alpha2::ResourceClaim>(*got);
    if (claim == nullptr) {
      return Status(StatusCode::kNotFound,
                    fmt::format("resourceclaim {}/{} is gone", ns, name));
    }
    if (claim->metadata.deletion_timestamp) {
      return Status(
          StatusCode::kAborted,
          fmt::format("resourceclaim {}/{} is being deleted", ns, name));
    }
    if (api::HasFinalizer(claim->metadata, v1alpha2::kBuiltinFinalizer)) {
      return OkStatus();
    }
    v1alpha2::ResourceClaim next = *claim;
    next.metadata.finalizers.push_back(
        std::string(v1alpha2::kBuiltinFinalizer));
    auto updated = client_.Update(api::Object(std::move(next)));
    if (updated.ok()) return OkStatus();
    if (updated.status().code() != StatusCode::kAborted) {
      return updated.status();
    }
  }
  return Status(StatusCode::kAborted,
                fmt::format("resourceclaim {}/{} kept changing", ns, name));
}

void ClassicWrites::Unreserve(
    const api::Pod& pod,
    const std::vector<ClassicClaimReservation>& claims) const {
  for (const ClassicClaimReservation& reservation : claims) {
    const auto& base = std::get<v1alpha2::ResourceClaim>(*reservation.base);
    (void)UpdateClaimStatus(
        client_, base.metadata.namespace_, base.metadata.name, nullptr,
        [&](v1alpha2::ResourceClaim& claim, Status&) {
          const bool removed =
              std::erase_if(claim.status.reserved_for, [&](const auto& r) {
                return r.uid == pod.metadata.uid;
              }) > 0;
          // What this pod's PreBind allocated goes with it.
          if (removed && reservation.allocation &&
              claim.status.reserved_for.empty() &&
              claim.status.allocation == reservation.allocation) {
            claim.status.allocation.reset();
            claim.status.driver_name.clear();
          }
          return removed;
        });
  }
}

void ClassicWrites::DeleteContext(const api::Pod& pod) const {
  (void)client_.Delete(ContextsResource(), pod.metadata.namespace_,
                       pod.metadata.name, "");
}

}  // namespace dralloc::scheduler::classic
