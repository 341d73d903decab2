#include "allocator/prefix_closed_conjuncts.h"

#include <gtest/gtest.h>

namespace dralloc::allocator {
namespace {

TEST(PrefixClosedConjunctsTest, Classifies) {
  struct Case {
    std::string expression;
    std::vector<std::string> conjuncts;
  } cases[] = {
      {"devices.all(d, d.driver == 'a')", {"devices.all(d, d.driver == 'a')"}},
      {"devices.all(d, d.attributes['a'].n == devices[0].attributes['a'].n)",
       {"devices.all(d, d.attributes['a'].n == devices[0].attributes['a'].n)"}},
      {"devices.all(a, devices.all(b, a.driver == b.driver))",
       {"devices.all(a, devices.all(b, a.driver == b.driver))"}},
      {"size(devices) <= 4 && devices.map(d, 1).sum() == 2",
       {"size(devices) <= 4"}},
      {"5 > size(devices) && devices.size() < 3",
       {"5 > size(devices)", "devices.size() < 3"}},
      {"size(devices) == 2", {}},
      {"devices.exists(d, d.driver == 'a')", {}},
      {"devices.all(d, size(devices) == 2)", {}},
      {"devices.all(d, d in devices)", {}},
      {"devices.all(d, d.driver == devices[size(devices) - 1].driver)", {}},
      {"true && devices.all(d, true)", {"devices.all(d, true)"}},
      {"(devices.all(d, true) && size(devices) < 2) && size(devices) == 1", {}},
      {"devices.all(", {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PrefixClosedConjuncts(c.expression), c.conjuncts) << c.expression;
  }
}

}  // namespace
}  // namespace dralloc::allocator
