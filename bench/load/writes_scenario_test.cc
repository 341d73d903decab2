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

namespace dralloc::load {
namespace {

using std::chrono::microseconds;

TEST(SendScheduleTest, ClientsInterleaveEvenlyAtTheSharedRate) {
  const auto start = std::chrono::steady_clock::time_point{};
  // 4 clients share 1,000 requests/s: each sends every 4 ms, client i
  // starting i ms in.
  SendSchedule first(start, 1000, 4, 0);
  SendSchedule third(start, 1000, 4, 2);
  EXPECT_EQ(first.Next() - start, microseconds(0));
  EXPECT_EQ(first.Next() - start, microseconds(4000));
  EXPECT_EQ(first.Next() - start, microseconds(8000));
  EXPECT_EQ(third.Next() - start, microseconds(2000));
  EXPECT_EQ(third.Next() - start, microseconds(6000));
}

TEST(SendScheduleTest, FractionalIntervalsDoNotDrift) {
  const auto start = std::chrono::steady_clock::time_point{};
  // 1 client at 3 requests/s: the 3,001st send is at 1,000 s, not earlier or
  // later by accumulated rounding.
  SendSchedule schedule(start, 3, 1, 0);
  std::chrono::steady_clock::time_point last;
  for (int i = 0; i <= 3000; ++i) last = schedule.Next();
  EXPECT_EQ(std::chrono::duration_cast<microseconds>(last - start),
            microseconds(1'000'000'000));
}

}  // namespace
}  // namespace dralloc::load
