#include "scheduler/filter_cache.h"

#include <gtest/gtest.h>

#include <random>

#include "scheduler/scheduling_framework.h"
#include "scheduler/test_cluster.h"
#include "scheduler/test_manifests.h"

namespace dralloc::scheduler {
namespace {

using test_manifests::Document;

// The claim specs the random pods draw from: one device, two devices on
// one NUMA node, a prioritized list, a selector on the model, and a device
// of the pool every node sees.
const std::vector<std::string>& ClaimSpecs() {
  static const std::vector<std::string> specs = {
      "  devices:\n    requests:\n    - name: one\n      exactly: "
      "{deviceClassName: gpu}\n",
      "  devices:\n    requests:\n    - name: two\n      exactly: "
      "{deviceClassName: gpu, count: 2}\n    constraints:\n    - "
      "matchAttribute: gpu.example.com/numa\n",
      "  devices:\n    requests:\n    - name: pick\n      firstAvailable:\n"
      "      - {name: big, deviceClassName: gpu, count: 3}\n"
      "      - {name: small, deviceClassName: gpu}\n",
      "  devices:\n    requests:\n    - name: model-a\n      exactly:\n"
      "        deviceClassName: gpu\n        selectors:\n        - cel: "
      "{expression: 'device.attributes[\"gpu.example.com\"].model == "
      "\"a\"'}\n",
      "  devices:\n    requests:\n    - name: net\n      exactly:\n"
      "        deviceClassName: gpu\n        selectors:\n        - cel: "
      "{expression: 'device.attributes[\"gpu.example.com\"].model == "
      "\"net\"'}\n",
  };
  return specs;
}

std::string Device(const std::string& name, const std::string& model,
                   int numa) {
  return "{name: " + name + ", attributes: {model: {string: " + model +
         "}, numa: {int: " + std::to_string(numa) + "}}}";
}

// Nodes n0..n<nodes-1> with 0-4 GPUs of random model and NUMA node each,
// and one network-attached pool of two devices all nodes see.
std::string RandomCluster(std::mt19937& random, int nodes) {
  std::string out = test_manifests::Namespace() + test_manifests::GpuClass();
  for (int n = 0; n < nodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    out += test_manifests::Node(node);
    out += Document("resource.k8s.io/v1", "ResourceSlice", node);
    out += "spec:\n  driver: gpu.example.com\n  nodeName: " + node +
           "\n  pool: {name: " + node +
           ", generation: 1, resourceSliceCount: 1}\n  devices: [";
    const int gpus = static_cast<int>(random() % 5);
    for (int g = 0; g < gpus; ++g) {
      if (g > 0) out += ", ";
      out += Device("gpu-" + std::to_string(g), random() % 2 ? "a" : "b",
                    static_cast<int>(random() % 2));
    }
    out += "]\n";
  }
  out += Document("resource.k8s.io/v1", "ResourceSlice", "net");
  out +=
      "spec:\n  driver: gpu.example.com\n  allNodes: true\n  pool: {name: "
      "net, generation: 1, resourceSliceCount: 1}\n  devices: [" +
      Device("net-0", "net", 0) + ", " + Device("net-1", "net", 0) + "]\n";
  return out;
}

// One scheduler side: a cluster, its snapshot, the DRA plugin and a
// framework with or without the FilterCache.
struct Side {
  explicit Side(bool cache)
      : framework(snapshot, dra, DefaultProfile(),
                  FrameworkOptions{false, Placement::kDefault, cache}) {}

  TestCluster cluster;
  ClusterSnapshot snapshot{cluster.sources()};
  DraPlugin dra{cluster.api, snapshot, DraPluginOptions{}};
  SchedulingFramework framework;
  size_t next_start = 0;
};

std::string Describe(const Side& side, const CycleVerdict& verdict) {
  std::string out = std::to_string(static_cast<int>(verdict.kind)) + " " +
                    verdict.message +
                    " feasible=" + std::to_string(verdict.feasible_nodes) +
                    " score=" + std::to_string(verdict.score);
  if (!verdict.chosen) return out;
  out += " node=" + side.snapshot.nodes()[verdict.chosen->node].info.name;
  for (const api::AllocationResult& allocation :
       verdict.chosen->allocations()) {
    for (const auto& result : allocation.devices.results) {
      out += " " + result.request + "=" + result.pool + "/" + result.device;
    }
  }
  return out;
}

// The same random stream of pods (and claim releases) through a framework
// with the cache and one without: every verdict, placement and allocation
// must be the same.
TEST(FilterCacheDifferentialTest, SameVerdictsWithAndWithoutCache) {
  uint64_t cached_calls = 0, plain_calls = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    const std::string cluster = RandomCluster(random, 3 + seed % 8);
    Side cached(true), plain(false);
    for (Side* side : {&cached, &plain}) {
      side->cluster.Load(cluster);
      side->cluster.Pump();
      side->snapshot.Refresh();
    }
    std::vector<std::string> reserved;  // claim keys
    for (int step = 0; step < 60; ++step) {
      if (!reserved.empty() && random() % 4 == 0) {
        const size_t victim = random() % reserved.size();
        for (Side* side : {&cached, &plain}) {
          side->snapshot.RestoreClaim(reserved[victim]);
        }
        reserved.erase(reserved.begin() + static_cast<ptrdiff_t>(victim));
        continue;
      }
      const std::string name = "c" + std::to_string(step);
      const std::string claim =
          "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
          "metadata: {name: " +
          name + ", namespace: ns}\nspec:\n" +
          ClaimSpecs()[random() % ClaimSpecs().size()];
      api::Pod pod;
      pod.metadata.name = "p" + std::to_string(step);
      pod.metadata.namespace_ = "ns";
      pod.metadata.uid = "uid-" + std::to_string(step);
      api::PodResourceClaim entry;
      entry.name = "gpu";
      entry.resource_claim_name = name;
      pod.spec.resource_claims.push_back(entry);
      auto pod_object = std::make_shared<const api::Object>(pod);
      std::string verdicts[2];
      int s = 0;
      for (Side* side : {&cached, &plain}) {
        side->cluster.Load(claim);
        side->cluster.Pump();
        for (const auto& o : side->cluster.claims.List()) {
          side->snapshot.ObserveClaim(client::ObjectKey(*o), o);
        }
        DraCycleState state(std::get<api::Pod>(*pod_object));
        CycleVerdict verdict =
            side->framework.Schedule(state, side->next_start);
        verdicts[s++] = Describe(*side, verdict);
        if (verdict.chosen)
          side->dra.Reserve(state, pod_object, *verdict.chosen);
      }
      ASSERT_EQ(verdicts[0], verdicts[1]) << "step " << step;
      if (verdicts[0].find(" node=") != std::string::npos) {
        reserved.push_back("ns/" + name);
      }
    }
    EXPECT_GT(cached.framework.stats().filter_cache_hits, 0u);
    EXPECT_EQ(plain.framework.stats().filter_cache_hits, 0u);
    // Cycles that end unschedulable after a cached rejection filter
    // again, so one seed may call the allocator more; over all, less.
    cached_calls += cached.framework.stats().allocator_calls;
    plain_calls += plain.framework.stats().allocator_calls;
  }
  EXPECT_LT(cached_calls, plain_calls);
}

}  // namespace
}  // namespace dralloc::scheduler
