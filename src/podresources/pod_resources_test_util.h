// Sample pods for the PodResources tests and the fake server.
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_TEST_UTIL_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_TEST_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "podresources/pod_resources_source.h"

namespace dralloc::podresources {

// A source that answers with a fixed list of pods.
class FakeSource : public PodResourcesSource {
 public:
  explicit FakeSource(std::vector<PodResources> pods)
      : pods_(std::move(pods)) {}
  std::vector<PodResources> ListPods() const override { return pods_; }

 private:
  std::vector<PodResources> pods_;
};

inline ClaimDevice Gpu(std::string name,
                       std::optional<std::string> share_id = {}) {
  return ClaimDevice{.driver = "gpu.example.com",
                     .pool = "node-a",
                     .device = name,
                     .cdi_ids = {"k8s.gpu.example.com/gpu=" + name},
                     .share_id = std::move(share_id)};
}

// Two pods; the first has two containers (one sharing claim "shared" with a
// shared device, one with two claims), the second a container without
// claims and one whose claim has two devices.
inline std::vector<PodResources> SamplePods() {
  return {
      PodResources{
          .name = "trainer",
          .namespace_ = "ml",
          .containers =
              {ContainerResources{
                   .name = "main",
                   .claims = {ContainerClaim{
                       "shared", "ml", {Gpu("gpu-0", "share-7")}}}},
               ContainerResources{
                   .name = "sidecar",
                   .claims = {ContainerClaim{
                                  "shared", "ml", {Gpu("gpu-0", "share-7")}},
                              ContainerClaim{"own", "ml", {Gpu("gpu-1")}}}}}},
      PodResources{
          .name = "web",
          .namespace_ = "default",
          .containers =
              {ContainerResources{.name = "proxy", .claims = {}},
               ContainerResources{
                   .name = "app",
                   .claims = {ContainerClaim{
                       "pair", "default", {Gpu("gpu-2"), Gpu("gpu-3")}}}}}},
  };
}

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_TEST_UTIL_H_
