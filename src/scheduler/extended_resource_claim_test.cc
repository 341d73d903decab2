#include "scheduler/extended_resource_claim.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/quantity.h"

namespace dralloc::scheduler {
namespace {

api::DeviceClass Class(std::string name, std::string extended_name = "",
                       std::string created = "2026-01-01T00:00:00Z") {
  api::DeviceClass device_class;
  device_class.metadata.name = std::move(name);
  device_class.metadata.creation_timestamp = std::move(created);
  if (!extended_name.empty()) {
    device_class.spec.extended_resource_name = std::move(extended_name);
  }
  return device_class;
}

api::Container ContainerAsking(std::string name,
                               std::map<std::string, std::string> requests) {
  api::Container container;
  container.name = std::move(name);
  for (const auto& [resource, text] : requests) {
    container.resources.requests[resource] = *Quantity::Parse(text);
  }
  return container;
}

api::Pod PodWith(std::vector<api::Container> containers) {
  api::Pod pod;
  pod.metadata.name = "pod";
  pod.metadata.namespace_ = "default";
  pod.metadata.uid = "uid-1";
  pod.spec.containers = std::move(containers);
  return pod;
}

TEST(MapExtendedResourceClassesTest, ExplicitAndImplicitNames) {
  ExtendedResourceClasses classes = MapExtendedResourceClasses(
      {Class("gpu", "example.com/gpu"), Class("fpga")});
  EXPECT_EQ(classes, (ExtendedResourceClasses{
                         {"deviceclass.resource.kubernetes.io/fpga", "fpga"},
                         {"deviceclass.resource.kubernetes.io/gpu", "gpu"},
                         {"example.com/gpu", "gpu"}}));
}

TEST(MapExtendedResourceClassesTest, NewestClassWinsASharedName) {
  struct Case {
    std::vector<api::DeviceClass> classes;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{Class("old", "example.com/gpu", "2026-01-01T00:00:00Z"),
        Class("new", "example.com/gpu", "2026-02-01T00:00:00Z")},
       "new"},
      {{Class("b", "example.com/gpu"), Class("a", "example.com/gpu")}, "a"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MapExtendedResourceClasses(c.classes).at("example.com/gpu"),
              c.want);
  }
}

// The (container, resource, request) triples of `plan`, and its requests as
// "name=count", for compact expectations.
std::vector<std::string> MappingsOf(const ExtendedResourceClaimPlan& plan) {
  std::vector<std::string> out;
  for (const auto& m : plan.mappings) {
    out.push_back(m.container_name + "/" + m.resource_name + "->" +
                  m.request_name);
  }
  return out;
}
std::vector<std::string> RequestsOf(const ExtendedResourceClaimPlan& plan) {
  std::vector<std::string> out;
  for (const auto& r : plan.requests) {
    out.push_back(r.name + "=" + std::to_string(r.exactly->count) + ":" +
                  r.exactly->device_class_name);
  }
  return out;
}

api::Container Init(api::Container container, bool restartable = false) {
  if (restartable) container.restart_policy = "Always";
  return container;
}

using Strings = std::vector<std::string>;

TEST(PlanExtendedResourceClaimTest, MapsOnlyResourcesTheNodeLacks) {
  ExtendedResourceClasses classes = MapExtendedResourceClasses(
      {Class("gpu", "example.com/gpu"), Class("fpga")});
  api::Pod pod = PodWith(
      {ContainerAsking("a", {{"example.com/gpu", "2"}, {"cpu", "1"}}),
       ContainerAsking("b", {{"deviceclass.resource.kubernetes.io/fpga", "1"},
                             {"example.com/gpu", "0"}})});
  api::Node plain;
  ExtendedResourceClaimPlan plan =
      PlanExtendedResourceClaim(pod, &plain, classes);
  EXPECT_EQ(RequestsOf(plan), (Strings{"container-0-request-1=2:gpu",
                                       "container-1-request-0=1:fpga"}));
  EXPECT_EQ(MappingsOf(plan),
            (Strings{"b/deviceclass.resource.kubernetes.io/fpga->"
                     "container-1-request-0",
                     "a/example.com/gpu->container-0-request-1"}));

  api::Node device_plugin_node;
  device_plugin_node.status.allocatable["example.com/gpu"] =
      *Quantity::Parse("4");
  plan = PlanExtendedResourceClaim(pod, &device_plugin_node, classes);
  EXPECT_EQ(RequestsOf(plan), (Strings{"container-1-request-0=1:fpga"}));

  // A zero allocatable amount is no device plugin (upstream's check).
  api::Node zero_node;
  zero_node.status.allocatable["example.com/gpu"] = *Quantity::Parse("0");
  EXPECT_EQ(PlanExtendedResourceClaim(pod, &zero_node, classes).requests.size(),
            2u);
  EXPECT_TRUE(DelegatedToDra("example.com/gpu", &zero_node, classes));
  EXPECT_FALSE(DelegatedToDra("example.com/gpu", &device_plugin_node, classes));
  EXPECT_FALSE(DelegatedToDra("example.com/other", &plain, classes));

  EXPECT_TRUE(RequestsMappedExtendedResource(pod, classes));
  EXPECT_FALSE(RequestsMappedExtendedResource(
      PodWith({ContainerAsking("c", {{"example.com/other", "1"}})}), classes));
}

TEST(PlanExtendedResourceClaimTest, InitContainersReuseLaterRequests) {
  ExtendedResourceClasses classes =
      MapExtendedResourceClasses({Class("gpu", "example.com/gpu")});
  struct Case {
    std::string name;
    std::vector<api::Container> init;
    std::vector<api::Container> regular;
    Strings requests;
    Strings mappings;
  };
  const std::vector<Case> cases = {
      {"init covered by a regular container",
       {Init(ContainerAsking("i0", {{"example.com/gpu", "1"}}))},
       {ContainerAsking("c0", {{"example.com/gpu", "2"}})},
       {"container-1-request-0=2:gpu"},
       {"c0/example.com/gpu->container-1-request-0",
        "i0/example.com/gpu->container-1-request-0"}},
      {"init asks for the rest",
       {Init(ContainerAsking("i0", {{"example.com/gpu", "3"}})),
        Init(ContainerAsking("i1", {{"example.com/gpu", "1"}}))},
       {ContainerAsking("c0", {{"example.com/gpu", "1"}})},
       {"container-0-request-0=2:gpu", "container-2-request-0=1:gpu"},
       {"c0/example.com/gpu->container-2-request-0",
        "i0/example.com/gpu->container-2-request-0",
        "i0/example.com/gpu->container-0-request-0",
        "i1/example.com/gpu->container-2-request-0"}},
      {"only the largest init request stays",
       {Init(ContainerAsking("i0", {{"example.com/gpu", "2"}})),
        Init(ContainerAsking("i1", {{"example.com/gpu", "3"}}))},
       {ContainerAsking("c0", {{"cpu", "1"}})},
       {"container-1-request-0=3:gpu"},
       {"i0/example.com/gpu->container-1-request-0",
        "i1/example.com/gpu->container-1-request-0"}},
      {"a restartable init container is long-lived",
       {Init(ContainerAsking("s0", {{"example.com/gpu", "1"}}), true)},
       {ContainerAsking("c0", {{"example.com/gpu", "1"}})},
       {"container-0-request-0=1:gpu", "container-1-request-0=1:gpu"},
       {"s0/example.com/gpu->container-0-request-0",
        "c0/example.com/gpu->container-1-request-0"}},
      {"a fractional amount is not a device count",
       {},
       {ContainerAsking("c0", {{"example.com/gpu", "500m"}})},
       {},
       {}},
  };
  for (const Case& c : cases) {
    api::Pod pod = PodWith(c.regular);
    pod.spec.init_containers = c.init;
    ExtendedResourceClaimPlan plan =
        PlanExtendedResourceClaim(pod, nullptr, classes);
    EXPECT_EQ(RequestsOf(plan), c.requests) << c.name;
    EXPECT_EQ(MappingsOf(plan), c.mappings) << c.name;
  }
}

TEST(BuildExtendedResourceClaimTest, ShapeAsUpstream) {
  ExtendedResourceClasses classes =
      MapExtendedResourceClasses({Class("gpu", "example.com/gpu")});
  api::Pod pod = PodWith({ContainerAsking("a", {{"example.com/gpu", "3"}})});
  ExtendedResourceClaimPlan plan =
      PlanExtendedResourceClaim(pod, nullptr, classes);
  api::ResourceClaim claim = BuildExtendedResourceClaim(pod, plan);
  EXPECT_EQ(claim.metadata.generate_name, "pod-extended-resources-");
  EXPECT_EQ(claim.metadata.namespace_, "default");
  EXPECT_EQ(claim.metadata.annotations.at(
                std::string(kExtendedResourceClaimAnnotation)),
            "true");
  ASSERT_EQ(claim.metadata.owner_references.size(), 1u);
  const api::OwnerReference& owner = claim.metadata.owner_references[0];
  EXPECT_EQ(owner.kind, "Pod");
  EXPECT_EQ(owner.uid, "uid-1");
  EXPECT_EQ(owner.controller, true);
  EXPECT_TRUE(IsExtendedResourceClaimOf(claim, "uid-1"));
  EXPECT_FALSE(IsExtendedResourceClaimOf(claim, "uid-2"));
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  const api::DeviceRequest& request = claim.spec.devices.requests[0];
  EXPECT_EQ(request.name, "container-0-request-0");
  ASSERT_TRUE(request.exactly.has_value());
  EXPECT_EQ(request.exactly->device_class_name, "gpu");
  EXPECT_EQ(request.exactly->count, 3);

  api::PodExtendedResourceClaimStatus status =
      ExtendedResourceClaimStatusFor("pod-extended-resources-abcde", plan);
  EXPECT_EQ(status.resource_claim_name, "pod-extended-resources-abcde");
  ASSERT_EQ(status.request_mappings.size(), 1u);
  EXPECT_EQ(status.request_mappings[0].request_name, "container-0-request-0");
}

}  // namespace
}  // namespace dralloc::scheduler
