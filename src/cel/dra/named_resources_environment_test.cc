#include "cel/dra/named_resources_environment.h"

#include <gtest/gtest.h>

#include <string>

namespace dralloc::cel {
namespace {

TEST(NamedResourcesEnvironmentTest, SevenTypedAttributeMaps) {
  for (const char* selector :
       {R"(attributes.quantity["memory"].isGreaterThan(quantity("1Gi")))",
        R"(attributes.bool["healthy"])", R"(attributes.int["numa"] == 0)",
        R"(attributes.intslice["cores"].isSorted())",
        R"(attributes.string["model"].startsWith("a1"))",
        R"("fast" in attributes.stringslice["tags"])",
        R"(attributes.version["fw"].isGreaterThan(semver("1.0.0")))",
        R"("numa" in attributes.int && attributes.int["numa"] < 2)"}) {
    EXPECT_TRUE(CheckNamedResourcesSelector(selector).ok())
        << selector << ": " << CheckNamedResourcesSelector(selector);
  }
}

TEST(NamedResourcesEnvironmentTest, RejectsWhat130Rejected) {
  const Status undefined = CheckNamedResourcesSelector("nosuchvar");
  EXPECT_NE(std::string(undefined.message())
                .find("undeclared reference to 'nosuchvar'"),
            std::string::npos)
      << undefined;
  // Map values are typed: an int is no string.
  EXPECT_FALSE(
      CheckNamedResourcesSelector(R"(attributes.int["a"] == "x")").ok());
  // Not bool.
  EXPECT_FALSE(CheckNamedResourcesSelector(R"(attributes.int["a"])").ok());
  // The JSON spelling is not a variable field.
  EXPECT_FALSE(
      CheckNamedResourcesSelector(R"(attributes.intSlice["a"].size() > 0)")
          .ok());
  // v1's device does not exist here.
  EXPECT_FALSE(CheckNamedResourcesSelector("device.driver == \"x\"").ok());
}

}  // namespace
}  // namespace dralloc::cel
