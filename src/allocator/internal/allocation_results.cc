// AllocationSearch, results: the AllocationResult of one claim once the
// search has placed all of its devices.
#include <algorithm>

#include "allocator/internal/allocation_search.h"

namespace dralloc::allocator {

api::AllocationResult AllocationSearch::BuildResult(int claim) const {
  const ClaimState& cs = states_[claim];
  const api::ResourceClaim& rc = *cs.claim;
  api::AllocationResult result;
  result.devices.results.reserve(picked_[claim].size());
  for (const PickedDevice& p : picked_[claim]) {
    const InventoryDevice& device = inventory_.devices()[p.device];
    // Filled in place: the result has eleven members, and moving it in
    // would cost as much as filling it.
    api::DeviceRequestAllocationResult& r =
        result.devices.results.emplace_back();
    r.request = p.request->name;
    r.driver = device.slice->spec.driver;
    r.pool = device.slice->spec.pool.name;
    r.device = device.device->name;
    if (p.request->admin) r.admin_access = true;
    if (p.request->tolerations) r.tolerations = *p.request->tolerations;
    // Assigned only when set: most devices have none of these, and
    // assigning an empty container still costs a call per result.
    const api::Device& published = *device.device;
    if (!published.binding_conditions.empty()) {
      r.binding_conditions = published.binding_conditions;
    }
    if (!published.binding_failure_conditions.empty()) {
      r.binding_failure_conditions = published.binding_failure_conditions;
    }
    r.share_id = p.share_id;
    if (!p.consumed.empty()) r.consumed_capacity = p.consumed;
    if (!device.slice->spec.skip_node_operations.empty()) {
      r.skip_node_operations = device.slice->spec.skip_node_operations;
    }
  }

  // The chosen request data of each request.
  std::vector<const RequestData*> chosen;
  for (const RequestSlot& slot : cs.slots) {
    chosen.push_back(
        &slot.alternatives[slot.has_subrequests ? slot.selected : 0]);
  }
  auto& config = result.devices.config;
  // Each class's configs once, in the order classes are first used.
  struct ClassConfigs {
    const api::DeviceClass* device_class;
    size_t begin, end;
  };
  std::vector<ClassConfigs> class_configs;
  for (const RequestData* d : chosen) {
    auto it = std::find_if(class_configs.begin(), class_configs.end(),
                           [&](const ClassConfigs& c) {
                             return c.device_class->metadata.name ==
                                    d->device_class->metadata.name;
                           });
    if (it != class_configs.end()) {
      for (size_t i = it->begin; i < it->end; ++i) {
        config[i].requests.push_back(d->name);
      }
      continue;
    }
    if (d->device_class->spec.config.empty()) continue;
    size_t begin = config.size();
    for (const auto& c : d->device_class->spec.config) {
      config.push_back({"FromClass", {d->name}, c.opaque});
    }
    class_configs.push_back({d->device_class, begin, config.size()});
  }
  auto names_request = [&](const std::vector<std::string>& names, size_t r) {
    const auto& request = rc.spec.devices.requests[r];
    if (std::find(names.begin(), names.end(), request.name) != names.end()) {
      return true;
    }
    return chosen[r]->subrequest >= 0 &&
           std::find(names.begin(), names.end(), chosen[r]->name) !=
               names.end();
  };
  for (const auto& c : rc.spec.devices.config) {
    bool applies = c.requests.empty();
    for (size_t r = 0; !applies && r < chosen.size(); ++r) {
      applies = names_request(c.requests, r);
    }
    if (applies) config.push_back({"FromClaim", c.requests, c.opaque});
  }
  for (auto& c : config) {
    if (c.requests.empty()) continue;
    bool all = true;
    for (size_t r = 0; all && r < chosen.size(); ++r) {
      all = names_request(c.requests, r);
    }
    if (all) c.requests.clear();
  }
  result.node_selector = BuildNodeSelector(picked_[claim]);
  return result;
}

std::optional<api::NodeSelector> AllocationSearch::BuildNodeSelector(
    const std::vector<PickedDevice>& picked) const {
  api::NodeSelectorTerm merged;
  auto add = [](const std::vector<api::NodeSelectorRequirement>& from,
                std::vector<api::NodeSelectorRequirement>& to) {
    for (const auto& requirement : from) {
      if (std::find(to.begin(), to.end(), requirement) == to.end()) {
        to.push_back(requirement);
      }
    }
  };
  for (const PickedDevice& p : picked) {
    const InventoryDevice& device = inventory_.devices()[p.device];
    const auto& spec = device.slice->spec;
    const bool per_device = spec.per_device_node_selection.value_or(false);
    const auto& node_name =
        per_device ? device.device->node_name : spec.node_name;
    const auto& selector =
        per_device ? device.device->node_selector : spec.node_selector;
    if (node_name || device.device->binds_to_node.value_or(false)) {
      api::NodeSelector pinned;
      pinned.node_selector_terms.push_back(
          {{}, {{"metadata.name", "In", {view_.node.name}}}});
      return pinned;
    }
    if (selector && selector->node_selector_terms.size() == 1) {
      add(selector->node_selector_terms[0].match_fields, merged.match_fields);
      add(selector->node_selector_terms[0].match_expressions,
          merged.match_expressions);
    }
  }
  if (merged.match_fields.empty() && merged.match_expressions.empty()) {
    return std::nullopt;
  }
  api::NodeSelector selector;
  selector.node_selector_terms.push_back(std::move(merged));
  return selector;
}

}  // namespace dralloc::allocator
