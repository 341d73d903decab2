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

TEST(DraBackedExtendedResourcesTest, MapsOnlyResourcesTheNodeLacks) {
  ExtendedResourceClasses classes = MapExtendedResourceClasses(
      {Class("gpu", "example.com/gpu"), Class("fpga")});
  api::Pod pod = PodWith(
      {ContainerAsking("a", {{"example.com/gpu", "2"}, {"cpu", "1"}}),
       ContainerAsking("b", {{"deviceclass.resource.kubernetes.io/fpga", "1"},
                             {"example.com/gpu", "0"}})});
  api::Node plain;
  std::vector<ExtendedResourceRequest> requests =
      DraBackedExtendedResources(pod, plain, classes);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].mapping,
            (api::ContainerExtendedResourceRequest{"a", "example.com/gpu",
                                                   "container-0-request-1"}));
  EXPECT_EQ(requests[0].device_class_name, "gpu");
  EXPECT_EQ(requests[0].count, 2);
  EXPECT_EQ(requests[1].mapping,
            (api::ContainerExtendedResourceRequest{
                "b", "deviceclass.resource.kubernetes.io/fpga",
                "container-1-request-0"}));

  api::Node device_plugin_node;
  device_plugin_node.status.allocatable["example.com/gpu"] =
      *Quantity::Parse("4");
  requests = DraBackedExtendedResources(pod, device_plugin_node, classes);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].mapping.resource_name,
            "deviceclass.resource.kubernetes.io/fpga");
  EXPECT_TRUE(RequestsMappedExtendedResource(pod, classes));
  EXPECT_FALSE(RequestsMappedExtendedResource(
      PodWith({ContainerAsking("c", {{"example.com/other", "1"}})}), classes));
}

TEST(BuildExtendedResourceClaimTest, ShapeAsUpstream) {
  ExtendedResourceClasses classes =
      MapExtendedResourceClasses({Class("gpu", "example.com/gpu")});
  api::Pod pod = PodWith({ContainerAsking("a", {{"example.com/gpu", "3"}})});
  std::vector<ExtendedResourceRequest> requests =
      DraBackedExtendedResources(pod, api::Node{}, classes);
  api::ResourceClaim claim = BuildExtendedResourceClaim(pod, requests);
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
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  const api::DeviceRequest& request = claim.spec.devices.requests[0];
  EXPECT_EQ(request.name, "container-0-request-0");
  ASSERT_TRUE(request.exactly.has_value());
  EXPECT_EQ(request.exactly->device_class_name, "gpu");
  EXPECT_EQ(request.exactly->count, 3);

  api::PodExtendedResourceClaimStatus status =
      ExtendedResourceClaimStatusFor("pod-extended-resources-abcde", requests);
  EXPECT_EQ(status.resource_claim_name, "pod-extended-resources-abcde");
  ASSERT_EQ(status.request_mappings.size(), 1u);
  EXPECT_EQ(status.request_mappings[0].request_name, "container-0-request-0");
}

}  // namespace
}  // namespace dralloc::scheduler
