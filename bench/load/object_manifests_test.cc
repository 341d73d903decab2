#include "load/object_manifests.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

TEST(ObjectManifestsTest, ClaimRequestsOneGpuInItsNamespace) {
  const nlohmann::json claim = ResourceClaimManifest("c1", "ns1", "run1");
  EXPECT_EQ(claim["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(claim["kind"], "ResourceClaim");
  EXPECT_EQ(claim["metadata"]["name"], "c1");
  EXPECT_EQ(claim["metadata"]["namespace"], "ns1");
  EXPECT_EQ(claim["metadata"]["labels"][std::string(kLoadLabelKey)], "run1");
  const nlohmann::json& requests = claim["spec"]["devices"]["requests"];
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["name"], "gpu");
  EXPECT_EQ(requests[0]["exactly"]["deviceClassName"], "gpu.example.com");
}

TEST(ObjectManifestsTest, SliceIsAlonePoolOfItsNodeWithDevices) {
  const nlohmann::json slice = ResourceSliceManifest("s1", "node-a", 3, "r");
  EXPECT_EQ(slice["kind"], "ResourceSlice");
  EXPECT_FALSE(slice["metadata"].contains("namespace"));
  const nlohmann::json& spec = slice["spec"];
  EXPECT_EQ(spec["driver"], "gpu.example.com");
  EXPECT_EQ(spec["nodeName"], "node-a");
  EXPECT_EQ(spec["pool"]["name"], "node-a");
  EXPECT_EQ(spec["pool"]["generation"], 1);
  EXPECT_EQ(spec["pool"]["resourceSliceCount"], 1);
  ASSERT_EQ(spec["devices"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const nlohmann::json& device = spec["devices"][i];
    EXPECT_EQ(device["name"], "gpu-" + std::to_string(i));
    EXPECT_EQ(device["attributes"].size(), 4u);
    EXPECT_EQ(device["attributes"]["index"]["int"], i);
    EXPECT_EQ(device["capacity"]["memory"]["value"], "80Gi");
  }
}

TEST(ObjectManifestsTest, Paths) {
  EXPECT_EQ(ResourceClaimsPath("default"),
            "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims");
  EXPECT_EQ(ResourceSlicesPath(), "/apis/resource.k8s.io/v1/resourceslices");
  EXPECT_EQ(NamespacesPath(), "/api/v1/namespaces");
}

}  // namespace
}  // namespace dralloc::load
