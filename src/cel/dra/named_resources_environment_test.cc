#include "cel/dra/named_resources_environment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

NamedResourcesAttributes Gpu() {
  NamedResourcesAttributes attributes;
  attributes.AddQuantity("memory", *Quantity::Parse("80Gi"));
  attributes.AddBool("healthy", true);
  attributes.AddInt("numa", 1);
  attributes.AddIntSlice("cores", {0, 1, 2});
  attributes.AddString("model", "a100");
  attributes.AddStringSlice("tags", {"big", "fast"});
  attributes.AddVersion("fw", "1.2.3");
  attributes.AddVersion("broken", "v1");
  return attributes;
}

StatusOr<bool> Match(const char* selector,
                     const NamedResourcesAttributes& attributes) {
  StatusOr<std::shared_ptr<const Program>> program =
      Compile(NamedResourcesEnvironment(), selector);
  if (!program.ok()) return program.status();
  EvalContext ctx;
  return MatchNamedResourcesSelector(**program, attributes, ctx);
}

TEST(NamedResourcesEnvironmentTest, EvaluatesOnAnInstance) {
  const NamedResourcesAttributes gpu = Gpu();
  for (const char* selector :
       {R"(attributes.quantity["memory"].isGreaterThan(quantity("40Gi")))",
        R"(attributes.bool["healthy"])", R"(attributes.int["numa"] == 1)",
        R"(attributes.intslice["cores"].isSorted())",
        R"(attributes.string["model"] == "a100")",
        R"("fast" in attributes.stringslice["tags"])",
        R"(attributes.version["fw"].isGreaterThan(semver("1.0.0")))",
        R"(!("gpu" in attributes.string))"}) {
    StatusOr<bool> matched = Match(selector, gpu);
    ASSERT_TRUE(matched.ok()) << selector << ": " << matched.status();
    EXPECT_TRUE(*matched) << selector;
  }
  StatusOr<bool> numa0 = Match(R"(attributes.int["numa"] == 0)", gpu);
  ASSERT_TRUE(numa0.ok());
  EXPECT_FALSE(*numa0);
}

TEST(NamedResourcesEnvironmentTest, RuntimeErrorsAreErrors) {
  const NamedResourcesAttributes gpu = Gpu();
  StatusOr<bool> missing = Match(R"(attributes.int["cores"] > 0)", gpu);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message()).find("no such key"),
            std::string::npos)
      << missing.status();
  EXPECT_FALSE(
      Match(R"(attributes.version["broken"].isGreaterThan(semver("1.0.0")))",
            gpu)
          .ok());
}

}  // namespace
}  // namespace dralloc::cel
