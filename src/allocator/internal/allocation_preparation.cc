// AllocationSearch, preparation: the per-claim checks and upstream's
// validateDeviceRequest (class lookup, selectors compiled, candidates in
// upstream order), before any device is placed.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "allocator/internal/allocation_search.h"
#include "allocator/prefix_closed_conjuncts.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::allocator {
namespace {

std::string ClaimName(const api::ResourceClaim& claim) {
  return claim.metadata.namespace_.empty()
             ? claim.metadata.name
             : claim.metadata.namespace_ + "/" + claim.metadata.name;
}

// Whether a request of `claim` defines derived attribute `name`.
bool SomeRequestDerives(const api::ResourceClaim& claim,
                        const std::string& name) {
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    if (!request.exactly) continue;
    for (const api::DerivedAttribute& a : request.exactly->derived_attributes) {
      if (a.name == name) return true;
    }
  }
  return false;
}

}  // namespace

Status AllocationSearch::Prepare() {
  states_.resize(claims_.size());
  bool any_all_mode = false;
  for (size_t c = 0; c < claims_.size(); ++c) {
    ClaimState& cs = states_[c];
    const api::ResourceClaim& claim = *claims_[c];
    cs.claim = &claim;
    cs.display = ClaimName(claim);
    const auto& requests = claim.spec.devices.requests;
    int min_devices = 0;
    cs.slots.resize(requests.size());
    for (size_t r = 0; r < requests.size(); ++r) {
      const api::DeviceRequest& request = requests[r];
      RequestSlot& slot = cs.slots[r];
      auto base = [&](RequestData& d) {
        d.claim = static_cast<int>(c);
        d.request = static_cast<int>(r);
        d.base_name = request.name;
      };
      if (!request.first_available.empty()) {
        slot.has_subrequests = true;
        int min_request = std::numeric_limits<int>::max();
        for (size_t s = 0; s < request.first_available.size(); ++s) {
          RequestData& d = slot.alternatives.emplace_back();
          base(d);
          d.subrequest = static_cast<int>(s);
          d.sub_name = request.first_available[s].name;
          d.name = request.name + "/" + request.first_available[s].name;
        }
        for (RequestData& d : slot.alternatives) {
          bool too_large = false;
          RETURN_IF_ERROR(PrepareRequest(d, too_large));
          min_request = std::min(min_request, d.num_devices);
          any_all_mode |= d.all_mode;
        }
        min_devices += min_request;
      } else {
        RequestData& d = slot.alternatives.emplace_back();
        base(d);
        d.name = request.name;
        bool too_large = false;
        RETURN_IF_ERROR(PrepareRequest(d, too_large));
        min_devices += d.num_devices;
        any_all_mode |= d.all_mode;
      }
    }
    if (min_devices > kMaxDevicesPerClaim) {
      return InvalidArgumentError(fmt::format(
          "claim {}: number of requested devices {} exceeds the claim limit "
          "of {}",
          cs.display, min_devices, kMaxDevicesPerClaim));
    }

    const auto& constraints = claim.spec.devices.constraints;
    for (size_t i = 0; i < constraints.size(); ++i) {
      const api::DeviceConstraint& constraint = constraints[i];
      if (constraint.match_attribute) {
        cs.constraints.push_back(ClaimConstraint::MatchAttribute(
            constraint.requests, *constraint.match_attribute));
      } else if (constraint.distinct_attribute) {
        cs.constraints.push_back(ClaimConstraint::DistinctAttribute(
            constraint.requests, *constraint.distinct_attribute));
      } else if (constraint.cel) {
        auto program =
            cel::ConstraintCache().GetOrCompile(constraint.cel->expression);
        if (!program.ok()) {
          return InvalidArgumentError(
              fmt::format("claim {}, constraint #{}: CEL compile error: {}",
                          cs.display, i, program.status().message()));
        }
        std::vector<std::shared_ptr<const cel::Program>> prefix_checks;
        for (const std::string& part :
             PrefixClosedConjuncts(constraint.cel->expression)) {
          auto check = cel::ConstraintCache().GetOrCompile(part);
          if (check.ok()) prefix_checks.push_back(*check);
        }
        cs.constraints.push_back(ClaimConstraint::Cel(
            constraint.requests, constraint.cel->expression, *program,
            std::move(prefix_checks)));
      } else {
        return InvalidArgumentError(fmt::format(
            "claim {}, constraint #{}: empty constraint (unsupported "
            "constraint type?)",
            cs.display, i));
      }
      cs.reads_derived.push_back(
          SomeRequestDerives(claim, cs.constraints.back()->subject()));
      // Where a CEL constraint's set is complete: after the last request it
      // names (its base request), or the last request of the claim.
      int last = static_cast<int>(requests.size()) - 1;
      if (!constraint.requests.empty()) {
        last = -1;
        for (const std::string& name : constraint.requests) {
          std::string_view base_name =
              std::string_view(name).substr(0, name.find('/'));
          for (size_t r = 0; r < requests.size(); ++r) {
            if (requests[r].name == base_name)
              last = std::max(last, static_cast<int>(r));
          }
        }
        if (last < 0) last = static_cast<int>(requests.size()) - 1;
      }
      cs.cel_complete_after.push_back(last);
    }
  }

  // Pruning must never hide what upstream would report: with erroneous
  // candidates or All-mode requests (whose constraint failures are fatal),
  // value-group pruning is off.
  for (const ClaimState& cs : states_) {
    for (const RequestSlot& slot : cs.slots) {
      for (const RequestData& d : slot.alternatives) {
        if (d.has_error_candidates) pruning_ = false;
      }
    }
  }
  if (any_all_mode) pruning_ = false;
  return OkStatus();
}

Status AllocationSearch::PrepareRequest(RequestData& d, bool& too_large) {
  const api::ResourceClaim& claim = *claims_[d.claim];
  const api::DeviceRequest& request = claim.spec.devices.requests[d.request];
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::string* class_name = nullptr;
  const std::string* mode = nullptr;
  int64_t count = 0;
  if (d.subrequest >= 0) {
    const api::DeviceSubRequest& sub = request.first_available[d.subrequest];
    selectors = &sub.selectors;
    class_name = &sub.device_class_name;
    mode = &sub.allocation_mode;
    count = sub.count;
    d.tolerations = &sub.tolerations;
    d.capacity = sub.capacity ? &*sub.capacity : nullptr;
  } else if (request.exactly) {
    const api::ExactDeviceRequest& exact = *request.exactly;
    if (!exact.derived_attributes.empty()) {
      auto derived =
          DerivedAttributeEvaluator::Compile(exact.derived_attributes);
      if (!derived.ok()) {
        return InvalidArgumentError(
            fmt::format("claim {}, request {}: {}", states_[d.claim].display,
                        d.name, derived.status().message()));
      }
      d.derived = *std::move(derived);
    }
    selectors = &exact.selectors;
    class_name = &exact.device_class_name;
    mode = &exact.allocation_mode;
    count = exact.count;
    d.admin = exact.admin_access.value_or(false);
    d.tolerations = &exact.tolerations;
    d.capacity = exact.capacity ? &*exact.capacity : nullptr;
  } else {
    return InvalidArgumentError(fmt::format(
        "claim {}, request {}: missing device class name (unsupported request "
        "type?)",
        states_[d.claim].display, d.name));
  }
  const std::string& display = states_[d.claim].display;
  std::string_view own_name = d.subrequest >= 0 ? d.sub_name : d.base_name;
  for (size_t i = 0; i < selectors->size(); ++i) {
    if (!(*selectors)[i].cel) {
      return InvalidArgumentError(fmt::format(
          "claim {}, request {}, selector #{}: CEL expression empty "
          "(unsupported selector type?)",
          display, own_name, i));
    }
  }
  if (class_name->empty()) {
    return InvalidArgumentError(fmt::format(
        "claim {}, request {}: missing device class name (unsupported request "
        "type?)",
        display, own_name));
  }
  d.device_class = inventory_.FindClass(*class_name);
  if (d.device_class == nullptr) {
    return InvalidArgumentError(
        fmt::format("claim {}, request {}: could not retrieve device class {}: "
                    "deviceclass.resource.k8s.io \"{}\" not found",
                    display, own_name, *class_name, *class_name));
  }
  // `owner` is "class" or "claim"; names are formatted only for errors.
  auto compile = [&](const std::vector<api::DeviceSelector>& from,
                     std::vector<CompiledSelector>& to, std::string_view owner,
                     const std::string& name) -> Status {
    to.reserve(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      if (!from[i].cel) {
        return InvalidArgumentError(fmt::format(
            "{} {}: selector #{}: CEL expression empty (unsupported selector "
            "type?)",
            owner, name, i));
      }
      const std::string& text = from[i].cel->expression;
      auto selector = inventory_.SelectorFor(text);
      if (!selector.ok()) {
        return InvalidArgumentError(
            fmt::format("{} {}: selector #{}: CEL compile error: {}", owner,
                        name, i, selector.status().message()));
      }
      to.push_back({&text, std::move(selector->program), selector->verdicts});
    }
    return OkStatus();
  };
  RETURN_IF_ERROR(compile(d.device_class->spec.selectors, d.class_selectors,
                          "class", d.device_class->metadata.name));
  RETURN_IF_ERROR(compile(*selectors, d.request_selectors, "claim", display));

  if (mode->empty() || *mode == "ExactCount") {
    d.num_devices = static_cast<int>(std::clamp<int64_t>(
        count <= 0 ? 1 : count, 1, std::numeric_limits<int>::max()));
    too_large = count > std::numeric_limits<int>::max();
    return ComputeCandidates(d);
  }
  if (*mode != "All") {
    return InvalidArgumentError(
        fmt::format("claim {}, request {}: unsupported count mode {}", display,
                    own_name, *mode));
  }
  d.all_mode = true;
  for (const GatheredPool& pool : view_.pools) {
    const InventoryPool& ip = inventory_.pools()[pool.pool];
    if (pool.incomplete) {
      return FailedPreconditionError(fmt::format(
          "claim {}, request {}: asks for all devices, but resource pool {}/{} "
          "is currently being updated",
          display, own_name, ip.driver, ip.name));
    }
    if (pool.invalid) {
      return FailedPreconditionError(fmt::format(
          "claim {}, request {}: asks for all devices, but resource pool {}/{} "
          "is currently invalid",
          display, own_name, ip.driver, ip.name));
    }
    for (uint32_t device : pool.devices) {
      Status error;
      SelectorVerdict verdict = Selectable(d, device, &error);
      if (verdict == SelectorVerdict::kError) return error;
      if (verdict != SelectorVerdict::kMatch) continue;
      if (!CapacityFits(d, device)) continue;
      RETURN_IF_ERROR(EvaluateDerived(d, device));
      d.all_devices.push_back(device);
    }
  }
  d.num_devices = static_cast<int>(d.all_devices.size());
  d.evaluated = true;
  return OkStatus();
}

Status AllocationSearch::ComputeCandidates(RequestData& d) {
  d.candidates.reserve(view_.num_devices);
  const bool derive = !d.derived.empty();
  for (uint32_t p = 0; p < view_.pools.size(); ++p) {
    const GatheredPool& pool = view_.pools[p];
    if (pool.incomplete || pool.invalid) continue;
    for (uint32_t device : pool.devices) {
      SelectorVerdict verdict = Selectable(d, device, nullptr);
      if (verdict == SelectorVerdict::kNoMatch) continue;
      if (derive && verdict == SelectorVerdict::kMatch) {
        RETURN_IF_ERROR(EvaluateDerived(d, device));
      }
      Candidate c;
      c.device = device;
      c.pool_pos = p;
      c.error = verdict == SelectorVerdict::kError;
      d.has_error_candidates |= c.error;
      d.candidates.push_back(c);
    }
  }
  d.evaluated = true;
  return OkStatus();
}

SelectorVerdict AllocationSearch::Selectable(const RequestData& d,
                                             uint32_t device, Status* error) {
  // Class selectors first, then the request's, as upstream.
  const std::pair<const std::vector<CompiledSelector>*, bool> lists[] = {
      {&d.class_selectors, true}, {&d.request_selectors, false}};
  for (const auto& [selectors, is_class] : lists) {
    for (size_t i = 0; i < selectors->size(); ++i) {
      const CompiledSelector& s = (*selectors)[i];
      Status e;
      SelectorVerdict v =
          inventory_.MatchSelector(s.verdicts, *s.program, device, &e);
      if (v == SelectorVerdict::kMatch) continue;
      if (v == SelectorVerdict::kError && error != nullptr) {
        *error = FailedPreconditionError(fmt::format(
            "{} {}: selector #{} on device {}: CEL runtime error: {}",
            is_class ? "class" : "claim",
            is_class ? d.device_class->metadata.name : states_[d.claim].display,
            i, inventory_.devices()[device].id, e.message()));
      }
      return v;
    }
  }
  return SelectorVerdict::kMatch;
}

Status AllocationSearch::EvaluateDerived(RequestData& d, uint32_t device) {
  if (d.derived.empty()) return OkStatus();
  if (!d.derived_values) {
    d.derived_values =
        std::make_unique<std::unordered_map<uint32_t, DerivedValues>>();
  }
  if (d.derived_values->contains(device)) return OkStatus();
  StatusOr<DerivedValues> values =
      d.derived.Evaluate(inventory_.devices()[device]);
  if (!values.ok()) {
    return FailedPreconditionError(fmt::format("claim {}, request {}: {}",
                                               states_[d.claim].display, d.name,
                                               values.status().message()));
  }
  d.derived_values->emplace(device, *std::move(values));
  return OkStatus();
}

const DerivedValues* AllocationSearch::DerivedFor(const RequestData& d,
                                                  uint32_t device) {
  if (d.derived_values == nullptr) return nullptr;
  auto it = d.derived_values->find(device);
  return it == d.derived_values->end() ? nullptr : &it->second;
}

Status AllocationSearch::SelectorError(const RequestData& d, uint32_t device) {
  Status error = InternalError("selector error without a message");
  Selectable(d, device, &error);
  return error;
}

}  // namespace dralloc::allocator
