// Golden scheduling cases: tests/golden/schedule/<case>.yaml holds the
// objects, <case>.expect the outcome, one pod per line:
//   <ns>/<pod> <node> [<driver/pool/device> ...]   scheduled there (with
//                                                  exactly those devices)
//   <ns>/<pod> pending <text>                      not scheduled; the reason
//                                                  contains <text>
//   option placement=pack|spread                   scheduler option
// Lines starting with '#' are comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "allocator/offline_allocation.h"
#include "api/validation/validation.h"
#include "scheduler/what_if.h"

namespace dralloc::scheduler {
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

class WhatIfGoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(WhatIfGoldenTest, Run) {
  const fs::path dir = "tests/golden/schedule";
  const std::string name = GetParam();
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

  SchedulerOptions options;
  std::map<std::string, std::string> expected;  // pod → rest of line
  std::istringstream expect(ReadText(dir / (name + ".expect")));
  for (std::string line; std::getline(expect, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("option placement=")) {
      const std::string value = line.substr(17);
      options.placement =
          value == "pack" ? Placement::kPack : Placement::kSpread;
      continue;
    }
    const size_t space = line.find(' ');
    ASSERT_NE(space, std::string::npos) << line;
    expected[line.substr(0, space)] = line.substr(space + 1);
  }

  WhatIf what_if(options);
  ASSERT_TRUE(what_if.Load(std::move(*objects)).ok());
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

INSTANTIATE_TEST_SUITE_P(Golden, WhatIfGoldenTest, testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dralloc::scheduler
