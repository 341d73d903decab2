#include "controlplane/what_if.h"

#include <fmt/format.h>

#include <algorithm>

#include "controlplane/store_objects.h"

namespace dralloc::controlplane {
namespace {

ControlPlaneOptions OfflineOptions(scheduler::SchedulerOptions options,
                                   size_t pipeline_batch) {
  ControlPlaneOptions out;
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

WhatIf::WhatIf(scheduler::SchedulerOptions options, size_t pipeline_batch)
    : plane_(api_, OfflineOptions(std::move(options), pipeline_batch)) {}

Status WhatIf::Load(std::vector<api::Object> objects) {
  return StoreObjects(api_, std::move(objects));
}

Status WhatIf::WarmUp() { return plane_.WarmUp(); }

Status WhatIf::Run() { return plane_.RunToQuiescence(); }

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
    for (const auto& entry : pod->spec.resource_claims) {
      std::string name = entry.resource_claim_name.value_or("");
      for (const auto& s : pod->status.resource_claim_statuses) {
        if (s.name == entry.name && s.resource_claim_name) {
          name = *s.resource_claim_name;
        }
      }
      if (!name.empty()) add_claim(name);
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
