#include "load/writes_scenario.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

struct MixCase {
  std::string mix;
  bool valid;
  std::vector<WriteOp> ops;
};

class ParseWriteMixTest : public testing::TestWithParam<MixCase> {};

TEST_P(ParseWriteMixTest, ParsesCommaSeparatedOps) {
  const MixCase& c = GetParam();
  StatusOr<std::vector<WriteOp>> ops = ParseWriteMix(c.mix);
  ASSERT_EQ(ops.ok(), c.valid) << c.mix;
  if (c.valid) {
    EXPECT_EQ(*ops, c.ops);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mixes, ParseWriteMixTest,
    testing::Values(
        MixCase{"create,get,update",
                true,
                {WriteOp::kCreate, WriteOp::kGet, WriteOp::kUpdate}},
        MixCase{"create", true, {WriteOp::kCreate}},
        MixCase{"get,get,update",
                true,
                {WriteOp::kGet, WriteOp::kGet, WriteOp::kUpdate}},
        MixCase{"", false, {}}, MixCase{"create,", false, {}},
        MixCase{"create,delete", false, {}}, MixCase{"Create", false, {}}));

TEST(WriteOpNameTest, NamesEveryOp) {
  EXPECT_EQ(WriteOpName(WriteOp::kCreate), "create");
  EXPECT_EQ(WriteOpName(WriteOp::kGet), "get");
  EXPECT_EQ(WriteOpName(WriteOp::kUpdate), "update");
}

}  // namespace
}  // namespace dralloc::load
