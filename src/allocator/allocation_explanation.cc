// AllocationSearch::Explain: per-request and per-constraint diagnostics that
// say why claims do not fit on a node (upstream only says "cannot allocate
// all claims").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "allocator/allocation_search.h"

namespace dralloc::allocator {
namespace {

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::vector<std::string> AllocationSearch::Explain(size_t* num_reasons) {
  // Reasons: requests or constraints that cannot be met even on their own.
  // Details: everything else the search saw.
  std::vector<std::string> reasons;
  std::vector<std::string> lines;
  // CEL constraints are only known to fail as a whole: they are the reason
  // when nothing else is.
  std::vector<std::string> cel_lines;
  size_t num_pools = view_.pools.size();
  for (const ClaimState& cs : states_) {
    bool every_request_has_enough = true;
    // Devices each request alternative could use on its own.
    std::map<const RequestData*, std::vector<uint32_t>> usable;
    std::vector<std::string> request_lines;
    for (const RequestSlot& slot : cs.slots) {
      for (const RequestData& d : slot.alternatives) {
        size_t in_bad_pools = 0, in_use = 0, capacity = 0, counters = 0,
               errors = 0;
        std::map<std::string, size_t> tainted;
        std::vector<size_t> by_class(d.class_selectors.size(), 0);
        std::vector<size_t> by_request(d.request_selectors.size(), 0);
        std::vector<uint32_t>& ok = usable[&d];
        for (uint32_t p = 0; p < view_.pools.size(); ++p) {
          const GatheredPool& pool = view_.pools[p];
          for (uint32_t device : pool.devices) {
            if (pool.incomplete || pool.invalid) {
              ++in_bad_pools;
              continue;
            }
            // Which selector rejects the device, if any.
            bool rejected = false;
            for (size_t i = 0; !rejected && i < d.class_selectors.size(); ++i) {
              const auto& s = d.class_selectors[i];
              auto v = inventory_.MatchSelector(s.verdicts, *s.program, device,
                                                nullptr);
              if (v == SelectorVerdict::kError) ++errors, rejected = true;
              if (v == SelectorVerdict::kNoMatch)
                ++by_class[i], rejected = true;
            }
            for (size_t i = 0; !rejected && i < d.request_selectors.size();
                 ++i) {
              const auto& s = d.request_selectors[i];
              auto v = inventory_.MatchSelector(s.verdicts, *s.program, device,
                                                nullptr);
              if (v == SelectorVerdict::kError) ++errors, rejected = true;
              if (v == SelectorVerdict::kNoMatch)
                ++by_request[i], rejected = true;
            }
            if (rejected) continue;
            const InventoryDevice& dev = inventory_.devices()[device];
            if (!d.admin && state_.IsAllocated(dev.id)) {
              ++in_use;
              continue;
            }
            if (!TaintsTolerated(d, device)) {
              for (const auto& taint : dev.device->taints) {
                if (taint.effect == "NoSchedule" ||
                    taint.effect == "NoExecute") {
                  ++tainted[taint.effect];
                  break;
                }
              }
              continue;
            }
            if ((d.capacity != nullptr || dev.shareable()) &&
                !CapacityFits(d, device)) {
              ++capacity;
              continue;
            }
            if (!dev.device->consumes_counters.empty() &&
                !(dev.shareable() &&
                  state_.ConsumedCapacity(dev.id) != nullptr)) {
              bool fits = AddCounters(p, device);
              if (fits) RemoveCounters(p, device);
              if (!fits) {
                ++counters;
                continue;
              }
            }
            ok.push_back(device);
          }
        }
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
          causes.push_back(fmt::format(
              "{} failed a selector with a CEL runtime error", errors));
        }
        if (in_use > 0) {
          causes.push_back(fmt::format("{} allocated to other claims", in_use));
        }
        for (const auto& [effect, n] : tainted) {
          causes.push_back(
              fmt::format("{} tainted {} and not tolerated", n, effect));
        }
        if (capacity > 0) {
          causes.push_back(fmt::format("{} without enough capacity", capacity));
        }
        if (counters > 0) {
          causes.push_back(
              fmt::format("{} without enough shared counters", counters));
        }
        if (in_bad_pools > 0) {
          causes.push_back(fmt::format("{} in pools being updated or invalid",
                                       in_bad_pools));
        }
        std::string needs = d.all_mode ? std::string("needs all devices")
                                       : fmt::format("needs {}", d.num_devices);
        std::string line = fmt::format(
            "claim {} request \"{}\": {} of class \"{}\"{} on {}: {} in {}",
            cs.display, d.name, needs, d.device_class->metadata.name,
            d.admin ? " with admin access" : "", view_.node.name,
            Plural(view_.num_devices, "device", "devices"),
            Plural(num_pools, "pool", "pools"));
        for (size_t i = 0; i < causes.size(); ++i) {
          line += (i == 0 ? "; " : ", ") + causes[i];
        }
        line += fmt::format("; {} usable", ok.size());
        bool enough = d.all_mode
                          ? !ok.empty() && ok.size() == d.all_devices.size()
                          : static_cast<int>(ok.size()) >= d.num_devices;
        if (!enough && !slot.has_subrequests) every_request_has_enough = false;
        if (!enough &&
            (!slot.has_subrequests || &d == &slot.alternatives.back())) {
          bool none = true;
          for (const RequestData& alternative : slot.alternatives) {
            const auto& u = usable[&alternative];
            if (alternative.all_mode
                    ? !u.empty()
                    : static_cast<int>(u.size()) >= alternative.num_devices) {
              none = false;
            }
          }
          if (none) reasons.push_back(line);
        }
        request_lines.push_back(std::move(line));
      }
    }
    lines.insert(lines.end(), request_lines.begin(), request_lines.end());

    // Constraints: which values the usable devices offer.
    for (size_t i = 0; i < cs.constraints.size(); ++i) {
      const ClaimConstraint& constraint = *cs.constraints[i];
      std::set<uint32_t> devices;
      const int demand =
          ConstrainedDemand(cs, constraint, [&](const RequestData& d) {
            devices.insert(usable[&d].begin(), usable[&d].end());
            return true;
          });
      std::string scope =
          constraint.requests().empty()
              ? std::string("all requests")
              : fmt::format("requests [{}]",
                            fmt::join(constraint.requests(), ", "));
      if (constraint.kind() == ClaimConstraint::Kind::kCel) {
        cel_lines.push_back(fmt::format(
            "claim {} constraint #{} (cel '{}') over {}: no combination of "
            "the {} usable devices satisfies it ({} complete sets checked, "
            "{} partial sets rejected)",
            cs.display, i, constraint.subject(), scope, devices.size(),
            stats_.cel_evaluations,
            static_cast<const CelConstraint&>(constraint).prefix_rejections()));
        continue;
      }
      std::map<std::string, size_t> by_value;
      size_t most = 0;
      size_t missing = 0;
      for (uint32_t device : devices) {
        auto value =
            LookupAttribute(inventory_.devices()[device], constraint.subject());
        if (!value) {
          ++missing;
          continue;
        }
        if (constraint.kind() == ClaimConstraint::Kind::kMatchAttribute) {
          for (const std::string& v : value->values) {
            AttributeSet one{value->type, {v}};
            ++by_value[one.ToString()];
          }
        } else {
          ++by_value[value->ToString()];
        }
      }
      std::vector<std::string> parts;
      for (const auto& [value, n] : by_value) most = std::max(most, n);
      for (const auto& [value, n] : by_value) {
        parts.push_back(
            fmt::format("{}: {}", value, Plural(n, "device", "devices")));
      }
      if (missing > 0) {
        parts.push_back(fmt::format("without the attribute: {}", missing));
      }
      bool match = constraint.kind() == ClaimConstraint::Kind::kMatchAttribute;
      bool impossible = match ? most < static_cast<size_t>(demand)
                              : by_value.size() < static_cast<size_t>(demand);
      (impossible ? reasons : lines)
          .push_back(fmt::format(
              "claim {} constraint #{} ({} \"{}\") over {}: needs {} with "
              "{}; usable devices by value: {}",
              cs.display, i, match ? "matchAttribute" : "distinctAttribute",
              constraint.subject(), scope, Plural(demand, "device", "devices"),
              match ? "one common value" : "pairwise distinct values",
              parts.empty() ? std::string("none")
                            : fmt::format("{}", fmt::join(parts, ", "))));
    }
    if (every_request_has_enough && cs.constraints.empty() &&
        states_.size() > 1) {
      lines.push_back(fmt::format(
          "claim {}: each request fits on its own, but not together with the "
          "other claims allocated in this call",
          cs.display));
    } else if (every_request_has_enough && cs.constraints.empty() &&
               cs.slots.size() > 1) {
      lines.push_back(fmt::format(
          "claim {}: each request fits on its own, but the requests compete "
          "for the same devices",
          cs.display));
    }
  }
  if (reasons.empty() && !cel_lines.empty()) {
    reasons = std::move(cel_lines);
  } else {
    lines.insert(lines.end(), cel_lines.begin(), cel_lines.end());
  }
  if (reasons.empty() && !states_.empty()) {
    reasons.push_back(fmt::format(
        "each request and constraint can be met on its own, but not all "
        "together on {} ({} search steps tried every combination in order)",
        view_.node.name, stats_.steps));
  }
  if (num_reasons != nullptr) *num_reasons = reasons.size();
  for (std::string& line : lines) {
    if (std::find(reasons.begin(), reasons.end(), line) == reasons.end()) {
      reasons.push_back(std::move(line));
    }
  }
  if (reasons.empty()) reasons.push_back("no claims to allocate");
  return reasons;
}

}  // namespace dralloc::allocator
