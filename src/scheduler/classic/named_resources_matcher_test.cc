#include "scheduler/classic/named_resources_matcher.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace dralloc::scheduler::classic {
namespace {

using Candidates = std::vector<std::vector<size_t>>;

// Whether some assignment of distinct instances exists (brute force).
bool Exists(const Candidates& candidates, size_t request,
            std::set<size_t>& used) {
  if (request == candidates.size()) return true;
  for (size_t instance : candidates[request]) {
    if (used.contains(instance)) continue;
    used.insert(instance);
    if (Exists(candidates, request + 1, used)) return true;
    used.erase(instance);
  }
  return false;
}

// 1.30's greedy: first free accepted instance per request, in order.
std::optional<std::vector<size_t>> Greedy(const Candidates& candidates) {
  std::set<size_t> used;
  std::vector<size_t> out;
  for (const auto& accepted : candidates) {
    bool placed = false;
    for (size_t instance : accepted) {
      if (used.insert(instance).second) {
        out.push_back(instance);
        placed = true;
        break;
      }
    }
    if (!placed) return std::nullopt;
  }
  return out;
}

bool Valid(const Candidates& candidates, const std::vector<size_t>& chosen) {
  std::set<size_t> used;
  for (size_t r = 0; r < candidates.size(); ++r) {
    const auto& accepted = candidates[r];
    if (std::find(accepted.begin(), accepted.end(), chosen[r]) ==
        accepted.end()) {
      return false;
    }
    if (!used.insert(chosen[r]).second) return false;
  }
  return true;
}

TEST(MatchDistinctTest, FirstFitInRequestOrderAs130) {
  EXPECT_EQ(MatchDistinct({{0, 1}, {0, 1}}, 2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(MatchDistinct({}, 3), std::vector<size_t>{});
}

// 1.30 gave gpu-0 (40Gi) to a request for any GPU and then had nothing for
// a request for >= 16Gi: the pod stayed pending. dralloc moves the first.
TEST(MatchDistinctTest, MovesAnEarlierChoiceWhereFirstFitFails) {
  const Candidates candidates = {{0, 1}, {0}};
  EXPECT_FALSE(Greedy(candidates).has_value());
  EXPECT_EQ(MatchDistinct(candidates, 2), (std::vector<size_t>{1, 0}));
}

TEST(MatchDistinctTest, NoMatchingWhenRequestsOutnumberTheirInstances) {
  EXPECT_FALSE(MatchDistinct({{0}, {0}}, 1).has_value());
  EXPECT_FALSE(MatchDistinct({{0, 1}, {0, 1}, {1, 0}}, 2).has_value());
  EXPECT_FALSE(MatchDistinct({{}}, 4).has_value());
}

// Differential: against brute force (existence) and 1.30's greedy (same
// answer whenever greedy succeeds), on random small cases.
TEST(MatchDistinctTest, AgreesWithBruteForceAndGreedy) {
  std::mt19937 random(27);
  for (int round = 0; round < 3000; ++round) {
    const size_t instances = 1 + random() % 6;
    const size_t requests = random() % 6;
    Candidates candidates(requests);
    for (auto& accepted : candidates) {
      for (size_t i = 0; i < instances; ++i) {
        if (random() % 2 == 0) accepted.push_back(i);
      }
      std::shuffle(accepted.begin(), accepted.end(), random);
    }
    std::set<size_t> used;
    const bool exists = Exists(candidates, 0, used);
    const auto matched = MatchDistinct(candidates, instances);
    ASSERT_EQ(matched.has_value(), exists) << "round " << round;
    if (matched) EXPECT_TRUE(Valid(candidates, *matched));
    if (auto greedy = Greedy(candidates)) EXPECT_EQ(*matched, *greedy);
  }
}

}  // namespace
}  // namespace dralloc::scheduler::classic
