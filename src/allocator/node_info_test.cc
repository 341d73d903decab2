#include "allocator/node_info.h"

#include <gtest/gtest.h>

namespace dralloc::allocator {
namespace {

api::NodeSelectorTerm Labels(std::string key, std::string op,
                             std::vector<std::string> values) {
  return {{{std::move(key), std::move(op), std::move(values)}}, {}};
}

TEST(NodeSelectorTest, Operators) {
  NodeInfo node{"node-1", {{"region", "r1"}, {"gpus", "8"}}};
  struct Case {
    api::NodeSelectorTerm term;
    bool matches;
  } cases[] = {
      {Labels("region", "In", {"r0", "r1"}), true},
      {Labels("region", "In", {"r2"}), false},
      {Labels("region", "NotIn", {"r2"}), true},
      {Labels("zone", "NotIn", {"z"}), true},
      {Labels("region", "Exists", {}), true},
      {Labels("zone", "Exists", {}), false},
      {Labels("zone", "DoesNotExist", {}), true},
      {Labels("gpus", "Gt", {"4"}), true},
      {Labels("gpus", "Lt", {"4"}), false},
      {Labels("gpus", "Gt", {"x"}), false},
      {Labels("region", "Bogus", {}), false},
      {{{}, {{"metadata.name", "In", {"node-1"}}}}, true},
      {{{}, {{"metadata.name", "NotIn", {"node-1"}}}}, false},
      {{{}, {{"metadata.uid", "In", {"node-1"}}}}, false},
      {{}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NodeSelectorTermMatches(c.term, node), c.matches)
        << (c.term.match_expressions.empty()
                ? "fields"
                : c.term.match_expressions[0].operator_);
  }
  api::NodeSelector any{
      {Labels("region", "In", {"r2"}), Labels("gpus", "Exists", {})}};
  EXPECT_TRUE(NodeSelectorMatches(any, node));
  EXPECT_FALSE(NodeSelectorMatches(api::NodeSelector{}, node));
}

}  // namespace
}  // namespace dralloc::allocator
