#include "podresources/pod_resources_printer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "podresources/pod_resources_proto.h"

namespace dralloc::podresources {
namespace {

std::vector<v1::PodResources> Sample() {
  PodResources trainer{
      .name = "trainer",
      .namespace_ = "ml",
      .containers = {
          ContainerResources{
              .name = "main",
              .claims =
                  {ContainerClaim{
                       "gpus",
                       "ml",
                       {ClaimDevice{"gpu.example.com",
                                    "node-a",
                                    "gpu-0",
                                    {"k8s.gpu.example.com/gpu=gpu-0",
                                     "k8s.gpu.example.com/gpu=common"},
                                    "share-1"},
                        ClaimDevice{
                            "gpu.example.com", "node-a", "gpu-1", {}, {}}}},
                   ContainerClaim{"pending", "ml", {}}}},
          ContainerResources{.name = "log", .claims = {}}}};
  PodResources bare{.name = "bare", .namespace_ = "default", .containers = {}};
  std::vector<v1::PodResources> out(2);
  ToProto(trainer, out[0]);
  ToProto(bare, out[1]);
  return out;
}

TEST(PodResourcesPrinter, TableHasOneRowPerDevice) {
  const std::string expected =
      "POD       NAMESPACE   CONTAINER   CLAIM     DRIVER            POOL     "
      "DEVICE   CDI IDS\n"
      "trainer   ml          main        gpus      gpu.example.com   node-a   "
      "gpu-0    k8s.gpu.example.com/gpu=gpu-0,k8s.gpu.example.com/gpu=common\n"
      "trainer   ml          main        gpus      gpu.example.com   node-a   "
      "gpu-1    <none>\n"
      "trainer   ml          main        pending   <none>            <none>   "
      "<none>   <none>\n"
      "trainer   ml          log         <none>    <none>            <none>   "
      "<none>   <none>\n"
      "bare      default     <none>      <none>    <none>            <none>   "
      "<none>   <none>\n";
  EXPECT_EQ(FormatTable(Sample()), expected);
}

TEST(PodResourcesPrinter, EmptyTable) {
  EXPECT_EQ(FormatTable({}), "No resources found.\n");
}

TEST(PodResourcesPrinter, JsonUsesProtoJsonMapping) {
  v1::ListPodResourcesResponse response;
  for (v1::PodResources& pod : Sample()) {
    *response.add_pod_resources() = std::move(pod);
  }
  StatusOr<std::string> json = ToJson(response);
  ASSERT_TRUE(json.ok()) << json.status();
  for (const char* expected :
       {"\"podResources\"", "\"dynamicResources\"", "\"claimResources\"",
        "\"cdiDevices\"", "\"driverName\": \"gpu.example.com\"",
        "\"shareId\": \"share-1\"", "\"claimNamespace\": \"ml\""}) {
    EXPECT_NE(json->find(expected), std::string::npos) << expected << " in\n"
                                                       << *json;
  }
  // share_id appears once: gpu-1 has none.
  EXPECT_EQ(json->find("shareId"), json->rfind("shareId"));
  EXPECT_EQ(json->back(), '\n');
}

}  // namespace
}  // namespace dralloc::podresources
