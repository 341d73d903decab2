#include "classiccontroller/controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/claim_helpers.h"
#include "classiccontroller/controller_decisions.h"
#include "common/log.h"

namespace dralloc::classiccontroller {
namespace {

namespace v1alpha2 = api::v1alpha2;
using client::As;
using client::ObjectPtr;

constexpr std::string_view kClaimPrefix = "claim:";
constexpr std::string_view kContextPrefix = "schedulingCtx:";

std::string Key(std::string_view prefix, const api::ObjectMeta& meta) {
  return fmt::format("{}{}/{}", prefix, meta.namespace_, meta.name);
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

Controller::Controller(client::ApiClient& client, ControllerInformers informers,
                       Driver& driver, ControllerOptions options)
    : client_(client),
      informers_(informers),
      driver_(driver),
      options_(std::move(options)),
      finalizer_(DriverFinalizer(options_.driver_name)),
      queue_({.max_retries = options_.max_retries}) {
  informers_.claims.AddHandler([this](const ObjectPtr&, const ObjectPtr& now) {
    if (now != nullptr) queue_.Add(Key(kClaimPrefix, api::MetaOf(*now)));
  });
  informers_.scheduling_contexts.AddHandler(
      [this](const ObjectPtr&, const ObjectPtr& now) {
        if (now != nullptr) queue_.Add(Key(kContextPrefix, api::MetaOf(*now)));
      });
  // A class appearing may unblock its Immediate claims.
  informers_.classes.AddHandler([this](const ObjectPtr&, const ObjectPtr& now) {
    const auto* resource_class = As<v1alpha2::ResourceClass>(now);
    if (resource_class == nullptr ||
        resource_class->driver_name != options_.driver_name) {
      return;
    }
    for (const ObjectPtr& object : informers_.claims.List()) {
      const auto* claim = As<v1alpha2::ResourceClaim>(object);
      if (claim != nullptr &&
          claim->spec.resource_class_name == resource_class->metadata.name) {
        queue_.Add(Key(kClaimPrefix, claim->metadata));
      }
    }
  });
}

Controller::~Controller() { Stop(); }

void Controller::Count(uint64_t ControllerMetrics::*counter, uint64_t by) {
  MutexLock lock(mu_);
  metrics_.*counter += by;
}

ControllerMetrics Controller::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

bool Controller::ProcessOne(std::chrono::milliseconds wait) {
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  if (status.code() == StatusCode::kNotFound) status = OkStatus();  // gone
  queue_.Finish(*key, status.ok());
  Count(&ControllerMetrics::syncs);
  if (!status.ok()) {
    Count(&ControllerMetrics::sync_errors);
    if (status.code() == StatusCode::kAborted) {
      log::Debug("classic-controller", "{}: {}", *key, status.message());
    } else {
      log::Warn("classic-controller", "{}: {}", *key, status.message());
    }
  }
  return true;
}

Status Controller::Sync(const std::string& key) {
  if (key.starts_with(kClaimPrefix)) {
    return SyncClaim(key.substr(kClaimPrefix.size()));
  }
  const std::string name = key.substr(kContextPrefix.size());
  RETURN_IF_ERROR(SyncSchedulingContext(name));
  // 1.30 looked at every context again periodically while it existed.
  if (informers_.scheduling_contexts.Get(name) != nullptr) {
    queue_.AddAfter(key, options_.recheck_delay);
  }
  return OkStatus();
}

Status Controller::SyncClaim(const std::string& key) {
  ObjectPtr object = informers_.claims.Get(key);
  const auto* claim = As<v1alpha2::ResourceClaim>(object);
  if (claim == nullptr) return OkStatus();
  ObjectPtr class_object =
      informers_.classes.Get("", claim->spec.resource_class_name);
  const auto* resource_class = As<v1alpha2::ResourceClass>(class_object);
  const ClaimSync sync =
      DecideClaimSync(*claim, resource_class, options_.driver_name);
  switch (sync.action) {
    case ClaimSync::Action::kNothing:
      return OkStatus();
    case ClaimSync::Action::kRetryLater:
      // Not ours at the moment (1.30 looked again later too); no warning.
      return Status(StatusCode::kAborted,
                    fmt::format("resource class {} not found or of another "
                                "driver",
                                claim->spec.resource_class_name));
    case ClaimSync::Action::kDeallocate: {
      const bool freed = claim->status.allocation.has_value();
      RETURN_IF_ERROR(Deallocate(*claim, sync.clear_allocation,
                                 sync.clear_deallocation_requested));
      // Beyond 1.30 (which looked again only every recheck_delay): what was
      // freed may suit the pods waiting in open contexts now.
      if (freed) {
        for (const ObjectPtr& context : informers_.scheduling_contexts.List()) {
          queue_.Add(Key(kContextPrefix, api::MetaOf(*context)));
        }
      }
      return OkStatus();
    }
    case ClaimSync::Action::kAllocate: {
      std::vector<ObjectPtr> held;
      ASSIGN_OR_RETURN(ClaimAllocation allocation, Prepare(*claim, "", held));
      return AllocateAndWrite(std::span(&allocation, 1), "", nullptr);
    }
  }
  return OkStatus();
}

Status Controller::Deallocate(v1alpha2::ResourceClaim claim,
                              bool clear_allocation,
                              bool clear_deallocation_requested) {
  if (claim.status.allocation) {
    RETURN_IF_ERROR(driver_.Deallocate(claim));
  }
  if (clear_allocation || clear_deallocation_requested) {
    const bool was_allocated = claim.status.allocation.has_value();
    if (clear_allocation) {
      claim.status.allocation.reset();
      claim.status.driver_name.clear();
    }
    claim.status.deallocation_requested = false;
    ASSIGN_OR_RETURN(ObjectPtr written,
                     client_.UpdateStatus(api::Object(claim)));
    claim = std::get<v1alpha2::ResourceClaim>(*written);
    if (was_allocated && clear_allocation) {
      Count(&ControllerMetrics::deallocations);
    }
  }
  if (api::HasFinalizer(claim.metadata, finalizer_)) {
    std::erase(claim.metadata.finalizers, finalizer_);
    auto written = client_.Update(api::Object(std::move(claim)));
    if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
      return written.status();
    }
  }
  return OkStatus();
}

StatusOr<ClaimAllocation> Controller::Prepare(
    const v1alpha2::ResourceClaim& claim, std::string pod_claim_name,
    std::vector<ObjectPtr>& held) {
  ObjectPtr class_object =
      informers_.classes.Get("", claim.spec.resource_class_name);
  const auto* resource_class = As<v1alpha2::ResourceClass>(class_object);
  if (resource_class == nullptr) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("resource class {} not found",
                              claim.spec.resource_class_name));
  }
  held.push_back(class_object);
  ClaimAllocation allocation;
  allocation.pod_claim_name = std::move(pod_claim_name);
  allocation.claim = &claim;
  allocation.resource_class = resource_class;
  ASSIGN_OR_RETURN(allocation.class_parameters,
                   driver_.GetClassParameters(*resource_class));
  ASSIGN_OR_RETURN(allocation.claim_parameters,
                   driver_.GetClaimParameters(claim, *resource_class,
                                              allocation.class_parameters));
  return allocation;
}

Status Controller::AllocateAndWrite(std::span<ClaimAllocation> claims,
                                    std::string_view selected_node,
                                    const api::Pod* pod) {
  // The finalizer first: an allocation must never exist without it.
  std::vector<v1alpha2::ResourceClaim> current;
  current.reserve(claims.size());
  for (ClaimAllocation& allocation : claims) {
    v1alpha2::ResourceClaim claim = *allocation.claim;
    if (!api::HasFinalizer(claim.metadata, finalizer_)) {
      claim.metadata.finalizers.push_back(finalizer_);
      ASSIGN_OR_RETURN(ObjectPtr written, client_.Update(api::Object(claim)));
      claim = std::get<v1alpha2::ResourceClaim>(*written);
    }
    current.push_back(std::move(claim));
  }
  driver_.Allocate(claims, selected_node);
  Status first_error = OkStatus();
  for (size_t i = 0; i < claims.size(); ++i) {
    ClaimAllocation& allocation = claims[i];
    if (!allocation.error.ok() || !allocation.allocation) {
      if (first_error.ok()) {
        first_error =
            allocation.error.ok()
                ? Status(StatusCode::kInternal, "the driver allocated nothing")
                : allocation.error;
      }
      continue;
    }
    v1alpha2::ResourceClaim& claim = current[i];
    claim.status.driver_name = options_.driver_name;
    claim.status.allocation = std::move(*allocation.allocation);
    if (pod != nullptr &&
        std::none_of(
            claim.status.reserved_for.begin(), claim.status.reserved_for.end(),
            [&](const auto& ref) { return ref.uid == pod->metadata.uid; })) {
      // 1.30's library reserved the claim for the pod it allocated for.
      claim.status.reserved_for.push_back({.api_group = "",
                                           .resource = "pods",
                                           .name = pod->metadata.name,
                                           .uid = pod->metadata.uid});
    }
    auto written = client_.UpdateStatus(api::Object(std::move(claim)));
    if (!written.ok()) {
      if (first_error.ok()) first_error = written.status();
      continue;
    }
    Count(&ControllerMetrics::allocations);
  }
  return first_error;
}

Status Controller::SyncSchedulingContext(const std::string& key) {
  ObjectPtr context_object = informers_.scheduling_contexts.Get(key);
  const auto* context = As<v1alpha2::PodSchedulingContext>(context_object);
  if (context == nullptr) return OkStatus();
  ObjectPtr pod_object = informers_.pods.Get(key);
  const auto* pod = As<api::Pod>(pod_object);
  if (pod == nullptr) {
    // The pods cache may lag behind the scheduler's write (1.30 retried).
    return Status(StatusCode::kAborted,
                  fmt::format("pod {} not in the cache yet", key));
  }
  if (!SchedulingContextNeedsDriver(*context, *pod)) return OkStatus();
  std::vector<ObjectPtr> held;
  std::vector<ClaimAllocation> claims;
  bool missing = false;
  for (const api::PodResourceClaim& entry : pod->spec.resource_claims) {
    const api::PodClaimName name = api::ClaimNameFor(*pod, entry);
    if (name.kind != api::PodClaimName::Kind::kDirect &&
        name.kind != api::PodClaimName::Kind::kGenerated) {
      continue;
    }
    ObjectPtr claim_object =
        informers_.claims.Get(pod->metadata.namespace_, name.name);
    const auto* claim = As<v1alpha2::ResourceClaim>(claim_object);
    if (claim == nullptr) {
      // A v1 claim, or one the cache has not seen yet: the scheduler wrote
      // the context only once it saw every claim, so look again soon
      // unless some claim of ours is already known.
      if (name.kind == api::PodClaimName::Kind::kGenerated ||
          name.kind == api::PodClaimName::Kind::kDirect) {
        missing = true;
      }
      continue;
    }
    ObjectPtr class_object =
        informers_.classes.Get("", claim->spec.resource_class_name);
    if (!ClaimPendingForDriver(*claim,
                               As<v1alpha2::ResourceClass>(class_object),
                               options_.driver_name)) {
      continue;
    }
    held.push_back(claim_object);
    ASSIGN_OR_RETURN(ClaimAllocation allocation,
                     Prepare(*claim, entry.name, held));
    claims.push_back(std::move(allocation));
  }
  if (claims.empty()) {
    if (!missing) return OkStatus();
    return Status(
        StatusCode::kAborted,
        fmt::format("a claim of pod {} is not in the cache yet", key));
  }
  const std::vector<std::string> nodes = NodesToCheck(*context);
  RETURN_IF_ERROR(driver_.UnsuitableNodes(*pod, claims, nodes));
  const std::string& selected = context->spec.selected_node;
  Status allocated = OkStatus();
  if (!selected.empty() &&
      std::none_of(claims.begin(), claims.end(), [&](const auto& claim) {
        return Contains(claim.unsuitable_nodes, selected);
      })) {
    allocated = AllocateAndWrite(claims, selected, pod);
  }
  v1alpha2::PodSchedulingContext updated = *context;
  bool changed = false;
  for (ClaimAllocation& claim : claims) {
    changed |= SetUnsuitableNodes(updated.status, claim.pod_claim_name,
                                  std::move(claim.unsuitable_nodes), selected);
  }
  if (changed) {
    auto written = client_.UpdateStatus(api::Object(std::move(updated)));
    if (!written.ok()) return written.status();
  }
  return allocated;
}

void Controller::Start() {
  for (int i = 0; i < options_.workers; ++i) {
    workers_.emplace_back([this] {
      while (!stopping_) ProcessOne(std::chrono::milliseconds(200));
    });
  }
}

void Controller::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

}  // namespace dralloc::classiccontroller
