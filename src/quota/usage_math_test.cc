#include "quota/usage_math.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dralloc::quota {
namespace {

ResourceList List(std::vector<std::pair<std::string, std::string>> entries) {
  ResourceList list;
  for (const auto& [name, text] : entries) {
    list.emplace(name, *Quantity::Parse(text));
  }
  return list;
}

TEST(UsageMathTest, AddAndSubtract) {
  const ResourceList a = List({{"a", "1"}, {"b", "2"}});
  const ResourceList b = List({{"b", "3"}, {"c", "500m"}});
  EXPECT_TRUE(Equals(Add(a, b), List({{"a", "1"}, {"b", "5"}, {"c", "0.5"}})));
  EXPECT_TRUE(
      Equals(SubtractNonNegative(a, b), List({{"a", "1"}, {"b", "0"}})));
}

TEST(UsageMathTest, MaskAndZeros) {
  const ResourceList a = List({{"a", "1"}, {"b", "0"}, {"c", "3"}});
  EXPECT_TRUE(Equals(Mask(a, {"a", "b", "x"}), List({{"a", "1"}, {"b", "0"}})));
  EXPECT_TRUE(Equals(RemoveZeros(a), List({{"a", "1"}, {"c", "3"}})));
}

TEST(UsageMathTest, ExceededIgnoresNamesWithoutLimit) {
  const ResourceList used = List({{"a", "3"}, {"b", "1"}, {"c", "9"}});
  const ResourceList hard = List({{"a", "2"}, {"b", "1"}});
  EXPECT_EQ(Exceeded(used, hard), std::vector<std::string>{"a"});
  EXPECT_TRUE(Exceeded(List({{"a", "2"}}), hard).empty());
}

TEST(UsageMathTest, EqualsComparesValues) {
  EXPECT_TRUE(Equals(List({{"a", "1"}}), List({{"a", "1000m"}})));
  EXPECT_FALSE(Equals(List({{"a", "1"}}), List({{"a", "2"}})));
  EXPECT_FALSE(Equals(List({{"a", "1"}}), List({{"b", "1"}})));
}

TEST(UsageMathTest, PrettyPrintSortsByName) {
  EXPECT_EQ(PrettyPrint(List({{"b", "2"}, {"a", "32"}})), "a=32,b=2");
  EXPECT_EQ(PrettyPrintNames({"z", "a"}), "a,z");
}

}  // namespace
}  // namespace dralloc::quota
