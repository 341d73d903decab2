#include "common/status.h"

#include <gtest/gtest.h>

namespace dralloc {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd");
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int half, Half(x));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  RETURN_IF_ERROR(Half(x).status());
  return OkStatus();
}

TEST(StatusTest, OkAndError) {
  EXPECT_TRUE(OkStatus().ok());
  Status s = NotFoundError("no such thing");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NOT_FOUND: no such thing");
  EXPECT_EQ(s.WithPrefix("lookup").message(), "lookup: no such thing");
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_FALSE(CheckEven(3).ok());
}

TEST(StatusTest, OkStatusIntoStatusOrIsInternalError) {
  StatusOr<int> v(OkStatus());
  EXPECT_EQ(v.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace dralloc
