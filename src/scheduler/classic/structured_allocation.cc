#include "scheduler/classic/structured_allocation.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/v1alpha2/named_resources_cel.h"
#include "api/v1alpha2/parameters_reference.h"
#include "client/informer.h"
#include "scheduler/classic/named_resources_matcher.h"

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
using client::As;

// Kubernetes' GroupKind.String(): "Kind.group", or "Kind" in the core group.
std::string GroupKind(std::string_view kind, std::string_view group) {
  return group.empty() ? std::string(kind) : fmt::format("{}.{}", kind, group);
}

std::string Names(const std::vector<client::ObjectPtr>& objects) {
  std::string out;
  for (const client::ObjectPtr& object : objects) {
    if (!out.empty()) out += " ";
    out += api::MetaOf(*object).name;
  }
  return "[" + out + "]";
}

// The parameters `generated_from` names, of kind T: exactly one, or the
// verdict 1.30 gave (none: Unschedulable; several: Error).
template <typename T, typename Matches>
Verdict FindGenerated(const std::vector<client::ObjectPtr>& all,
                      const Matches& matches, std::string_view what,
                      const std::string& source, client::ObjectPtr& out) {
  std::vector<client::ObjectPtr> found;
  for (const client::ObjectPtr& object : all) {
    const auto* parameters = As<T>(object);
    if (parameters != nullptr && matches(*parameters)) {
      found.push_back(object);
    }
  }
  if (found.empty()) {
    return Verdict::Unschedulable(
        fmt::format("generated {} parameters for {} not found", what, source));
  }
  if (found.size() > 1) {
    return Verdict::Error(
        fmt::format("multiple generated {} parameters for {} found: {}", what,
                    source, Names(found)));
  }
  out = std::move(found[0]);
  return Verdict::Ok();
}

Verdict LookupClassParameters(const v1alpha2::ResourceClass& resource_class,
                              const ParameterSource& source,
                              client::ObjectPtr& out) {
  if (!resource_class.parameters_ref) return Verdict::Ok();
  const auto& ref = *resource_class.parameters_ref;
  if (v1alpha2::IsDirect(ref)) {
    out = source.class_parameters(ref.namespace_, ref.name);
    if (As<v1alpha2::ResourceClassParameters>(out) == nullptr) {
      return Verdict::Unschedulable(fmt::format(
          "class parameters {}/{} not found", ref.namespace_, ref.name));
    }
    return Verdict::Ok();
  }
  return FindGenerated<v1alpha2::ResourceClassParameters>(
      source.all_class_parameters(),
      [&](const v1alpha2::ResourceClassParameters& parameters) {
        return v1alpha2::IsGeneratedFrom(parameters, ref);
      },
      "class",
      fmt::format("{} {}/{}", GroupKind(ref.kind, ref.api_group),
                  ref.namespace_, ref.name),
      out);
}

Verdict LookupClaimParameters(const v1alpha2::ResourceClaim& claim,
                              const ParameterSource& source,
                              client::ObjectPtr& out) {
  const auto& ref = *claim.spec.parameters_ref;
  const std::string& ns = claim.metadata.namespace_;
  if (v1alpha2::IsDirect(ref)) {
    out = source.claim_parameters(ns, ref.name);
    if (As<v1alpha2::ResourceClaimParameters>(out) == nullptr) {
      return Verdict::Unschedulable(
          fmt::format("claim parameters {}/{} not found", ns, ref.name));
    }
    return Verdict::Ok();
  }
  return FindGenerated<v1alpha2::ResourceClaimParameters>(
      source.all_claim_parameters(),
      [&](const v1alpha2::ResourceClaimParameters& parameters) {
        return v1alpha2::IsGeneratedFrom(parameters, ref, ns);
      },
      "claim",
      fmt::format("{} {}/{}", GroupKind(ref.kind, ref.api_group), ns, ref.name),
      out);
}

// 1.30's parameters of a claim without parametersRef: any one instance of
// the class's driver, shareable.
v1alpha2::ResourceClaimParameters DefaultClaimParameters(
    const v1alpha2::ResourceClass& resource_class) {
  v1alpha2::ResourceClaimParameters parameters;
  parameters.shareable = true;
  v1alpha2::DriverRequests requests;
  requests.driver_name = resource_class.driver_name;
  requests.requests.push_back(
      {std::nullopt, v1alpha2::NamedResourcesSelector{"true"}});
  parameters.driver_requests.push_back(std::move(requests));
  return parameters;
}

// The class's filter for `driver` (the first namedResources filter of it).
Verdict ClassFilter(const v1alpha2::ResourceClassParameters* parameters,
                    const std::string& driver, SelectorCache& selectors,
                    std::shared_ptr<const cel::Program>& out) {
  if (parameters == nullptr) return Verdict::Ok();
  for (size_t i = 0; i < parameters->filters.size(); ++i) {
    const v1alpha2::ResourceFilter& filter = parameters->filters[i];
    if (filter.driver_name != driver || !filter.named_resources) continue;
    auto program = selectors.Get(filter.named_resources->selector);
    if (!program.ok()) {
      return Verdict::Error(fmt::format(
          "class parameters {}/{}: filters[{}].namedResources.selector: {}",
          parameters->metadata.namespace_, parameters->metadata.name, i,
          program.status().message()));
    }
    out = *program;
    return Verdict::Ok();
  }
  return Verdict::Ok();
}

// The driver's entry of `drivers`, added (with the class's vendor
// parameters and filter) on first use.
StructuredDriver& DriverEntry(std::vector<StructuredDriver>& drivers,
                              const std::string& driver,
                              const v1alpha2::ResourceClassParameters* klass) {
  for (StructuredDriver& entry : drivers) {
    if (entry.driver == driver) return entry;
  }
  StructuredDriver& entry = drivers.emplace_back();
  entry.driver = driver;
  if (klass != nullptr) {
    for (const v1alpha2::VendorParameters& vendor : klass->vendor_parameters) {
      if (vendor.driver_name == driver) {
        entry.vendor_class_parameters = vendor.parameters;
        break;
      }
    }
  }
  return entry;
}

api::NodeSelector OnHostname(const std::string& node) {
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({"kubernetes.io/hostname", "In", {node}});
  return api::NodeSelector{{term}};
}

// One request of the pod's structured claims, flattened.
struct FlatRequest {
  size_t claim;
  size_t driver;
  size_t request;
};

}  // namespace

StatusOr<std::shared_ptr<const cel::Program>> SelectorCache::Get(
    const std::string& text) {
  auto it = programs_.find(text);
  if (it == programs_.end()) {
    it = programs_
             .emplace(text, cel::Compile(cel::NamedResourcesEnvironment(), text,
                                         cel::CompileOptions{}))
             .first;
  }
  return it->second;
}

Verdict PlanStructuredClaim(const v1alpha2::ResourceClaim& claim,
                            const v1alpha2::ResourceClass& resource_class,
                            const ParameterSource& source,
                            SelectorCache& selectors, StructuredClaim& out) {
  out.driver_name = resource_class.driver_name;
  if (Verdict v =
          LookupClassParameters(resource_class, source, out.class_parameters);
      !v.ok()) {
    return v;
  }
  const auto* klass =
      As<v1alpha2::ResourceClassParameters>(out.class_parameters);
  std::optional<v1alpha2::ResourceClaimParameters> defaults;
  const v1alpha2::ResourceClaimParameters* parameters = nullptr;
  std::string what;
  if (claim.spec.parameters_ref) {
    if (Verdict v = LookupClaimParameters(claim, source, out.claim_parameters);
        !v.ok()) {
      return v;
    }
    parameters = As<v1alpha2::ResourceClaimParameters>(out.claim_parameters);
    what =
        fmt::format("claim parameters {}/{}", parameters->metadata.namespace_,
                    parameters->metadata.name);
  } else {
    defaults = DefaultClaimParameters(resource_class);
    parameters = &*defaults;
    what = fmt::format("default claim parameters of resourceclaim {}/{}",
                       claim.metadata.namespace_, claim.metadata.name);
  }
  out.shareable = parameters->shareable;
  for (size_t i = 0; i < parameters->driver_requests.size(); ++i) {
    const v1alpha2::DriverRequests& requests = parameters->driver_requests[i];
    StructuredDriver& driver =
        DriverEntry(out.drivers, requests.driver_name, klass);
    if (!driver.vendor_claim_parameters) {
      driver.vendor_claim_parameters = requests.vendor_parameters;
    }
    std::shared_ptr<const cel::Program> filter;
    if (Verdict v = ClassFilter(klass, requests.driver_name, selectors, filter);
        !v.ok()) {
      return v;
    }
    for (size_t e = 0; e < requests.requests.size(); ++e) {
      const v1alpha2::ResourceRequest& request = requests.requests[e];
      if (!request.named_resources) {
        // (1.30's message, typo included.)
        return Verdict::Error(fmt::format(
            "{}: driverRequersts[{}].requests[{}]: no supported structured "
            "parameters found",
            what, i, e));
      }
      auto program = selectors.Get(request.named_resources->selector);
      if (!program.ok()) {
        return Verdict::Error(fmt::format(
            "{}: driverRequests[{}].requests[{}].namedResources.selector: {}",
            what, i, e, program.status().message()));
      }
      driver.requests.push_back({filter, *program, request.vendor_parameters});
    }
  }
  return Verdict::Ok();
}

void NamedResourcesInventory::Rebuild(
    const std::vector<client::ObjectPtr>& slices) {
  by_node_.clear();
  std::vector<const v1alpha2::ResourceSlice*> sorted;
  for (const client::ObjectPtr& object : slices) {
    const auto* slice = As<v1alpha2::ResourceSlice>(object);
    // 1.30 allocated from node-local slices only.
    if (slice != nullptr && !slice->node_name.empty() &&
        slice->named_resources) {
      sorted.push_back(slice);
    }
  }
  std::ranges::sort(sorted, {}, [](const v1alpha2::ResourceSlice* slice) {
    return slice->metadata.name;
  });
  for (const v1alpha2::ResourceSlice* slice : sorted) {
    auto& instances = by_node_[slice->node_name][slice->driver_name];
    for (const v1alpha2::NamedResourcesInstance& instance :
         slice->named_resources->instances) {
      instances.push_back({instance.name,
                           fmt::format("{}/{}/{}", slice->driver_name,
                                       slice->node_name, instance.name),
                           std::make_unique<cel::NamedResourcesAttributes>(
                               v1alpha2::CelAttributesOf(instance))});
    }
  }
}

const std::vector<NamedResourcesInventory::Instance>*
NamedResourcesInventory::Find(std::string_view node,
                              std::string_view driver) const {
  auto on_node = by_node_.find(node);
  if (on_node == by_node_.end()) return nullptr;
  auto of_driver = on_node->second.find(driver);
  return of_driver == on_node->second.end() ? nullptr : &of_driver->second;
}

std::optional<NodeAllocation> AllocateOnNode(
    const std::vector<StructuredClaim>& claims,
    const NamedResourcesInventory& inventory, const std::string& node,
    const std::function<bool(const std::string& id)>& taken,
    std::string& reason) {
  constexpr std::string_view kUnsuitable =
      "resourceclaim cannot be allocated for the node (unsuitable)";
  // Instances are numbered per driver, one range after the other.
  std::map<
      std::string,
      std::pair<size_t, const std::vector<NamedResourcesInventory::Instance>*>>
      ranges;
  size_t instance_count = 0;
  std::vector<FlatRequest> flat;
  std::vector<std::vector<size_t>> candidates;
  cel::EvalContext ctx;
  for (size_t c = 0; c < claims.size(); ++c) {
    for (size_t d = 0; d < claims[c].drivers.size(); ++d) {
      const StructuredDriver& driver = claims[c].drivers[d];
      auto [range, added] = ranges.try_emplace(driver.driver);
      if (added) {
        range->second = {instance_count, inventory.Find(node, driver.driver)};
        if (range->second.second != nullptr) {
          instance_count += range->second.second->size();
        }
      }
      const auto [offset, instances] = range->second;
      for (size_t r = 0; r < driver.requests.size(); ++r) {
        const StructuredRequest& request = driver.requests[r];
        std::vector<size_t>& accepted = candidates.emplace_back();
        flat.push_back({c, d, r});
        if (instances == nullptr) continue;
        for (size_t i = 0; i < instances->size(); ++i) {
          const auto& instance = (*instances)[i];
          if (taken(instance.id)) continue;
          bool ok = true;
          for (const cel::Program* program :
               {request.filter.get(), request.selector.get()}) {
            if (program == nullptr || !ok) continue;
            StatusOr<bool> matched = cel::MatchNamedResourcesSelector(
                *program, *instance.attributes, ctx);
            if (!matched.ok()) {
              reason = fmt::format("checking structured parameters failed: {}",
                                   matched.status().message());
              return std::nullopt;
            }
            ok = *matched;
          }
          if (ok) accepted.push_back(offset + i);
        }
        if (accepted.empty()) {
          reason = kUnsuitable;
          return std::nullopt;
        }
      }
    }
  }
  const auto chosen = MatchDistinct(candidates, instance_count);
  if (!chosen) {
    reason = kUnsuitable;
    return std::nullopt;
  }
  NodeAllocation out;
  out.allocations.resize(claims.size());
  for (size_t c = 0; c < claims.size(); ++c) {
    v1alpha2::AllocationResult& allocation = out.allocations[c];
    allocation.shareable = claims[c].shareable;
    allocation.available_on_nodes = OnHostname(node);
    for (const StructuredDriver& driver : claims[c].drivers) {
      v1alpha2::ResourceHandle& handle =
          allocation.resource_handles.emplace_back();
      handle.driver_name = driver.driver;
      handle.structured_data.emplace();
      handle.structured_data->vendor_class_parameters =
          driver.vendor_class_parameters;
      handle.structured_data->vendor_claim_parameters =
          driver.vendor_claim_parameters;
      handle.structured_data->node_name = node;
    }
  }
  for (size_t f = 0; f < flat.size(); ++f) {
    const FlatRequest& at = flat[f];
    const StructuredDriver& driver = claims[at.claim].drivers[at.driver];
    const auto [offset, instances] = ranges.at(driver.driver);
    const auto& instance = (*instances)[(*chosen)[f] - offset];
    out.allocations[at.claim]
        .resource_handles[at.driver]
        .structured_data->results.push_back(
            {driver.requests[at.request].vendor_parameters,
             v1alpha2::NamedResourcesAllocationResult{instance.name}});
    out.devices.push_back(instance.id);
  }
  return out;
}

std::vector<std::string> StructuredDevicesOf(
    const v1alpha2::ResourceClaim& claim) {
  if (!claim.status.allocation) return {};
  return StructuredDevicesOf(*claim.status.allocation);
}

std::vector<std::string> StructuredDevicesOf(
    const v1alpha2::AllocationResult& allocation) {
  std::vector<std::string> out;
  for (const auto& handle : allocation.resource_handles) {
    if (!handle.structured_data) continue;
    for (const auto& result : handle.structured_data->results) {
      if (!result.named_resources) continue;
      out.push_back(fmt::format("{}/{}/{}", handle.driver_name,
                                handle.structured_data->node_name,
                                result.named_resources->name));
    }
  }
  return out;
}

}  // namespace dralloc::scheduler::classic
