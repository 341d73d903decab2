// Randomized differential test: small random instances are solved by the
// allocator and by a brute-force reference that enumerates every assignment
// in upstream's order (requests in order, subrequests in order, devices of a
// request as increasing combinations in pool/device order) and checks each
// complete assignment directly against the rules, with selectors written as
// plain C++ predicates. The allocator must agree on satisfiability and pick
// exactly the reference's first valid assignment.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"

namespace dralloc::allocator {
namespace {

struct TestDevice {
  std::string pool;
  std::string name;
  std::string kind;  // attribute "kind": "x" or "y"
  int num = 0;       // attribute "num": 0..2
  int counter = 0;   // consumes this much of its pool's counter "c"
  bool tainted = false;
  bool in_use = false;  // allocated to another claim
};

struct Selector {
  std::string cel;
  std::function<bool(const TestDevice&)> matches;
};

const std::vector<Selector>& Selectors() {
  static const std::vector<Selector> selectors = {
      {"", [](const TestDevice&) { return true; }},
      {"device.attributes[\"driver-a\"].kind == \"x\"",
       [](const TestDevice& d) { return d.kind == "x"; }},
      {"device.attributes[\"driver-a\"].num >= 1",
       [](const TestDevice& d) { return d.num >= 1; }},
      {"device.attributes[\"driver-a\"].num != 1",
       [](const TestDevice& d) { return d.num != 1; }},
  };
  return selectors;
}

struct Alternative {
  int selector = 0;
  int count = 1;
  bool tolerates = false;
};

struct TestRequest {
  std::vector<Alternative> alternatives;  // 2 = firstAvailable
};

struct TestClaim {
  std::vector<TestRequest> requests;
  std::string match;     // "", "kind" or "num"
  std::string distinct;  // "" or "num"
};

struct Instance {
  std::vector<TestDevice> devices;  // in upstream order (pools sorted)
  std::vector<int> pool_counters;   // capacity of counter "c" per pool; 0 none
  std::vector<TestClaim> claims;
};

Instance Generate(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  Instance in;
  const int pools = 1 + pick(2);
  const bool counters = pick(3) == 0;
  for (int p = 0; p < pools; ++p) {
    in.pool_counters.push_back(counters ? 2 + pick(2) : 0);
    const int n = 1 + pick(p == 0 ? 4 : 3);
    for (int i = 0; i < n; ++i) {
      TestDevice d;
      d.pool = fmt::format("pool-{}", p + 1);
      d.name = fmt::format("device-{}", i);
      d.kind = pick(2) ? "x" : "y";
      d.num = pick(3);
      d.counter = counters ? pick(3) : 0;
      d.tainted = pick(5) == 0;
      d.in_use = pick(6) == 0;
      in.devices.push_back(d);
    }
  }
  const int claims = 1 + pick(2);
  int requests_left = 3;
  for (int c = 0; c < claims && requests_left > 0; ++c) {
    TestClaim claim;
    const int requests = 1 + pick(std::min(2, requests_left));
    requests_left -= requests;
    for (int r = 0; r < requests; ++r) {
      TestRequest request;
      const int alternatives = pick(4) == 0 ? 2 : 1;
      for (int a = 0; a < alternatives; ++a) {
        request.alternatives.push_back(
            {pick(static_cast<int>(Selectors().size())), 1 + pick(2),
             pick(2) == 0});
      }
      claim.requests.push_back(request);
    }
    const int constraint = pick(5);
    if (constraint == 1) claim.match = "kind";
    if (constraint == 2) claim.match = "num";
    if (constraint == 3) claim.distinct = "num";
    in.claims.push_back(claim);
  }
  return in;
}

std::string ToYaml(const Instance& in) {
  std::string yaml =
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "
      "class-a}\nspec:\n  selectors:\n  - cel: {expression: 'device.driver == "
      "\"driver-a\"'}\n";
  for (size_t p = 0; p < in.pool_counters.size(); ++p) {
    const std::string pool = fmt::format("pool-{}", p + 1);
    const bool counters = in.pool_counters[p] > 0;
    yaml += fmt::format(
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
        "{{name: {0}-devices}}\nspec:\n  driver: driver-a\n  nodeName: node-1\n"
        "  pool: {{name: {0}, generation: 1, resourceSliceCount: {1}}}\n  "
        "devices:\n",
        pool, counters ? 2 : 1);
    for (const TestDevice& d : in.devices) {
      if (d.pool != pool) continue;
      yaml += fmt::format(
          "  - name: {}\n    attributes:\n      kind: {{string: {}}}\n      "
          "num: "
          "{{int: {}}}\n",
          d.name, d.kind, d.num);
      if (d.tainted) {
        yaml += "    taints:\n    - {key: t, value: v, effect: NoSchedule}\n";
      }
      if (counters && d.counter > 0) {
        yaml += fmt::format(
            "    consumesCounters:\n    - counterSet: cs\n      counters:\n    "
            "    "
            "c: {{value: \"{}\"}}\n",
            d.counter);
      }
    }
    if (counters) {
      yaml += fmt::format(
          "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
          "{{name: {0}-counters}}\nspec:\n  driver: driver-a\n  nodeName: "
          "node-1\n  pool: {{name: {0}, generation: 1, resourceSliceCount: "
          "2}}\n"
          "  sharedCounters:\n  - name: cs\n    counters:\n      c: {{value: "
          "\"{1}\"}}\n",
          pool, in.pool_counters[p]);
    }
  }
  std::string in_use;
  for (const TestDevice& d : in.devices) {
    if (!d.in_use) continue;
    in_use += fmt::format(
        "      - {{request: r, driver: driver-a, pool: {}, device: {}}}\n",
        d.pool, d.name);
  }
  if (!in_use.empty()) {
    yaml +=
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
        "{name: other, namespace: default}\nspec:\n  devices:\n    requests:\n"
        "    - name: r\n      exactly: {deviceClassName: class-a}\nstatus:\n  "
        "allocation:\n    devices:\n      results:\n" +
        in_use;
  }
  for (size_t c = 0; c < in.claims.size(); ++c) {
    const TestClaim& claim = in.claims[c];
    yaml += fmt::format(
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
        "{{name: claim-{}, namespace: default}}\nspec:\n  devices:\n    "
        "requests:\n",
        c);
    for (size_t r = 0; r < claim.requests.size(); ++r) {
      const auto& alternatives = claim.requests[r].alternatives;
      auto body = [&](const Alternative& a, std::string_view indent) {
        std::string text =
            fmt::format("{}deviceClassName: class-a\n{}count: {}\n", indent,
                        indent, a.count);
        if (a.selector > 0) {
          text += fmt::format("{}selectors:\n{}- cel: {{expression: '{}'}}\n",
                              indent, indent, Selectors()[a.selector].cel);
        }
        if (a.tolerates) {
          text +=
              fmt::format("{}tolerations:\n{}- {{key: t, operator: Exists}}\n",
                          indent, indent);
        }
        return text;
      };
      yaml += fmt::format("    - name: req-{}\n", r);
      if (alternatives.size() == 1) {
        yaml += "      exactly:\n" + body(alternatives[0], "        ");
      } else {
        yaml += "      firstAvailable:\n";
        for (size_t a = 0; a < alternatives.size(); ++a) {
          yaml += fmt::format("      - name: sub-{}\n", a) +
                  body(alternatives[a], "        ");
        }
      }
    }
    if (!claim.match.empty() || !claim.distinct.empty()) {
      yaml += "    constraints:\n";
      if (!claim.match.empty()) {
        yaml += fmt::format("    - matchAttribute: driver-a/{}\n", claim.match);
      }
      if (!claim.distinct.empty()) {
        yaml += fmt::format("    - distinctAttribute: driver-a/{}\n",
                            claim.distinct);
      }
    }
  }
  return yaml;
}

// One chosen device per result line, as "claim req[/sub] pool/device".
using Solution = std::vector<std::string>;

class BruteForce {
 public:
  explicit BruteForce(const Instance& in) : in_(in) {
    for (const TestClaim& claim : in.claims) {
      for (size_t r = 0; r < claim.requests.size(); ++r)
        slots_.push_back({&claim, r});
    }
  }

  std::optional<Solution> FirstSolution() {
    chosen_.assign(slots_.size(), {});
    alternative_.assign(slots_.size(), 0);
    if (!Assign(0)) return std::nullopt;
    Solution solution;
    for (size_t s = 0; s < slots_.size(); ++s) {
      const TestClaim* claim = slots_[s].claim;
      const size_t c = static_cast<size_t>(claim - in_.claims.data());
      const auto& request = claim->requests[slots_[s].request];
      std::string name = fmt::format("req-{}", slots_[s].request);
      if (request.alternatives.size() > 1)
        name += fmt::format("/sub-{}", alternative_[s]);
      for (int d : chosen_[s]) {
        solution.push_back(fmt::format("claim-{} {} {}/{}", c, name,
                                       in_.devices[d].pool,
                                       in_.devices[d].name));
      }
    }
    return solution;
  }

 private:
  struct Slot {
    const TestClaim* claim;
    size_t request;
  };

  bool Assign(size_t s) {
    if (s == slots_.size()) return Valid();
    const auto& alternatives =
        slots_[s].claim->requests[slots_[s].request].alternatives;
    for (size_t a = 0; a < alternatives.size(); ++a) {
      alternative_[s] = static_cast<int>(a);
      chosen_[s].clear();
      if (Combine(s, alternatives[a].count, 0)) return true;
    }
    return false;
  }

  // Chooses `left` more devices for slot s from position `from` on.
  bool Combine(size_t s, int left, int from) {
    if (left == 0) return Assign(s + 1);
    for (int d = from; d < static_cast<int>(in_.devices.size()); ++d) {
      if (Used(d)) continue;
      chosen_[s].push_back(d);
      if (Combine(s, left - 1, d + 1)) return true;
      chosen_[s].pop_back();
    }
    return false;
  }

  bool Used(int d) const {
    for (const auto& devices : chosen_) {
      for (int x : devices) {
        if (x == d) return true;
      }
    }
    return false;
  }

  // Every rule, checked on the complete assignment.
  bool Valid() const {
    std::vector<int> used(in_.pool_counters.size(), 0);
    for (const TestDevice& d : in_.devices) {
      if (d.in_use) used[PoolIndex(d)] += d.counter;
    }
    for (size_t s = 0; s < slots_.size(); ++s) {
      const Alternative& a = slots_[s]
                                 .claim->requests[slots_[s].request]
                                 .alternatives[alternative_[s]];
      for (int d : chosen_[s]) {
        const TestDevice& device = in_.devices[d];
        if (device.in_use) return false;
        if (!Selectors()[a.selector].matches(device)) return false;
        if (device.tainted && !a.tolerates) return false;
        used[PoolIndex(device)] += device.counter;
      }
    }
    for (size_t p = 0; p < used.size(); ++p) {
      if (in_.pool_counters[p] > 0 && used[p] > in_.pool_counters[p])
        return false;
    }
    for (const TestClaim& claim : in_.claims) {
      std::vector<const TestDevice*> devices;
      for (size_t s = 0; s < slots_.size(); ++s) {
        if (slots_[s].claim != &claim) continue;
        for (int d : chosen_[s]) devices.push_back(&in_.devices[d]);
      }
      auto value = [](const TestDevice& d, const std::string& attribute) {
        return attribute == "kind" ? d.kind : std::to_string(d.num);
      };
      for (size_t i = 0; i < devices.size(); ++i) {
        for (size_t j = i + 1; j < devices.size(); ++j) {
          if (!claim.match.empty() && value(*devices[i], claim.match) !=
                                          value(*devices[j], claim.match)) {
            return false;
          }
          if (!claim.distinct.empty() &&
              value(*devices[i], claim.distinct) ==
                  value(*devices[j], claim.distinct)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  size_t PoolIndex(const TestDevice& d) const {
    return static_cast<size_t>(std::stoi(d.pool.substr(5)) - 1);
  }

  const Instance& in_;
  std::vector<Slot> slots_;
  std::vector<std::vector<int>> chosen_;
  std::vector<int> alternative_;
};

TEST(BruteForceDifferentialTest, AgreesOnRandomInstances) {
  std::mt19937 rng(20261122);
  int satisfiable = 0, unsatisfiable = 0;
  for (int i = 0; i < 2000; ++i) {
    Instance instance = Generate(rng);
    const std::string yaml = ToYaml(instance);
    auto objects = DecodeManifests(yaml, "instance.yaml");
    ASSERT_TRUE(objects.ok()) << objects.status() << "\n" << yaml;
    auto outcome = AllocateOffline(std::move(*objects), "node-1", {});
    ASSERT_TRUE(outcome.ok()) << outcome.status() << "\n" << yaml;
    std::optional<Solution> expected = BruteForce(instance).FirstSolution();
    ASSERT_EQ(outcome->allocation.allocated, expected.has_value())
        << "instance " << i << ":\n"
        << yaml;
    if (!expected) {
      ++unsatisfiable;
      continue;
    }
    ++satisfiable;
    Solution got;
    for (const auto& claim : outcome->claims) {
      for (const auto& r : claim.status.allocation->devices.results) {
        got.push_back(fmt::format("{} {} {}/{}", claim.metadata.name, r.request,
                                  r.pool, r.device));
      }
    }
    ASSERT_EQ(got, *expected) << "instance " << i << ":\n" << yaml;
  }
  // Both outcomes must be well represented for the comparison to mean much.
  EXPECT_GT(satisfiable, 300);
  EXPECT_GT(unsatisfiable, 300);
  RecordProperty("satisfiable", satisfiable);
  RecordProperty("unsatisfiable", unsatisfiable);
  std::printf("differential: %d satisfiable, %d unsatisfiable instances\n",
              satisfiable, unsatisfiable);
}

}  // namespace
}  // namespace dralloc::allocator
