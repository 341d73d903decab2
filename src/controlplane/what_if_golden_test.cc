// Golden scheduling cases: tests/golden/schedule/<case>.yaml holds the
// objects, <case>.expect the outcome, one pod per line:
//   <ns>/<pod> <node> [<driver/pool/device> ...]   scheduled there (with
//                                                  exactly those devices)
//   <ns>/<pod> pending <text>                      not scheduled; the reason
//                                                  contains <text>
//   option placement=pack|spread                   scheduler option
//   error <text>                                   loading the objects fails
//                                                  with a message containing
//                                                  <text> (as the API server
//                                                  refuses them); the others
//                                                  still run
// Lines starting with '#' are comments.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "allocator/offline_allocation.h"
#include "api/validation/validation.h"
#include "controlplane/what_if.h"

namespace dralloc::controlplane {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator("tests/golden/schedule")) {
    if (entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Each case runs on one thread (batch 0) and pipelined with tiny batches, so
// that many rounds overlap controller and scheduler work: the outcome must
// be the same.
class WhatIfGoldenTest
    : public testing::TestWithParam<std::tuple<std::string, size_t>> {};

TEST_P(WhatIfGoldenTest, Run) {
  const fs::path dir = "tests/golden/schedule";
  const auto& [name, pipeline_batch] = GetParam();
  auto objects = allocator::DecodeManifests(ReadText(dir / (name + ".yaml")),
                                            name + ".yaml");
  ASSERT_TRUE(objects.ok()) << objects.status();
  for (api::Object& object : *objects) {
    if (client::ResourceOf(object).namespaced &&
        api::MetaOf(object).namespace_.empty()) {
      api::MetaOf(object).namespace_ = "default";
    }
    ASSERT_TRUE(api::Validate(object).empty()) << api::DisplayName(object);
  }

  scheduler::SchedulerOptions options;
  std::map<std::string, std::string> expected;  // pod → rest of line
  std::vector<std::string> load_errors;
  std::istringstream expect(ReadText(dir / (name + ".expect")));
  for (std::string line; std::getline(expect, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("option placement=")) {
      const std::string value = line.substr(17);
      options.placement = value == "pack" ? scheduler::Placement::kPack
                                          : scheduler::Placement::kSpread;
      continue;
    }
    if (line.starts_with("error ")) {
      load_errors.push_back(line.substr(6));
      continue;
    }
    const size_t space = line.find(' ');
    ASSERT_NE(space, std::string::npos) << line;
    expected[line.substr(0, space)] = line.substr(space + 1);
  }

  WhatIf what_if(options, pipeline_batch);
  const Status loaded = what_if.Load(std::move(*objects));
  if (load_errors.empty()) {
    ASSERT_TRUE(loaded.ok()) << loaded;
  } else {
    ASSERT_FALSE(loaded.ok());
    for (const std::string& error : load_errors) {
      EXPECT_NE(loaded.message().find(error), std::string::npos)
          << "expected \"" << error << "\" in " << loaded.message();
    }
  }
  ASSERT_TRUE(what_if.Run().ok());
  std::map<std::string, std::string> seen;
  for (const PodPlacement& p : what_if.Placements()) {
    const std::string pod =
        p.pod->metadata.namespace_ + "/" + p.pod->metadata.name;
    seen[pod] = "";
    auto want = expected.find(pod);
    ASSERT_NE(want, expected.end()) << "unexpected pod " << pod;
    if (want->second.starts_with("pending ")) {
      EXPECT_EQ(p.node, "") << pod;
      EXPECT_NE(p.reason.find(want->second.substr(8)), std::string::npos)
          << pod << " reason: " << p.reason;
      continue;
    }
    std::istringstream words(want->second);
    std::string node;
    words >> node;
    EXPECT_EQ(p.node, node) << pod << " (reason: " << p.reason << ")";
    std::vector<std::string> devices;
    for (std::string d; words >> d;) devices.push_back(d);
    if (!devices.empty()) {
      EXPECT_EQ(p.devices, devices) << pod;
    }
  }
  for (const auto& [pod, line] : expected) {
    EXPECT_TRUE(seen.contains(pod)) << "missing pod " << pod;
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, WhatIfGoldenTest,
                         testing::Combine(testing::ValuesIn(Cases()),
                                          testing::Values(size_t{0}, size_t{1},
                                                          size_t{3})),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_batch" +
                                  std::to_string(std::get<1>(info.param));
                         });

// A generated cluster too big to be done in one round: pods from a template
// and pods sharing a claim, on nodes whose devices run out, so that order
// decides who gets what. Pipelined runs must place every pod exactly as the
// single-threaded run does.
std::string GeneratedCluster(int nodes, int devices, int pods) {
  std::string yaml = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: ml}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]}}
)";
  for (int n = 0; n < nodes; ++n) {
    yaml += fmt::format(R"(---
apiVersion: v1
kind: Node
metadata: {{name: node-{0:03d}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: node-{0:03d}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: node-{0:03d}
  pool: {{name: node-{0:03d}, generation: 1, resourceSliceCount: 1}}
  devices: [)",
                        n);
    for (int d = 0; d < devices; ++d) {
      yaml += fmt::format("{}{{name: gpu-{}}}", d == 0 ? "" : ", ", d);
    }
    yaml += "]\n";
  }
  for (int p = 0; p < pods; ++p) {
    const bool shares = p % 7 == 3;
    yaml += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: pod-{:04d}, namespace: ml}}
spec:
  resourceClaims: [{{name: gpu, {}}}]
  containers: [{{name: c, image: busybox, resources: {{claims: [{{name: gpu}}]}}}}]
)",
                        p,
                        shares ? "resourceClaimName: shared"
                               : "resourceClaimTemplateName: one-gpu");
  }
  return yaml;
}

std::vector<std::string> PlacementLines(size_t pipeline_batch,
                                        const std::string& yaml) {
  auto objects = allocator::DecodeManifests(yaml, "generated.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  if (!objects.ok()) return {};
  WhatIf what_if(scheduler::SchedulerOptions{}, pipeline_batch);
  EXPECT_TRUE(what_if.Load(std::move(*objects)).ok());
  EXPECT_TRUE(what_if.Run().ok());
  std::vector<std::string> lines;
  for (const PodPlacement& p : what_if.Placements()) {
    lines.push_back(fmt::format("{} {} [{}] [{}] {}", p.pod->metadata.name,
                                p.node, fmt::join(p.claims, ","),
                                fmt::join(p.devices, ","), p.reason));
  }
  return lines;
}

TEST(WhatIfPipelineTest, PlacesEveryPodAsTheSingleThreadedRun) {
  // 60 nodes x 3 devices for 240 pods: some stay pending.
  const std::string yaml = GeneratedCluster(60, 3, 240);
  const std::vector<std::string> sequential = PlacementLines(0, yaml);
  ASSERT_EQ(sequential.size(), 240u);
  size_t pending = 0;
  for (const std::string& line : sequential) {
    if (line.find(" node-") == std::string::npos) ++pending;
  }
  EXPECT_GT(pending, 0u);
  EXPECT_LT(pending, 240u);
  for (size_t batch : {1, 7, 64, 512}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      EXPECT_EQ(PlacementLines(batch, yaml), sequential)
          << "batch " << batch << " repeat " << repeat;
    }
  }
}

}  // namespace
}  // namespace dralloc::controlplane
