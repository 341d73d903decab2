// NodePodResourcesSource: what the node agent reports on the PodResources
// socket (podresources::PodResourcesServer): per container of each running
// pod, the devices the drivers prepared for the claims it uses.
#ifndef DRALLOC_NODE_POD_RESOURCES_SOURCE_H_
#define DRALLOC_NODE_POD_RESOURCES_SOURCE_H_

#include <vector>

#include "node/claim_info_cache.h"
#include "node/pod_manager.h"
#include "podresources/pod_resources_source.h"

namespace dralloc::node {

class NodePodResourcesSource final : public podresources::PodResourcesSource {
 public:
  // `pods` and `claims` must outlive the source; both are thread-safe.
  NodePodResourcesSource(const PodManager& pods, const ClaimInfoCache& claims)
      : pods_(pods), claims_(claims) {}

  std::vector<podresources::PodResources> ListPods() const override;

 private:
  podresources::ContainerClaim Describe(const ContainerClaim& claim) const;

  const PodManager& pods_;
  const ClaimInfoCache& claims_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_POD_RESOURCES_SOURCE_H_
