#include "allocator/allocation_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

#include "allocator/prefix_closed_conjuncts.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::allocator {
namespace {

std::string ClaimName(const api::ResourceClaim& claim) {
  return claim.metadata.namespace_.empty()
             ? claim.metadata.name
             : claim.metadata.namespace_ + "/" + claim.metadata.name;
}

Quantity Plus(const Quantity& a, const Quantity& b) {
  auto sum = a.Add(b);
  return sum.ok() ? *sum : a;
}
Quantity Minus(const Quantity& a, const Quantity& b) {
  auto difference = a.Sub(b);
  return difference.ok() ? *difference : a;
}

std::string RandomShareId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                         // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32,
                     (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFULL);
}

// Capacity a request consumes of one device capacity (upstream's rounding).
Quantity ConsumedAmount(const Quantity* requested,
                        const api::DeviceCapacity& c) {
  const auto& policy = c.request_policy;
  if (requested == nullptr) {
    return policy && policy->default_ ? *policy->default_ : c.value;
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    const auto& range = *policy->valid_range;
    if (requested->Compare(*range.min) < 0) return *range.min;
    if (!range.step) return *requested;
    int64_t step = range.step->Value(), min = range.min->Value();
    if (step <= 0) return *requested;
    int64_t added = requested->Value() - min;
    int64_t n = added / step + (added % step != 0 ? 1 : 0);
    return Quantity::FromInt64(min + step * n, QuantityFormat::kBinarySI);
  }
  if (!policy->valid_values.empty()) {
    for (const Quantity& v : policy->valid_values) {
      if (requested->Compare(v) <= 0) return v;
    }
  }
  return *requested;
}

bool ViolatesPolicy(const Quantity& amount,
                    const std::optional<api::CapacityRequestPolicy>& policy) {
  if (!policy) return false;
  if (policy->default_ && amount.Compare(*policy->default_) == 0) return false;
  if (policy->valid_range) {
    const auto& range = *policy->valid_range;
    if (range.max && amount.Compare(*range.max) > 0) return true;
    if (range.step && range.min) {
      int64_t step = range.step->Value();
      if (step > 0 && (amount.Value() - range.min->Value()) % step != 0) {
        return true;
      }
    }
    return false;
  }
  if (!policy->valid_values.empty()) {
    return std::none_of(
        policy->valid_values.begin(), policy->valid_values.end(),
        [&](const Quantity& v) { return amount.Compare(v) == 0; });
  }
  return false;
}

bool Tolerates(const api::DeviceToleration& toleration,
               const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_ == "Exists") return true;
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") {
    return toleration.value == taint.value;
  }
  return false;
}

bool Blocks(const api::DeviceTaint& taint) {
  return taint.effect == "NoSchedule" || taint.effect == "NoExecute";
}

}  // namespace

AllocationSearch::AllocationSearch(
    const DeviceInventory& inventory, const AllocatedState& state,
    const AllocatorOptions& options, const NodeView& view,
    std::span<const api::ResourceClaim* const> claims)
    : inventory_(inventory),
      state_(state),
      options_(options),
      view_(view),
      claims_(claims) {}

AllocationSearch::~AllocationSearch() = default;

// ---------------------------------------------------------------------------
// Preparation (upstream's per-claim checks and validateDeviceRequest).

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
      d.all_devices.push_back(device);
    }
  }
  d.num_devices = static_cast<int>(d.all_devices.size());
  d.evaluated = true;
  return OkStatus();
}

Status AllocationSearch::ComputeCandidates(RequestData& d) {
  d.candidates.reserve(view_.num_devices);
  for (uint32_t p = 0; p < view_.pools.size(); ++p) {
    const GatheredPool& pool = view_.pools[p];
    if (pool.incomplete || pool.invalid) continue;
    for (uint32_t device : pool.devices) {
      SelectorVerdict verdict = Selectable(d, device, nullptr);
      if (verdict == SelectorVerdict::kNoMatch) continue;
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

Status AllocationSearch::SelectorError(const RequestData& d, uint32_t device) {
  Status error = InternalError("selector error without a message");
  Selectable(d, device, &error);
  return error;
}

// ---------------------------------------------------------------------------
// Search.

StatusOr<Allocation> AllocationSearch::Run() {
  picked_.assign(claims_.size(), {});
  undo_.assign(claims_.size(), {});
  // Counter state is sized when a pool's counters are first used.

  Allocation allocation;
  // Diagnostics on success describe the node before this call's choices.
  if (options_.explain) allocation.explanation = Explain(nullptr);
  Outcome outcome = Step(0, 0, 0, 0, false, 0);
  if (outcome == Outcome::kError) return fatal_;
  if (outcome == Outcome::kDone) {
    allocation.allocated = true;
    for (size_t c = 0; c < claims_.size(); ++c) {
      allocation.results.push_back(BuildResult(static_cast<int>(c)));
    }
    allocation.stats = stats_;
    return allocation;
  }
  if (view_.any_invalid) {
    std::string reasons;
    for (const GatheredPool& pool : view_.pools) {
      if (!pool.invalid) continue;
      const InventoryPool& ip = inventory_.pools()[pool.pool];
      reasons += fmt::format("{}{}/{}: {}", reasons.empty() ? "" : "; ",
                             ip.driver, ip.name, pool.invalid_reason);
    }
    return FailedPreconditionError("invalid resource pools were encountered (" +
                                   reasons + ")");
  }
  allocation.explanation = Explain(&allocation.num_reasons);
  allocation.stats = stats_;
  return allocation;
}

AllocationSearch::Outcome AllocationSearch::Step(int claim, int request,
                                                 int sub, int k, bool in_sub,
                                                 size_t start) {
  if (++stats_.steps > options_.max_steps) {
    fatal_ = ResourceExhaustedError(fmt::format(
        "search limit reached after {} steps; the claims may fit, but "
        "proving it takes too long",
        options_.max_steps));
    return Outcome::kError;
  }
  if (options_.cancelled != nullptr &&
      options_.cancelled->load(std::memory_order_relaxed)) {
    fatal_ = Status(StatusCode::kCancelled, "allocation cancelled");
    return Outcome::kError;
  }
  if (claim >= static_cast<int>(states_.size())) return Outcome::kDone;
  ClaimState& cs = states_[claim];
  if (request >= static_cast<int>(cs.slots.size())) {
    Outcome next = Step(claim + 1, 0, 0, 0, false, 0);
    return next == Outcome::kTooMany ? Outcome::kFail : next;
  }
  RequestSlot& slot = cs.slots[request];
  if (!in_sub && slot.has_subrequests) {
    bool all_too_many = true;
    for (int s = 0; s < static_cast<int>(slot.alternatives.size()); ++s) {
      Outcome o = Step(claim, request, s, 0, true, 0);
      if (o == Outcome::kTooMany) continue;
      all_too_many = false;
      if (o == Outcome::kError) return o;
      if (o == Outcome::kDone) {
        slot.selected = s;
        return o;
      }
    }
    return all_too_many ? Outcome::kTooMany : Outcome::kFail;
  }
  RequestData& d = slot.alternatives[sub];
  if (d.all_mode && d.all_devices.empty()) return Outcome::kFail;
  if (k >= d.num_devices) {
    if (!CheckCompleted(claim, request)) {
      return fatal_.ok() ? Outcome::kFail : Outcome::kError;
    }
    return Step(claim, request + 1, 0, 0, false, 0);
  }
  if (static_cast<int>(picked_[claim].size()) + d.num_devices - k >
      kMaxDevicesPerClaim) {
    return Outcome::kTooMany;
  }

  if (d.all_mode) {
    Candidate c;
    c.device = d.all_devices[k];
    const InventoryDevice& device = inventory_.devices()[c.device];
    c.pool_pos = 0;
    for (uint32_t p = 0; p < view_.pools.size(); ++p) {
      if (view_.pools[p].pool == device.pool) c.pool_pos = p;
    }
    if (InUseForRequest(claim, d, c)) return Outcome::kFail;
    Placement placed = Place(claim, d, c, /*must=*/true);
    if (placed == Placement::kError) return Outcome::kError;
    if (placed == Placement::kNo) return Outcome::kFail;
    Outcome o = Step(claim, request, sub, k + 1, in_sub, 0);
    if (o != Outcome::kDone) Unplace(claim);
    return o;
  }

  if (!d.has_error_candidates) {
    const size_t from = std::min(start, d.candidates.size());
    if (d.backtracked && d.free_suffix.empty()) ComputeFreeSuffix(d);
    const size_t bound = d.free_suffix.empty() ? d.candidates.size() - from
                                               : d.free_suffix[from];
    if (bound < static_cast<size_t>(d.num_devices - k)) {
      ++stats_.pruned;
      return Outcome::kFail;
    }
  }
  for (size_t pos = start; pos < d.candidates.size(); ++pos) {
    const Candidate& c = d.candidates[pos];
    if (InUseForRequest(claim, d, c)) continue;
    if (c.error) {
      fatal_ = SelectorError(d, c.device);
      return Outcome::kError;
    }
    Placement placed = Place(claim, d, c, /*must=*/false);
    if (placed == Placement::kError) return Outcome::kError;
    if (placed == Placement::kNo) continue;
    Outcome o = Step(claim, request, sub, k + 1, in_sub, pos + 1);
    if (o == Outcome::kDone) return o;
    Unplace(claim);
    if (o == Outcome::kError || o == Outcome::kTooMany) return o;
  }
  d.backtracked = true;
  return Outcome::kFail;
}

void AllocationSearch::ComputeFreeSuffix(RequestData& d) const {
  d.free_suffix.assign(d.candidates.size() + 1, 0);
  for (size_t i = d.candidates.size(); i-- > 0;) {
    const Candidate& c = d.candidates[i];
    bool usable = !c.error && (d.admin || !StaticallyInUse(c));
    d.free_suffix[i] = d.free_suffix[i + 1] + (usable ? 1 : 0);
  }
}

bool AllocationSearch::StaticallyInUse(const Candidate& c) const {
  if (c.in_use_state == 0) {
    c.in_use_state =
        state_.IsAllocated(inventory_.devices()[c.device].id) ? 2 : 1;
  }
  return c.in_use_state == 2;
}

bool AllocationSearch::InUseForRequest(int claim, const RequestData& d,
                                       const Candidate& c) const {
  if (d.admin) {
    for (const PickedDevice& p : picked_[claim]) {
      if (p.device == c.device && !p.share_id) return true;
    }
    return false;
  }
  if (StaticallyInUse(c)) return true;
  return std::find(allocating_.begin(), allocating_.end(), c.device) !=
         allocating_.end();
}

AllocationSearch::Placement AllocationSearch::Place(int claim,
                                                    const RequestData& d,
                                                    const Candidate& c,
                                                    bool must) {
  const InventoryDevice& device = inventory_.devices()[c.device];
  const bool shareable = device.shareable();
  if (!TaintsTolerated(d, c.device)) return Placement::kNo;

  const bool has_consumption = !device.device->consumes_counters.empty();
  const bool skip_counters =
      shareable && (state_.ConsumedCapacity(device.id) != nullptr ||
                    sharing_.contains(c.device));
  bool took_counters = false;
  if (has_consumption && !skip_counters) {
    if (!AddCounters(c.pool_pos, c.device)) return Placement::kNo;
    took_counters = true;
  }

  ClaimState& cs = states_[claim];
  const ConstraintScopeKey key{d.base_name, d.sub_name};
  int added = 0;
  auto undo_constraints = [&](int count) {
    int seen = 0;
    std::vector<int> applied;
    for (size_t i = 0; i < cs.constraints.size() && seen < count; ++i) {
      if (cs.constraints[i]->AppliesTo(key)) {
        applied.push_back(static_cast<int>(i));
        ++seen;
      }
    }
    for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
      cs.constraints[*it]->Remove();
    }
  };
  for (size_t i = 0; i < cs.constraints.size(); ++i) {
    ClaimConstraint& constraint = *cs.constraints[i];
    if (!constraint.AppliesTo(key)) continue;
    bool ok = true;
    if (pruning_ &&
        constraint.kind() == ClaimConstraint::Kind::kMatchAttribute &&
        constraint.size() == 0 && !ValueGroupFeasible(claim, i, device)) {
      ++stats_.pruned;
      ok = false;
    }
    if (ok && must && constraint.kind() == ClaimConstraint::Kind::kCel) {
      // Devices of All requests are not pruned: a failure of theirs is
      // reported once the set is complete.
      static_cast<CelConstraint&>(constraint).AddUnchecked(device);
    } else if (ok) {
      ok = constraint.Add(device);
    }
    if (!ok) {
      undo_constraints(added);
      if (took_counters) RemoveCounters(c.pool_pos, c.device);
      if (must) {
        fatal_ = FailedPreconditionError(fmt::format(
            "claim {}, request {}: cannot add device {} because a claim "
            "constraint would not be satisfied",
            cs.display, d.subrequest >= 0 ? d.sub_name : d.base_name,
            device.id));
        return Placement::kError;
      }
      return Placement::kNo;
    }
    ++added;
  }

  if ((d.capacity != nullptr || shareable) && !CapacityFits(d, c.device)) {
    undo_constraints(added);
    if (took_counters) RemoveCounters(c.pool_pos, c.device);
    return Placement::kNo;
  }

  PickedDevice picked;
  picked.device = c.device;
  picked.request = &d;
  if (shareable) {
    const auto* requests = d.capacity ? &d.capacity->requests : nullptr;
    auto& sharing = sharing_[c.device];
    for (const auto& [name, capacity] : device.device->capacity) {
      const Quantity* requested = nullptr;
      if (requests != nullptr) {
        auto it = requests->find(name);
        if (it != requests->end()) requested = &it->second;
      }
      Quantity amount = ConsumedAmount(requested, capacity);
      auto [it, inserted] = sharing.try_emplace(name, amount);
      if (!inserted) it->second = Plus(it->second, amount);
      picked.consumed.emplace(name, amount);
    }
    picked.share_id = options_.share_id_generator
                          ? options_.share_id_generator()
                          : RandomShareId();
  } else {
    allocating_.push_back(c.device);
  }
  picked_[claim].push_back(std::move(picked));
  undo_[claim].push_back({added, took_counters, !shareable});
  return Placement::kYes;
}

void AllocationSearch::Unplace(int claim) {
  PickedDevice picked = std::move(picked_[claim].back());
  picked_[claim].pop_back();
  Undo undo = undo_[claim].back();
  undo_[claim].pop_back();
  ClaimState& cs = states_[claim];
  const ConstraintScopeKey key{picked.request->base_name,
                               picked.request->sub_name};
  std::vector<int> applied;
  for (size_t i = 0; i < cs.constraints.size() &&
                     static_cast<int>(applied.size()) < undo.constraints_added;
       ++i) {
    if (cs.constraints[i]->AppliesTo(key))
      applied.push_back(static_cast<int>(i));
  }
  for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
    cs.constraints[*it]->Remove();
  }
  if (undo.counters) {
    const InventoryDevice& device = inventory_.devices()[picked.device];
    for (uint32_t p = 0; p < view_.pools.size(); ++p) {
      if (view_.pools[p].pool == device.pool) {
        RemoveCounters(p, picked.device);
        break;
      }
    }
  }
  if (undo.exclusive) {
    // Placements are undone in reverse order: the device is the last entry.
    auto it =
        std::find(allocating_.rbegin(), allocating_.rend(), picked.device);
    if (it != allocating_.rend()) allocating_.erase(std::next(it).base());
  } else {
    auto it = sharing_.find(picked.device);
    if (it != sharing_.end()) {
      for (const auto& [name, amount] : picked.consumed) {
        auto c = it->second.find(name);
        if (c != it->second.end()) c->second = Minus(c->second, amount);
      }
      // The device counts as "capacity in use" while any share is in flight.
      bool any_share = false;
      for (const auto& p : picked_) {
        for (const PickedDevice& other : p) {
          if (other.device == picked.device && other.share_id) any_share = true;
        }
      }
      if (!any_share) sharing_.erase(it);
    }
  }
}

bool AllocationSearch::TaintsTolerated(const RequestData& d,
                                       uint32_t device) const {
  for (const api::DeviceTaint& taint :
       inventory_.devices()[device].device->taints) {
    if (!Blocks(taint)) continue;
    bool tolerated = false;
    if (d.tolerations != nullptr) {
      for (const auto& toleration : *d.tolerations) {
        if (Tolerates(toleration, taint)) {
          tolerated = true;
          break;
        }
      }
    }
    if (!tolerated) return false;
  }
  return true;
}

bool AllocationSearch::CapacityFits(const RequestData& d,
                                    uint32_t index) const {
  const InventoryDevice& device = inventory_.devices()[index];
  const auto& capacity = device.device->capacity;
  const auto* requests = d.capacity ? &d.capacity->requests : nullptr;
  if (requests != nullptr) {
    for (const auto& [name, amount] : *requests) {
      if (capacity.find(name) == capacity.end()) return false;
    }
  }
  const auto* consumed = state_.ConsumedCapacity(device.id);
  auto sharing = sharing_.find(index);
  for (const auto& [name, c] : capacity) {
    const Quantity* requested = nullptr;
    if (requests != nullptr) {
      auto it = requests->find(name);
      if (it != requests->end()) requested = &it->second;
    }
    Quantity amount = ConsumedAmount(requested, c);
    if (ViolatesPolicy(amount, c.request_policy)) return false;
    Quantity total = amount;
    if (consumed != nullptr) {
      auto it = consumed->find(name);
      if (it != consumed->end()) total = Plus(total, it->second);
    }
    if (sharing != sharing_.end()) {
      auto it = sharing->second.find(name);
      if (it != sharing->second.end()) total = Plus(total, it->second);
    }
    if (total.Compare(c.value) > 0) return false;
  }
  return true;
}

bool AllocationSearch::AddCounters(uint32_t pool_pos, uint32_t device) {
  const GatheredPool& pool = view_.pools[pool_pos];
  if (counters_ready_.size() < view_.pools.size()) {
    counters_available_.resize(view_.pools.size());
    counters_used_.resize(view_.pools.size());
    counters_ready_.resize(view_.pools.size(), false);
  }
  if (!counters_ready_[pool_pos]) {
    std::vector<Quantity> available = pool.counter_capacity;
    for (uint32_t d : pool.all_devices) {
      if (!state_.IsInUse(inventory_.devices()[d].id)) continue;
      auto it = view_.consumption.find(d);
      if (it == view_.consumption.end()) continue;
      for (const auto& [counter, amount] : it->second) {
        available[counter] = Minus(available[counter], amount);
      }
    }
    counters_available_[pool_pos] = std::move(available);
    counters_used_[pool_pos].assign(pool.counter_capacity.size(), Quantity());
    counters_ready_[pool_pos] = true;
  }
  auto it = view_.consumption.find(device);
  if (it == view_.consumption.end()) return true;
  auto& used = counters_used_[pool_pos];
  for (const auto& [counter, amount] : it->second) {
    used[counter] = Plus(used[counter], amount);
  }
  const auto& available = counters_available_[pool_pos];
  for (size_t i = 0; i < used.size(); ++i) {
    if (available[i].Compare(used[i]) < 0) {
      RemoveCounters(pool_pos, device);
      return false;
    }
  }
  return true;
}

void AllocationSearch::RemoveCounters(uint32_t pool_pos, uint32_t device) {
  auto it = view_.consumption.find(device);
  if (it == view_.consumption.end()) return;
  auto& used = counters_used_[pool_pos];
  for (const auto& [counter, amount] : it->second) {
    used[counter] = Minus(used[counter], amount);
  }
}

bool AllocationSearch::CheckCompleted(int claim, int request) {
  ClaimState& cs = states_[claim];
  for (size_t i = 0; i < cs.constraints.size(); ++i) {
    if (cs.constraints[i]->kind() != ClaimConstraint::Kind::kCel ||
        cs.cel_complete_after[i] != request) {
      continue;
    }
    ++stats_.cel_evaluations;
    auto& constraint = static_cast<CelConstraint&>(*cs.constraints[i]);
    StatusOr<bool> holds = constraint.Evaluate();
    if (!holds.ok()) {
      fatal_ = FailedPreconditionError(
          fmt::format("claim {}, constraint #{}: CEL runtime error: {}",
                      cs.display, i, holds.status().message()));
      return false;
    }
    if (!*holds) return false;
  }
  return true;
}

// Upper bound check when the first device of a matchAttribute constraint
// fixes the value: enough distinct candidate devices with that value must
// exist for every device the constrained requests still need.
bool AllocationSearch::ValueGroupFeasible(int claim, size_t index,
                                          const InventoryDevice& device) {
  ClaimState& cs = states_[claim];
  const ClaimConstraint& constraint = *cs.constraints[index];
  const std::string& name = constraint.subject();
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return true;
  const std::string id = name.substr(slash + 1);
  const api::DeviceAttribute* value = FindAttribute(device, name, id);
  if (value == nullptr || !IsScalar(*value)) return true;
  // The verdict depends only on the value: remember it for this call.
  if (cs.group_verdicts.size() < cs.constraints.size()) {
    cs.group_verdicts.resize(cs.constraints.size());
  }
  auto& verdicts = cs.group_verdicts[index];
  for (const auto& [seen, feasible] : verdicts) {
    if (ScalarEquals(*seen, *value)) return feasible;
  }
  const bool feasible = CountValueGroup(cs, constraint, name, id, *value);
  verdicts.emplace_back(value, feasible);
  return feasible;
}

bool AllocationSearch::CountValueGroup(
    const ClaimState& cs, const ClaimConstraint& constraint,
    const std::string& name, const std::string& id,
    const api::DeviceAttribute& value) const {
  std::vector<uint32_t> supply;
  bool bounded = true;
  const int demand =
      ConstrainedDemand(cs, constraint, [&](const RequestData& d) {
        // Admin requests may reuse devices in use, All requests fail hard: the
        // count would not bound them.
        if (d.admin || d.all_mode) return bounded = false;
        for (const Candidate& c : d.candidates) {
          if (c.error || StaticallyInUse(c)) continue;
          const InventoryDevice& other = inventory_.devices()[c.device];
          const api::DeviceAttribute* v = FindAttribute(other, name, id);
          if (v == nullptr) continue;
          if (other.shareable() || !IsScalar(*v)) return bounded = false;
          if (ScalarEquals(*v, value)) supply.push_back(c.device);
        }
        return true;
      });
  if (!bounded) return true;
  std::sort(supply.begin(), supply.end());
  const size_t distinct = static_cast<size_t>(
      std::unique(supply.begin(), supply.end()) - supply.begin());
  return distinct >= static_cast<size_t>(demand);
}

int AllocationSearch::ConstrainedDemand(
    const ClaimState& cs, const ClaimConstraint& constraint,
    const std::function<bool(const RequestData&)>& visit) const {
  int demand = 0;
  for (const RequestSlot& slot : cs.slots) {
    int slot_demand = std::numeric_limits<int>::max();
    bool any_in_scope = false;
    for (const RequestData& d : slot.alternatives) {
      if (!constraint.AppliesTo({d.base_name, d.sub_name})) {
        slot_demand = 0;
        continue;
      }
      if (!visit(d)) return -1;
      any_in_scope = true;
      slot_demand = std::min(slot_demand, d.num_devices);
    }
    if (any_in_scope) demand += slot_demand;
  }
  return demand;
}

// ---------------------------------------------------------------------------
// Results.

api::AllocationResult AllocationSearch::BuildResult(int claim) const {
  const ClaimState& cs = states_[claim];
  const api::ResourceClaim& rc = *cs.claim;
  api::AllocationResult result;
  for (const PickedDevice& p : picked_[claim]) {
    const InventoryDevice& device = inventory_.devices()[p.device];
    api::DeviceRequestAllocationResult r;
    r.request = p.request->name;
    r.driver = device.slice->spec.driver;
    r.pool = device.slice->spec.pool.name;
    r.device = device.device->name;
    if (p.request->admin) r.admin_access = true;
    if (p.request->tolerations) r.tolerations = *p.request->tolerations;
    r.binding_conditions = device.device->binding_conditions;
    r.binding_failure_conditions = device.device->binding_failure_conditions;
    r.share_id = p.share_id;
    r.consumed_capacity = p.consumed;
    result.devices.results.push_back(std::move(r));
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
