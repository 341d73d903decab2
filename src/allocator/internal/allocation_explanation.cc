// AllocationSearch::Explain: per-request and per-constraint diagnostics that
// say why claims do not fit on a node (upstream only says "cannot allocate
// all claims").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "allocator/internal/allocation_search.h"

namespace dralloc::allocator {
namespace {

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Whether `usable` devices are enough for request alternative `d` on its own.
bool Enough(const RequestData& d, const std::vector<uint32_t>& usable) {
  return d.all_mode ? !usable.empty() && usable.size() == d.all_devices.size()
                    : static_cast<int>(usable.size()) >= d.num_devices;
}

}  // namespace

// Why the devices of the node that request alternative `d` cannot use are
// unusable, one count per cause (the first cause that applies).
struct AllocationSearch::RejectionTally {
  size_t in_bad_pools = 0;
  size_t in_use = 0;
  size_t capacity = 0;
  size_t counters = 0;
  size_t errors = 0;
  std::map<std::string, size_t> tainted;  // by taint effect
  std::vector<size_t> by_class;           // per class selector
  std::vector<size_t> by_request;         // per request selector

  // The counts as phrases ("3 allocated to other claims"), in report order.
  std::vector<std::string> Causes(const RequestData& d) const;
};

// What Explain has to say: reasons (what blocks the claims), details and the
// CEL constraint lines (reasons only when nothing else is).
struct AllocationSearch::ExplanationLines {
  std::vector<std::string> reasons;
  std::vector<std::string> details;
  std::vector<std::string> cel;
};

std::vector<std::string> AllocationSearch::RejectionTally::Causes(
    const RequestData& d) const {
  std::vector<std::string> causes;
  for (size_t i = 0; i < by_class.size(); ++i) {
    if (by_class[i] > 0) {
      causes.push_back(fmt::format("{} rejected by class selector '{}'",
                                   by_class[i],
                                   *d.class_selectors[i].expression));
    }
  }
  for (size_t i = 0; i < by_request.size(); ++i) {
    if (by_request[i] > 0) {
      causes.push_back(fmt::format("{} rejected by selector '{}'",
                                   by_request[i],
                                   *d.request_selectors[i].expression));
    }
  }
  if (errors > 0) {
    causes.push_back(
        fmt::format("{} failed a selector with a CEL runtime error", errors));
  }
  if (in_use > 0) {
    causes.push_back(fmt::format("{} allocated to other claims", in_use));
  }
  for (const auto& [effect, n] : tainted) {
    causes.push_back(fmt::format("{} tainted {} and not tolerated", n, effect));
  }
  if (capacity > 0) {
    causes.push_back(fmt::format("{} without enough capacity", capacity));
  }
  if (counters > 0) {
    causes.push_back(
        fmt::format("{} without enough shared counters", counters));
  }
  if (in_bad_pools > 0) {
    causes.push_back(
        fmt::format("{} in pools being updated or invalid", in_bad_pools));
  }
  return causes;
}

bool AllocationSearch::RejectedBySelector(const RequestData& d, uint32_t device,
                                          RejectionTally& tally) const {
  bool rejected = false;
  for (size_t i = 0; !rejected && i < d.class_selectors.size(); ++i) {
    const auto& s = d.class_selectors[i];
    auto v = inventory_.MatchSelector(s.verdicts, *s.program, device, nullptr);
    if (v == SelectorVerdict::kError) ++tally.errors, rejected = true;
    if (v == SelectorVerdict::kNoMatch) ++tally.by_class[i], rejected = true;
  }
  for (size_t i = 0; !rejected && i < d.request_selectors.size(); ++i) {
    const auto& s = d.request_selectors[i];
    auto v = inventory_.MatchSelector(s.verdicts, *s.program, device, nullptr);
    if (v == SelectorVerdict::kError) ++tally.errors, rejected = true;
    if (v == SelectorVerdict::kNoMatch) ++tally.by_request[i], rejected = true;
  }
  return rejected;
}

std::vector<uint32_t> AllocationSearch::UsableOnItsOwn(const RequestData& d,
                                                       RejectionTally& tally) {
  tally.by_class.assign(d.class_selectors.size(), 0);
  tally.by_request.assign(d.request_selectors.size(), 0);
  std::vector<uint32_t> usable;
  for (uint32_t p = 0; p < view_.pools.size(); ++p) {
    const GatheredPool& pool = view_.pools[p];
    for (uint32_t device : pool.devices) {
      if (pool.incomplete || pool.invalid) {
        ++tally.in_bad_pools;
        continue;
      }
      if (RejectedBySelector(d, device, tally)) continue;
      const InventoryDevice& dev = inventory_.devices()[device];
      if (!d.admin && state_.IsAllocated(dev.id)) {
        ++tally.in_use;
        continue;
      }
      if (!TaintsTolerated(d, device)) {
        for (const auto& taint : dev.device->taints) {
          if (taint.effect == "NoSchedule" || taint.effect == "NoExecute") {
            ++tally.tainted[taint.effect];
            break;
          }
        }
        continue;
      }
      if ((d.capacity != nullptr || dev.shareable()) &&
          !CapacityFits(d, device)) {
        ++tally.capacity;
        continue;
      }
      if (!dev.device->consumes_counters.empty() &&
          !(dev.shareable() && state_.ConsumedCapacity(dev.id) != nullptr)) {
        bool fits = AddCounters(p, device);
        if (fits) RemoveCounters(p, device);
        if (!fits) {
          ++tally.counters;
          continue;
        }
      }
      usable.push_back(device);
    }
  }
  return usable;
}

std::string AllocationSearch::RequestLine(const ClaimState& cs,
                                          const RequestData& d,
                                          const RejectionTally& tally,
                                          size_t num_usable) const {
  std::vector<std::string> causes = tally.Causes(d);
  std::string needs = d.all_mode ? std::string("needs all devices")
                                 : fmt::format("needs {}", d.num_devices);
  std::string line = fmt::format(
      "claim {} request \"{}\": {} of class \"{}\"{} on {}: {} in {}",
      cs.display, d.name, needs, d.device_class->metadata.name,
      d.admin ? " with admin access" : "", view_.node.name,
      Plural(view_.num_devices, "device", "devices"),
      Plural(view_.pools.size(), "pool", "pools"));
  for (size_t i = 0; i < causes.size(); ++i) {
    line += (i == 0 ? "; " : ", ") + causes[i];
  }
  line += fmt::format("; {} usable", num_usable);
  return line;
}

bool AllocationSearch::ExplainRequests(const ClaimState& cs,
                                       UsableDevices& usable,
                                       ExplanationLines& out) {
  bool every_request_has_enough = true;
  for (const RequestSlot& slot : cs.slots) {
    for (const RequestData& d : slot.alternatives) {
      RejectionTally tally;
      std::vector<uint32_t>& ok = usable[&d];
      ok = UsableOnItsOwn(d, tally);
      std::string line = RequestLine(cs, d, tally, ok.size());
      const bool enough = Enough(d, ok);
      if (!enough && !slot.has_subrequests) every_request_has_enough = false;
      // A request is a reason when no alternative of it is enough.
      if (!enough &&
          (!slot.has_subrequests || &d == &slot.alternatives.back())) {
        bool none = true;
        for (const RequestData& alternative : slot.alternatives) {
          if (Enough(alternative, usable[&alternative])) none = false;
        }
        if (none) out.reasons.push_back(line);
      }
      out.details.push_back(std::move(line));
    }
  }
  return every_request_has_enough;
}

void AllocationSearch::ExplainConstraint(const ClaimState& cs, size_t index,
                                         UsableDevices& usable,
                                         ExplanationLines& out) const {
  const ClaimConstraint& constraint = *cs.constraints[index];
  std::set<uint32_t> devices;
  const int demand =
      ConstrainedDemand(cs, constraint, [&](const RequestData& d) {
        devices.insert(usable[&d].begin(), usable[&d].end());
        return true;
      });
  std::string scope = constraint.requests().empty()
                          ? std::string("all requests")
                          : fmt::format("requests [{}]",
                                        fmt::join(constraint.requests(), ", "));
  if (constraint.kind() == ClaimConstraint::Kind::kCel) {
    out.cel.push_back(fmt::format(
        "claim {} constraint #{} (cel '{}') over {}: no combination of "
        "the {} usable devices satisfies it ({} complete sets checked, "
        "{} partial sets rejected)",
        cs.display, index, constraint.subject(), scope, devices.size(),
        stats_.cel_evaluations,
        static_cast<const CelConstraint&>(constraint).prefix_rejections()));
    return;
  }
  const bool match =
      constraint.kind() == ClaimConstraint::Kind::kMatchAttribute;
  // Usable devices by attribute value (each value of a matchAttribute list
  // on its own).
  std::map<std::string, size_t> by_value;
  size_t missing = 0;
  for (uint32_t device : devices) {
    auto value =
        LookupAttribute(inventory_.devices()[device], constraint.subject());
    if (!value) {
      ++missing;
      continue;
    }
    if (match) {
      for (const std::string& v : value->values) {
        AttributeSet one{value->type, {v}};
        ++by_value[one.ToString()];
      }
    } else {
      ++by_value[value->ToString()];
    }
  }
  size_t most = 0;
  std::vector<std::string> parts;
  for (const auto& [value, n] : by_value) most = std::max(most, n);
  for (const auto& [value, n] : by_value) {
    parts.push_back(
        fmt::format("{}: {}", value, Plural(n, "device", "devices")));
  }
  if (missing > 0) {
    parts.push_back(fmt::format("without the attribute: {}", missing));
  }
  bool impossible = match ? most < static_cast<size_t>(demand)
                          : by_value.size() < static_cast<size_t>(demand);
  (impossible ? out.reasons : out.details)
      .push_back(fmt::format(
          "claim {} constraint #{} ({} \"{}\") over {}: needs {} with "
          "{}; usable devices by value: {}",
          cs.display, index, match ? "matchAttribute" : "distinctAttribute",
          constraint.subject(), scope, Plural(demand, "device", "devices"),
          match ? "one common value" : "pairwise distinct values",
          parts.empty() ? std::string("none")
                        : fmt::format("{}", fmt::join(parts, ", "))));
}

std::vector<std::string> AllocationSearch::Explain(size_t* num_reasons) {
  // Reasons: requests or constraints that cannot be met even on their own.
  // Details: everything else the search saw.
  ExplanationLines out;
  for (const ClaimState& cs : states_) {
    // Devices each request alternative could use on its own.
    UsableDevices usable;
    const bool every_request_has_enough = ExplainRequests(cs, usable, out);
    for (size_t i = 0; i < cs.constraints.size(); ++i) {
      ExplainConstraint(cs, i, usable, out);
    }
    if (every_request_has_enough && cs.constraints.empty() &&
        states_.size() > 1) {
      out.details.push_back(fmt::format(
          "claim {}: each request fits on its own, but not together with the "
          "other claims allocated in this call",
          cs.display));
    } else if (every_request_has_enough && cs.constraints.empty() &&
               cs.slots.size() > 1) {
      out.details.push_back(fmt::format(
          "claim {}: each request fits on its own, but the requests compete "
          "for the same devices",
          cs.display));
    }
  }
  std::vector<std::string>& reasons = out.reasons;
  if (reasons.empty() && !out.cel.empty()) {
    reasons = std::move(out.cel);
  } else {
    out.details.insert(out.details.end(), out.cel.begin(), out.cel.end());
  }
  if (reasons.empty() && !states_.empty()) {
    reasons.push_back(fmt::format(
        "each request and constraint can be met on its own, but not all "
        "together on {} ({} search steps tried every combination in order)",
        view_.node.name, stats_.steps));
  }
  if (num_reasons != nullptr) *num_reasons = reasons.size();
  for (std::string& line : out.details) {
    if (std::find(reasons.begin(), reasons.end(), line) == reasons.end()) {
      reasons.push_back(std::move(line));
    }
  }
  if (reasons.empty()) reasons.push_back("no claims to allocate");
  return reasons;
}

}  // namespace dralloc::allocator
