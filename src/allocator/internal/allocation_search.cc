// AllocationSearch, the search: upstream's allocateOne / allocateDevice
// with sound pruning, and the placement state it keeps and undoes.
#include "allocator/internal/allocation_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <random>

#include "api/claim_helpers.h"

namespace dralloc::allocator {
namespace {

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
// DRAFractionalCapacityRange (GA behaviour in 1.37): a range with a
// fractional min, max or step is computed in thousandths of a unit, any
// other range in whole units (upstream's Quantity.Value()).
struct RangeArithmetic {
  bool milli = false;
  explicit RangeArithmetic(const api::CapacityRequestPolicyRange& range) {
    for (const auto* q : {&range.min, &range.max, &range.step}) {
      if (*q && !(Quantity::FromInt64((*q)->Value()) == **q)) milli = true;
    }
  }
  int64_t Units(const Quantity& q) const {
    return milli ? q.MilliValue() : q.Value();
  }
  Quantity FromUnits(int64_t units) const {
    return milli ? Quantity::FromMilli(units)
                 : Quantity::FromInt64(units, QuantityFormat::kBinarySI);
  }
};

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
    const RangeArithmetic math(range);
    int64_t step = math.Units(*range.step), min = math.Units(*range.min);
    if (step <= 0) return *requested;
    int64_t added = math.Units(*requested) - min;
    int64_t n = added / step + (added % step != 0 ? 1 : 0);
    return math.FromUnits(min + step * n);
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
      const RangeArithmetic math(range);
      int64_t step = math.Units(*range.step);
      if (step > 0 &&
          (math.Units(amount) - math.Units(*range.min)) % step != 0) {
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

StatusOr<Allocation> AllocationSearch::Run() {
  picked_.assign(claims_.size(), {});
  undo_.assign(claims_.size(), {});
  // Counter state is sized when a pool's counters are first used.

  Allocation allocation;
  // Diagnostics on success describe the node before this call's choices.
  if (options_.explain) allocation.explanation = Explain(nullptr);
  Outcome outcome = Step(SearchPosition{});
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

AllocationSearch::Outcome AllocationSearch::Step(SearchPosition at) {
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
  const int claim = at.claim;
  if (claim >= static_cast<int>(states_.size())) return Outcome::kDone;
  ClaimState& cs = states_[claim];
  const int request = at.request;
  if (request >= static_cast<int>(cs.slots.size())) {
    Outcome next = Step(at.NextClaim());
    return next == Outcome::kTooMany ? Outcome::kFail : next;
  }
  RequestSlot& slot = cs.slots[request];
  if (!at.in_subrequest && slot.has_subrequests) {
    bool all_too_many = true;
    for (int s = 0; s < static_cast<int>(slot.alternatives.size()); ++s) {
      Outcome o = Step(at.Alternative(s));
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
  RequestData& d = slot.alternatives[at.subrequest];
  const int k = at.device;
  if (d.all_mode && d.all_devices.empty()) return Outcome::kFail;
  if (k >= d.num_devices) {
    if (!CheckCompleted(claim, request)) {
      return fatal_.ok() ? Outcome::kFail : Outcome::kError;
    }
    return Step(at.NextRequest());
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
    Outcome o = Step(at.NextDevice(0));
    if (o != Outcome::kDone) Unplace(claim);
    return o;
  }

  if (!d.has_error_candidates) {
    const size_t from = std::min<size_t>(at.start, d.candidates.size());
    if (d.backtracked && d.free_suffix.empty()) ComputeFreeSuffix(d);
    const size_t bound = d.free_suffix.empty() ? d.candidates.size() - from
                                               : d.free_suffix[from];
    if (bound < static_cast<size_t>(d.num_devices - k)) {
      ++stats_.pruned;
      return Outcome::kFail;
    }
  }
  for (size_t pos = at.start; pos < d.candidates.size(); ++pos) {
    const Candidate& c = d.candidates[pos];
    if (InUseForRequest(claim, d, c)) continue;
    if (c.error) {
      fatal_ = SelectorError(d, c.device);
      return Outcome::kError;
    }
    Placement placed = Place(claim, d, c, /*must=*/false);
    if (placed == Placement::kError) return Outcome::kError;
    if (placed == Placement::kNo) continue;
    Outcome o = Step(at.NextDevice(pos + 1));
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

  const bool has_consumption = device.consumes_counters;
  const bool skip_counters =
      shareable && (state_.ConsumedCapacity(device.id) != nullptr ||
                    sharing_.contains(c.device));
  bool took_counters = false;
  if (has_consumption && !skip_counters) {
    if (!AddCounters(c.pool_pos, c.device)) return Placement::kNo;
    took_counters = true;
  }
  const bool grouped = has_consumption && inventory_.any_compatibility_groups();
  if (grouped && !JoinCompatibilityGroups(c.pool_pos, c.device)) {
    if (took_counters) RemoveCounters(c.pool_pos, c.device);
    return Placement::kNo;
  }
  auto undo_groups = [&] {
    if (grouped) compatibility_->Remove(c.pool_pos, c.device);
  };

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
      ok = constraint.Add(device, DerivedFor(d, c.device));
    }
    if (!ok) {
      undo_constraints(added);
      undo_groups();
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
    undo_groups();
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
  undo_[claim].push_back({.constraints_added = added,
                          .counters = took_counters,
                          .exclusive = !shareable,
                          .groups = grouped,
                          .pool_pos = c.pool_pos});
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
  if (undo.groups) compatibility_->Remove(undo.pool_pos, picked.device);
  if (undo.counters) RemoveCounters(undo.pool_pos, picked.device);
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
  const InventoryDevice& published = inventory_.devices()[device];
  if (!published.has_taints) return true;
  for (const api::DeviceTaint& taint : published.device->taints) {
    if (!Blocks(taint)) continue;
    bool tolerated = false;
    if (d.tolerations != nullptr) {
      for (const auto& toleration : *d.tolerations) {
        if (api::DeviceTolerationMatches(toleration, taint)) {
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

bool AllocationSearch::JoinCompatibilityGroups(uint32_t pool_pos,
                                               uint32_t device) {
  if (!compatibility_) {
    compatibility_ = std::make_unique<CompatibilityTracker>(
        inventory_, view_, [this](uint32_t d) {
          return state_.IsInUse(inventory_.devices()[d].id);
        });
  }
  return compatibility_->TryAdd(pool_pos, device);
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
  if (slash == std::string::npos || cs.reads_derived[index]) return true;
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

}  // namespace dralloc::allocator
