// AllocationSearch::Explain: per-request and per-constraint diagnostics that
// say why claims do not fit on a node (upstream only says "cannot allocate
// all claims").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
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

// Usable devices by value of `attribute` (for matchAttribute, each value of
// a list on its own), and how many lack it.
struct ValueCounts {
  std::map<std::string, size_t> by_value;
  size_t missing = 0;

  // The most devices sharing one value.
  size_t Most() const {
    size_t most = 0;
    for (const auto& [value, n] : by_value) most = std::max(most, n);
    return most;
  }
  // "\"a\": 2 devices, without the attribute: 1", or "none".
  std::string Text() const {
    std::vector<std::string> parts;
    for (const auto& [value, n] : by_value) {
      parts.push_back(
          fmt::format("{}: {}", value, Plural(n, "device", "devices")));
    }
    if (missing > 0) {
      parts.push_back(fmt::format("without the attribute: {}", missing));
    }
    return parts.empty() ? std::string("none")
                         : fmt::format("{}", fmt::join(parts, ", "));
  }
};

// "requests [a, b]" or "all requests".
std::string ScopeText(const ClaimConstraint& constraint) {
  return constraint.requests().empty()
             ? std::string("all requests")
             : fmt::format("requests [{}]",
                           fmt::join(constraint.requests(), ", "));
}

// A usable device with its derived attributes for the request it serves.
using DeviceWithDerived = std::pair<uint32_t, const DerivedValues*>;

ValueCounts CountValues(const DeviceInventory& inventory,
                        const std::string& attribute, bool match,
                        const std::set<DeviceWithDerived>& devices) {
  ValueCounts counts;
  for (const auto& [device, derived] : devices) {
    auto value = AttributeOf(inventory.devices()[device], derived, attribute);
    if (!value) {
      ++counts.missing;
      continue;
    }
    if (!match) {
      ++counts.by_value[value->ToString()];
      continue;
    }
    for (const std::string& v : value->values) {
      AttributeSet one{value->type, {v}};
      ++counts.by_value[one.ToString()];
    }
  }
  return counts;
}

}  // namespace

// Why the devices of the node that request alternative `d` cannot use are
// unusable, one count per cause (the first cause that applies).
struct AllocationSearch::RejectionTally {
  size_t in_bad_pools = 0;
  size_t in_use = 0;
  size_t capacity = 0;
  size_t counters = 0;
  size_t incompatible = 0;  // compatibility groups (KEP-5963)
  size_t errors = 0;
  size_t class_matches = 0;  // devices every class selector accepts
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
  // Per claim with prioritized lists that can be met on its own: "<subrequests>
  // for claim <ns/name>", for the headline.
  std::vector<std::string> choices;
};

// What one request alternative could use on its own.
struct AllocationSearch::RequestFacts {
  RejectionTally tally;
  std::vector<uint32_t> usable;
  bool enough = false;
};

// A matchAttribute/distinctAttribute constraint judged on some devices.
struct AllocationSearch::ConstraintVerdict {
  bool impossible = false;
  // False when no alternative of the choice is in the constraint's scope.
  bool in_effect = true;
  // Judged on chosen alternatives of prioritized lists (the line names
  // them), not on the claim as a whole.
  bool per_alternative = false;
  std::string line;  // the full explanation line
  // "constraint #0 (matchAttribute "x") needs 2 devices with one common
  // value (usable devices by value: ...)", for "no alternative fits" lines.
  std::string summary;
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
  if (incompatible > 0) {
    causes.push_back(fmt::format(
        "{} in no compatibility group shared by the devices allocated on their "
        "counter sets",
        incompatible));
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
  if (!rejected) ++tally.class_matches;
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
      if (!dev.device->consumes_counters.empty() &&
          inventory_.any_compatibility_groups()) {
        if (!JoinCompatibilityGroups(p, device)) {
          ++tally.incompatible;
          continue;
        }
        compatibility_->Remove(p, device);
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
                                       ExplanationLines& out,
                                       std::vector<std::string>& slot_reasons) {
  bool every_request_has_enough = true;
  slot_reasons.assign(cs.slots.size(), "");
  for (size_t s = 0; s < cs.slots.size(); ++s) {
    const RequestSlot& slot = cs.slots[s];
    for (const RequestData& d : slot.alternatives) {
      RequestFacts& facts = usable[&d];
      facts.usable = UsableOnItsOwn(d, facts.tally);
      facts.enough = Enough(d, facts.usable);
      std::string line = RequestLine(cs, d, facts.tally, facts.usable.size());
      if (!facts.enough && !slot.has_subrequests) {
        every_request_has_enough = false;
        slot_reasons[s] = line;
      }
      out.details.push_back(std::move(line));
    }
  }
  return every_request_has_enough;
}

AllocationSearch::ConstraintVerdict AllocationSearch::JudgeConstraint(
    const ClaimState& cs, size_t index, const UsableDevices& usable,
    const std::vector<int>* choice) const {
  const ClaimConstraint& constraint = *cs.constraints[index];
  std::set<DeviceWithDerived> devices;
  int demand = 0;
  std::vector<std::string> chosen;  // alternatives of prioritized lists
  bool any_in_scope = choice == nullptr;
  if (choice == nullptr) {
    demand = ConstrainedDemand(cs, constraint, [&](const RequestData& d) {
      for (uint32_t device : usable.at(&d).usable) {
        devices.emplace(device, DerivedFor(d, device));
      }
      return true;
    });
  } else {
    for (size_t s = 0; s < cs.slots.size(); ++s) {
      const RequestSlot& slot = cs.slots[s];
      const RequestData& d = slot.alternatives[(*choice)[s]];
      // Name the chosen alternative also when the constraint covers only
      // other alternatives of its list: that is why it does not count here.
      const bool list_in_scope =
          slot.has_subrequests &&
          std::any_of(slot.alternatives.begin(), slot.alternatives.end(),
                      [&](const RequestData& a) {
                        return constraint.AppliesTo({a.base_name, a.sub_name});
                      });
      if (list_in_scope) chosen.push_back(d.name);
      if (!constraint.AppliesTo({d.base_name, d.sub_name})) continue;
      for (uint32_t device : usable.at(&d).usable) {
        devices.emplace(device, DerivedFor(d, device));
      }
      demand += d.num_devices;
      any_in_scope = true;
    }
  }
  ConstraintVerdict verdict;
  verdict.in_effect = any_in_scope;
  verdict.per_alternative = !chosen.empty();
  const bool match =
      constraint.kind() == ClaimConstraint::Kind::kMatchAttribute;
  const ValueCounts counts =
      CountValues(inventory_, constraint.subject(), match, devices);
  verdict.impossible =
      match ? counts.Most() < static_cast<size_t>(demand)
            : counts.by_value.size() < static_cast<size_t>(demand);
  const std::string kind = fmt::format(
      "constraint #{} ({} \"{}\")", index,
      match ? "matchAttribute" : "distinctAttribute", constraint.subject());
  const std::string needs =
      fmt::format("needs {} with {}", Plural(demand, "device", "devices"),
                  match ? "one common value" : "pairwise distinct values");
  const std::string values = counts.Text();
  const std::string scope = ScopeText(constraint);
  const std::string with =
      chosen.empty() ? "" : fmt::format(" with {}", fmt::join(chosen, ", "));
  verdict.line =
      fmt::format("claim {} {} over {}{}: {}; usable devices by value: {}",
                  cs.display, kind, scope, with, needs, values);
  verdict.summary =
      fmt::format("{} {} (usable devices by value: {})", kind, needs, values);
  return verdict;
}

void AllocationSearch::ExplainConstraint(const ClaimState& cs, size_t index,
                                         const UsableDevices& usable,
                                         ExplanationLines& out) const {
  const ClaimConstraint& constraint = *cs.constraints[index];
  if (constraint.kind() != ClaimConstraint::Kind::kCel) {
    ConstraintVerdict verdict = JudgeConstraint(cs, index, usable, nullptr);
    (verdict.impossible ? out.reasons : out.details)
        .push_back(std::move(verdict.line));
    return;
  }
  std::set<uint32_t> devices;
  ConstrainedDemand(cs, constraint, [&](const RequestData& d) {
    const auto& ok = usable.at(&d).usable;
    devices.insert(ok.begin(), ok.end());
    return true;
  });
  const std::string scope = ScopeText(constraint);
  out.cel.push_back(fmt::format(
      "claim {} constraint #{} (cel '{}') over {}: no combination of "
      "the {} usable devices satisfies it ({} complete sets checked, "
      "{} partial sets rejected)",
      cs.display, index, constraint.subject(), scope, devices.size(),
      stats_.cel_evaluations,
      static_cast<const CelConstraint&>(constraint).prefix_rejections()));
}

std::string AllocationSearch::AlternativePhrase(
    const RequestData& d, const RequestFacts& facts,
    const std::string& blocked_by) const {
  const std::string needs = d.all_mode ? std::string("needs all devices")
                                       : fmt::format("needs {}", d.num_devices);
  if (facts.enough) {
    return fmt::format("{}: {} of class \"{}\", {} usable, but {}", d.name,
                       needs, d.device_class->metadata.name,
                       facts.usable.size(), blocked_by);
  }
  const size_t examined = view_.num_devices - facts.tally.in_bad_pools;
  if (examined > 0 && facts.tally.class_matches == 0) {
    return fmt::format("{}: class \"{}\" matches 0 of the {}", d.name,
                       d.device_class->metadata.name,
                       Plural(examined, "device", "devices"));
  }
  std::string phrase = fmt::format(
      "{}: {} of class \"{}\"{}, {}", d.name, needs,
      d.device_class->metadata.name, d.admin ? " with admin access" : "",
      Plural(view_.num_devices, "device", "devices"));
  for (const std::string& cause : facts.tally.Causes(d)) {
    phrase += ", " + cause;
  }
  return phrase + fmt::format(", {} usable", facts.usable.size());
}

std::string AllocationSearch::NoAlternativeLine(
    const ClaimState& cs, const RequestSlot& slot,
    const std::vector<std::string>& phrases) const {
  return fmt::format("claim {} request \"{}\" on {}: no alternative fits: {}",
                     cs.display, slot.alternatives.front().base_name,
                     view_.node.name, fmt::join(phrases, "; "));
}

namespace {

// Upper bound on the choices of alternatives Explain judges one by one per
// claim; beyond it, alternatives are judged each on its own.
constexpr size_t kMaxExplainedChoices = 256;

// Advances `choice` (one alternative index per slot) like an odometer; false
// after the last choice.
bool NextChoice(const std::vector<RequestSlot>& slots,
                std::vector<int>& choice) {
  for (size_t s = slots.size(); s-- > 0;) {
    if (++choice[s] < static_cast<int>(slots[s].alternatives.size())) {
      return true;
    }
    choice[s] = 0;
  }
  return false;
}

void Append(std::vector<std::string>& into, std::vector<std::string>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
}

size_t NumChoices(const std::vector<RequestSlot>& slots) {
  size_t n = 1;
  for (const RequestSlot& slot : slots) {
    n *= slot.alternatives.size();
    if (n > kMaxExplainedChoices) break;
  }
  return n;
}

}  // namespace

struct AllocationSearch::ChoiceOutcomes {
  // Per alternative: whether some choice with it has every request enough
  // and no constraint that applies to it impossible; else the first such
  // constraint that ruled it out.
  struct Fate {
    bool possible = false;
    std::string blocked_by;
  };
  std::map<const RequestData*, Fate> fates;
  // The alternatives of the first choice that can be met on its own.
  std::optional<std::vector<std::string>> feasible;
  std::set<std::string> emitted;  // constraint lines written so far
};

void AllocationSearch::JudgeChoice(const ClaimState& cs,
                                   const UsableDevices& usable,
                                   const std::vector<int>& choice,
                                   bool per_choice, ChoiceOutcomes& outcomes,
                                   ExplanationLines& constraint_lines) const {
  std::vector<ConstraintVerdict> verdicts(cs.constraints.size());
  for (size_t i = 0; i < cs.constraints.size(); ++i) {
    if (cs.constraints[i]->kind() == ClaimConstraint::Kind::kCel) continue;
    verdicts[i] =
        JudgeConstraint(cs, i, usable, per_choice ? &choice : nullptr);
    if (!verdicts[i].in_effect ||
        !outcomes.emitted.insert(verdicts[i].line).second) {
      continue;
    }
    // A constraint impossible for the whole claim blocks it; one judged on
    // some alternatives only rules those out.
    (verdicts[i].impossible && !verdicts[i].per_alternative
         ? constraint_lines.reasons
         : constraint_lines.details)
        .push_back(verdicts[i].line);
  }
  for (size_t s = 0; s < cs.slots.size(); ++s) {
    if (!usable.at(&cs.slots[s].alternatives[choice[s]]).enough) return;
  }
  bool any_impossible = false;
  for (size_t s = 0; s < cs.slots.size(); ++s) {
    const RequestData& d = cs.slots[s].alternatives[choice[s]];
    ChoiceOutcomes::Fate& fate = outcomes.fates[&d];
    bool blocked = false;
    for (size_t i = 0; i < verdicts.size(); ++i) {
      if (!verdicts[i].impossible) continue;
      any_impossible = true;
      if (!cs.constraints[i]->AppliesTo({d.base_name, d.sub_name})) continue;
      blocked = true;
      if (fate.blocked_by.empty()) fate.blocked_by = verdicts[i].summary;
    }
    fate.possible = fate.possible || !blocked;
  }
  if (any_impossible || outcomes.feasible) return;
  outcomes.feasible.emplace();
  for (size_t s = 0; s < cs.slots.size(); ++s) {
    if (!cs.slots[s].has_subrequests) continue;
    outcomes.feasible->push_back(cs.slots[s].alternatives[choice[s]].name);
  }
}

void AllocationSearch::NoAlternativeReasons(
    const ClaimState& cs, const UsableDevices& usable,
    const ChoiceOutcomes& outcomes,
    std::vector<std::string>& slot_reasons) const {
  for (size_t s = 0; s < cs.slots.size(); ++s) {
    const RequestSlot& slot = cs.slots[s];
    if (!slot.has_subrequests) continue;
    std::vector<std::string> phrases;
    for (const RequestData& d : slot.alternatives) {
      const RequestFacts& facts = usable.at(&d);
      auto it = outcomes.fates.find(&d);
      const std::string no_block;
      const std::string& blocked_by =
          it == outcomes.fates.end() ? no_block : it->second.blocked_by;
      // Enough devices and no constraint ruled it out (or no choice with it
      // got as far as the constraints): this request does not block.
      if (facts.enough && (blocked_by.empty() || it->second.possible)) {
        phrases.clear();
        break;
      }
      phrases.push_back(AlternativePhrase(d, facts, blocked_by));
    }
    if (!phrases.empty()) {
      slot_reasons[s] = NoAlternativeLine(cs, slot, phrases);
    }
  }
}

std::optional<std::vector<std::string>> AllocationSearch::ExplainChoices(
    const ClaimState& cs, const UsableDevices& usable,
    ExplanationLines& constraint_lines,
    std::vector<std::string>& slot_reasons) const {
  ChoiceOutcomes outcomes;
  // Too many choices: one pass over the first alternatives, with the
  // constraints judged on all alternatives together.
  const bool per_choice = NumChoices(cs.slots) <= kMaxExplainedChoices;
  std::vector<int> choice(cs.slots.size(), 0);
  do {
    JudgeChoice(cs, usable, choice, per_choice, outcomes, constraint_lines);
  } while (per_choice && NextChoice(cs.slots, choice));
  NoAlternativeReasons(cs, usable, outcomes, slot_reasons);
  return std::move(outcomes.feasible);
}

void AllocationSearch::ExplainClaim(const ClaimState& cs,
                                    ExplanationLines& out) {
  // Devices each request alternative could use on its own.
  UsableDevices usable;
  std::vector<std::string> slot_reasons;
  bool every_request_has_enough =
      ExplainRequests(cs, usable, out, slot_reasons);
  const bool prioritized =
      std::any_of(cs.slots.begin(), cs.slots.end(),
                  [](const RequestSlot& slot) { return slot.has_subrequests; });
  ExplanationLines constraint_lines;
  if (prioritized) {
    auto feasible = ExplainChoices(cs, usable, constraint_lines, slot_reasons);
    every_request_has_enough = feasible.has_value();
    if (feasible) {
      out.choices.push_back(fmt::format(
          "{} for claim {}", fmt::join(*feasible, ", "), cs.display));
    }
  }
  for (size_t i = 0; i < cs.constraints.size(); ++i) {
    if (!prioritized ||
        cs.constraints[i]->kind() == ClaimConstraint::Kind::kCel) {
      ExplainConstraint(cs, i, usable, constraint_lines);
    }
  }
  for (std::string& line : slot_reasons) {
    if (!line.empty()) out.reasons.push_back(std::move(line));
  }
  Append(out.reasons, constraint_lines.reasons);
  Append(out.details, constraint_lines.details);
  Append(out.cel, constraint_lines.cel);
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

std::vector<std::string> AllocationSearch::Explain(size_t* num_reasons) {
  // Reasons: requests or constraints that cannot be met even on their own.
  // Details: everything else the search saw.
  ExplanationLines out;
  for (const ClaimState& cs : states_) ExplainClaim(cs, out);
  std::vector<std::string>& reasons = out.reasons;
  if (reasons.empty() && !out.cel.empty()) {
    reasons = std::move(out.cel);
  } else {
    out.details.insert(out.details.end(), out.cel.begin(), out.cel.end());
  }
  if (reasons.empty() && !states_.empty()) {
    // With prioritized lists, "on its own" holds for the alternatives named.
    const std::string choosing =
        out.choices.empty()
            ? ""
            : fmt::format(" (choosing {})", fmt::join(out.choices, "; "));
    reasons.push_back(fmt::format(
        "each request and constraint can be met on its own{}, but not all "
        "together on {} ({} search steps tried every combination in order)",
        choosing, view_.node.name, stats_.steps));
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
