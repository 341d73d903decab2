#include "controlplane/what_if.h"

#include <fmt/format.h>

#include <algorithm>

#include "controlplane/store_objects.h"
#include "exampledriver/classic_gpu_pool.h"

namespace dralloc::controlplane {
namespace {

ControlPlaneOptions OfflineOptions(scheduler::SchedulerOptions options,
                                   size_t pipeline_batch, bool classic_dra) {
  ControlPlaneOptions out;
  out.classic_dra = classic_dra;
  out.scheduler = std::move(options);
  out.pipeline_batch = pipeline_batch;
  out.run_pod_gc = false;  // offline: no node agents, nothing deleted
  out.scheduler.binders = pipeline_batch > 0 ? 1 : 0;
  out.scheduler.initial_backoff = std::chrono::milliseconds(0);
  return out;
}

std::string PendingReason(const api::Pod& pod,
                          const client::Informer& templates) {
  for (const auto& condition : pod.status.conditions) {
    if (condition.type == "PodScheduled" && condition.status == "False") {
      return condition.message;
    }
  }
  for (const auto& entry : pod.spec.resource_claims) {
    if (!entry.resource_claim_template_name) continue;
    const bool created =
        std::any_of(pod.status.resource_claim_statuses.begin(),
                    pod.status.resource_claim_statuses.end(),
                    [&](const auto& s) { return s.name == entry.name; });
    if (created) continue;
    if (!templates.Get(pod.metadata.namespace_,
                       *entry.resource_claim_template_name)) {
      return fmt::format("claim \"{}\": ResourceClaimTemplate {}/{} not found",
                         entry.name, pod.metadata.namespace_,
                         *entry.resource_claim_template_name);
    }
    return fmt::format("claim \"{}\" could not be created from its template",
                       entry.name);
  }
  return "not scheduled";
}

}  // namespace

WhatIf::WhatIf(scheduler::SchedulerOptions options, size_t pipeline_batch,
               bool classic_dra)
    : plane_(api_,
             OfflineOptions(std::move(options), pipeline_batch, classic_dra)) {}

Status WhatIf::Load(std::vector<api::Object> objects) {
  return StoreObjects(api_, std::move(objects));
}

Status WhatIf::WarmUp() { return plane_.WarmUp(); }

Status WhatIf::SimulateClassicDrivers(int gpus_per_node) {
  ASSIGN_OR_RETURN(classic_drivers_,
                   ClassicDriverSimulation::Create(api_, gpus_per_node));
  return OkStatus();
}

Status WhatIf::Run() {
  RETURN_IF_ERROR(plane_.RunToQuiescence());
  if (classic_drivers_ == nullptr) return OkStatus();
  // Each turn of the drivers may let pods go on (allocations) and each
  // turn of the scheduler may ask the drivers (PodSchedulingContexts).
  constexpr int kMaxTurns = 100'000;
  for (int turn = 0; turn < kMaxTurns; ++turn) {
    ASSIGN_OR_RETURN(bool worked, classic_drivers_->Step());
    if (!worked) return OkStatus();
    RETURN_IF_ERROR(plane_.RunToQuiescence());
  }
  return Status(StatusCode::kDeadlineExceeded,
                "the control plane and the simulated classic drivers did not "
                "settle");
}

std::vector<PodPlacement> WhatIf::Placements() {
  std::vector<PodPlacement> out;
  for (const client::ObjectPtr& object : plane_.pods().List()) {
    const auto* pod = client::As<api::Pod>(object);
    if (pod == nullptr || !plane_.scheduler()->Responsible(*pod)) continue;
    PodPlacement placement;
    placement.pod = pod;
    placement.node = pod->spec.node_name;
    // The claim `name` and the devices allocated to it.
    auto add_claim = [&](const std::string& name) {
      placement.claims.push_back(name);
      const auto* claim = client::As<api::ResourceClaim>(
          plane_.claims().Get(pod->metadata.namespace_, name));
      if (claim == nullptr || !claim->status.allocation) return;
      for (const auto& r : claim->status.allocation->devices.results) {
        placement.devices.push_back(
            fmt::format("{}/{}/{}", r.driver, r.pool, r.device));
      }
    };
    // A classic claim: the GPUs of its handles.
    auto add_classic_claim = [&](const std::string& name) {
      const auto object =
          api_.Get(client::ResourceFor<api::v1alpha2::ResourceClaim>(),
                   pod->metadata.namespace_, name);
      if (!object.ok()) return false;
      const auto& claim = std::get<api::v1alpha2::ResourceClaim>(**object);
      placement.claims.push_back(name);
      if (!claim.status.allocation) return true;
      for (const auto& handle : claim.status.allocation->resource_handles) {
        if (const auto& structured = handle.structured_data) {
          // 1.30's structured parameters: the instances the scheduler chose.
          for (const auto& result : structured->results) {
            if (!result.named_resources) continue;
            placement.devices.push_back(fmt::format(
                "{}/{}/{}", handle.driver_name, structured->node_name,
                result.named_resources->name));
          }
          continue;
        }
        auto parsed = exampledriver::ClassicHandle::FromJson(handle.data);
        if (!parsed.ok()) continue;
        for (const std::string& gpu : parsed->gpus) {
          placement.devices.push_back(fmt::format(
              "{}/{}/{}", handle.driver_name, parsed->node_name, gpu));
        }
      }
      return true;
    };
    for (const auto& entry : pod->spec.resource_claims) {
      std::string name = entry.resource_claim_name.value_or("");
      for (const auto& s : pod->status.resource_claim_statuses) {
        if (s.name == entry.name && s.resource_claim_name) {
          name = *s.resource_claim_name;
        }
      }
      if (name.empty()) continue;
      if (plane_.claims().Get(pod->metadata.namespace_, name) == nullptr &&
          add_classic_claim(name)) {
        continue;
      }
      add_claim(name);
    }
    if (const auto& extended = pod->status.extended_resource_claim_status) {
      add_claim(extended->resource_claim_name);
    }
    if (placement.node.empty()) {
      placement.reason = PendingReason(*pod, plane_.templates());
    }
    out.push_back(std::move(placement));
  }
  std::sort(
      out.begin(), out.end(), [](const PodPlacement& a, const PodPlacement& b) {
        return std::tie(a.pod->metadata.namespace_, a.pod->metadata.name) <
               std::tie(b.pod->metadata.namespace_, b.pod->metadata.name);
      });
  return out;
}

}  // namespace dralloc::controlplane
