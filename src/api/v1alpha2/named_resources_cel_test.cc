#include "api/v1alpha2/named_resources_cel.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cel/program.h"

namespace dralloc::api::v1alpha2 {
namespace {

NamedResourcesAttribute Attribute(std::string name) {
  NamedResourcesAttribute a;
  a.name = std::move(name);
  return a;
}

// The golden instance of tests/golden/v1alpha2/structured.yaml's shape:
// one attribute of every type.
NamedResourcesInstance Instance() {
  NamedResourcesInstance instance;
  instance.name = "gpu-0";
  NamedResourcesAttribute memory = Attribute("memory");
  memory.quantity = *Quantity::Parse("40Gi");
  NamedResourcesAttribute healthy = Attribute("healthy");
  healthy.bool_value = true;
  NamedResourcesAttribute numa = Attribute("numa");
  numa.int_value = 0;
  NamedResourcesAttribute cores = Attribute("cores");
  cores.int_slice = NamedResourcesIntSlice{{4, 5}};
  NamedResourcesAttribute model = Attribute("model");
  model.string_value = "a100";
  NamedResourcesAttribute tags = Attribute("tags");
  tags.string_slice = NamedResourcesStringSlice{{"nvlink"}};
  NamedResourcesAttribute firmware = Attribute("firmware");
  firmware.version = "2.0.1";
  instance.attributes = {memory, healthy, numa, cores, model, tags, firmware};
  return instance;
}

bool Matches(const char* selector, const NamedResourcesInstance& instance) {
  auto program = cel::Compile(cel::NamedResourcesEnvironment(), selector);
  EXPECT_TRUE(program.ok()) << selector << ": " << program.status();
  if (!program.ok()) return false;
  const cel::NamedResourcesAttributes attributes = CelAttributesOf(instance);
  cel::EvalContext ctx;
  StatusOr<bool> matched =
      cel::MatchNamedResourcesSelector(**program, attributes, ctx);
  EXPECT_TRUE(matched.ok()) << selector << ": " << matched.status();
  return matched.ok() && *matched;
}

TEST(NamedResourcesCelTest, EveryAttributeTypeInItsMap) {
  const NamedResourcesInstance gpu = Instance();
  EXPECT_TRUE(Matches(
      R"(attributes.quantity["memory"].compareTo(quantity("40Gi")) == 0)",
      gpu));
  EXPECT_TRUE(Matches(R"(attributes.bool["healthy"])", gpu));
  EXPECT_TRUE(Matches(R"(attributes.int["numa"] == 0)", gpu));
  EXPECT_TRUE(Matches(R"(attributes.intslice["cores"] == [4, 5])", gpu));
  EXPECT_TRUE(Matches(R"(attributes.string["model"] == "a100")", gpu));
  EXPECT_TRUE(Matches(R"(attributes.stringslice["tags"] == ["nvlink"])", gpu));
  EXPECT_TRUE(Matches(
      R"(attributes.version["firmware"].isGreaterThan(semver("2.0.0")))", gpu));
  // Each name is in the map of its type only.
  EXPECT_TRUE(Matches(R"(!("numa" in attributes.string))", gpu));
  EXPECT_FALSE(Matches(R"(attributes.int["numa"] > 0)", gpu));
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
