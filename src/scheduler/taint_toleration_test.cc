#include "scheduler/taint_toleration.h"

#include <gtest/gtest.h>

namespace dralloc::scheduler {
namespace {

TEST(TaintTolerationTest, Tolerates) {
  const api::Taint taint{.key = "k", .value = "v", .effect = "NoExecute"};
  EXPECT_TRUE(Tolerates({.key = "k", .value = "v"}, taint));
  EXPECT_TRUE(
      Tolerates({.key = "k", .operator_ = "Equal", .value = "v"}, taint));
  EXPECT_FALSE(Tolerates({.key = "k", .value = "w"}, taint));
  EXPECT_FALSE(Tolerates({.key = "j", .value = "v"}, taint));
  EXPECT_TRUE(Tolerates({.operator_ = "Exists"}, taint));
  EXPECT_TRUE(Tolerates({.key = "k", .operator_ = "Exists"}, taint));
  EXPECT_TRUE(Tolerates(
      {.key = "k", .operator_ = "Exists", .effect = "NoExecute"}, taint));
  EXPECT_FALSE(Tolerates(
      {.key = "k", .operator_ = "Exists", .effect = "NoSchedule"}, taint));
}

}  // namespace
}  // namespace dralloc::scheduler
