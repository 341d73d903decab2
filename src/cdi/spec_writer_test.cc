#include "cdi/spec_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cdi/spec_parser.h"
#include "cdi/spec_version.h"
#include "cdi/temp_dir_test_util.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Spec GpuSpec() {
  Spec spec;
  spec.kind = "k8s.gpu.example.com/gpu";
  Device device;
  device.name = "claim-gpu-0";
  device.container_edits.env = {"GPU_DEVICE_0=gpu-0"};
  spec.devices.push_back(device);
  spec.container_edits.env = {"COMMON=1"};
  return spec;
}

TEST(QualifiedNameTest, JoinsKindAndDevice) {
  EXPECT_EQ(QualifiedName("vendor.com/class", "dev0"), "vendor.com/class=dev0");
}

TEST(TransientSpecFileNameTest, VendorDashClassUnderscoreId) {
  EXPECT_EQ(TransientSpecFileName("k8s.gpu.example.com/gpu", "uid-1"),
            "k8s.gpu.example.com-gpu_uid-1.json");
  EXPECT_EQ(TransientSpecFileName("vendor.com/class", "a/b"),
            "vendor.com-class_a_b.json");
}

TEST(FormatSpecJsonTest, GoFieldOrderAndOmissions) {
  Spec spec = GpuSpec();
  spec.cdi_version = "0.3.0";
  EXPECT_EQ(FormatSpecJson(spec, -1),
            R"({"cdiVersion":"0.3.0","kind":"k8s.gpu.example.com/gpu",)"
            R"("devices":[{"name":"claim-gpu-0","containerEdits":)"
            R"({"env":["GPU_DEVICE_0=gpu-0"]}}],)"
            R"("containerEdits":{"env":["COMMON=1"]}})");
}

TEST(WriteSpecFileTest, WritesMinimumVersionAndCreatesDirectory) {
  TempDir dir;
  fs::path file = dir.path() / "run" / "cdi" / "a.json";
  Spec spec = GpuSpec();
  spec.devices[0].annotations["x"] = "y";  // needs 0.6.0
  ASSERT_TRUE(WriteSpecFile(spec, file).ok());
  std::string text = ReadFile(file);
  EXPECT_NE(text.find(R"("cdiVersion": "0.6.0")"), std::string::npos) << text;
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST(WriteSpecFileTest, RoundTripsThroughTheParser) {
  TempDir dir;
  fs::path file = dir.path() / "full.json";
  Spec spec = GpuSpec();
  Device& device = spec.devices[0];
  device.container_edits.device_nodes.push_back({.path = "/dev/gpu0",
                                                 .host_path = "/dev/nvidia0",
                                                 .type = "c",
                                                 .major = 195,
                                                 .minor = 0,
                                                 .file_mode = 0666,
                                                 .permissions = "rw",
                                                 .uid = 0,
                                                 .gid = 44});
  device.container_edits.mounts.push_back(
      {"/opt/lib", "/usr/lib/gpu", "bind", {"ro", "bind"}});
  device.container_edits.hooks.push_back(
      {"createContainer", "/usr/bin/hook", {"hook", "x"}, {"A=B"}, 5});
  device.container_edits.additional_gids = {44};
  device.container_edits.intel_rdt = IntelRdt{.clos_id = "c1"};
  spec.annotations["vendor.com/origin"] = "test";
  ASSERT_TRUE(WriteSpecFile(spec, file).ok());
  StatusOr<Spec> read = ParseSpec(ReadFile(file), file.string());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->cdi_version, "0.7.0");  // the minimum: intelRdt, gids
  spec.cdi_version = "0.7.0";
  EXPECT_EQ(*read, spec);
}

TEST(WriteSpecFileTest, RefusesInvalidSpecAndWritesNothing) {
  TempDir dir;
  fs::path file = dir.path() / "bad.json";
  Spec spec = GpuSpec();
  spec.devices[0].name = "bad/name";
  Status status = WriteSpecFile(spec, file);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(status.message().starts_with("cdi spec " + file.string() +
                                           ": devices[0].name: "))
      << status;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  spec = GpuSpec();
  spec.cdi_version = "0.3.0";  // lower than the annotations need
  spec.annotations["a"] = "b";
  EXPECT_FALSE(WriteSpecFile(spec, file).ok());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(WriteSpecFileTest, KeepsExplicitVersion) {
  TempDir dir;
  fs::path file = dir.path() / "a.json";
  Spec spec = GpuSpec();
  spec.cdi_version = "1.0.0";
  ASSERT_TRUE(WriteSpecFile(spec, file).ok());
  EXPECT_NE(ReadFile(file).find(R"("cdiVersion": "1.0.0")"), std::string::npos);
}

TEST(WriteSpecFileTest, ReplacesExistingFile) {
  TempDir dir;
  fs::path file = dir.path() / "a.json";
  ASSERT_TRUE(WriteSpecFile(GpuSpec(), file).ok());
  Spec second = GpuSpec();
  second.devices[0].name = "other";
  ASSERT_TRUE(WriteSpecFile(second, file).ok());
  EXPECT_NE(ReadFile(file).find("other"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), {}), 1);
}

TEST(WriteSpecFileTest, FailedRenameLeavesNoTempFile) {
  TempDir dir;
  // The target is a non-empty directory, so the final rename fails.
  fs::path file = dir.path() / "a.json";
  fs::create_directories(file / "occupied");
  Status status = WriteSpecFile(GpuSpec(), file);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cdi spec " + file.string()),
            std::string::npos)
      << status;
  std::vector<fs::path> entries(fs::directory_iterator(dir.path()), {});
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0], file);
}

TEST(MinimumRequiredVersionTest, EachVersionStep) {
  struct Case {
    const char* name;
    void (*edit)(Spec&);
    const char* version;
    const char* field;
  };
  const Case cases[] = {
      {"plain", [](Spec&) {}, "0.3.0", ""},
      {"mount type",
       [](Spec& s) {
         s.devices[0].container_edits.mounts.push_back({"/a", "/b", "bind"});
       },
       "0.4.0", "devices[0].containerEdits.mounts[0].type"},
      {"host path",
       [](Spec& s) {
         s.container_edits.device_nodes.push_back(
             {.path = "/dev/x", .host_path = "/dev/y"});
       },
       "0.5.0", "containerEdits.deviceNodes[0].hostPath"},
      {"digit name", [](Spec& s) { s.devices[0].name = "0gpu"; }, "0.5.0",
       "devices[0].name"},
      {"annotations", [](Spec& s) { s.annotations["a"] = "b"; }, "0.6.0",
       "annotations"},
      {"dot in class", [](Spec& s) { s.kind = "vendor.com/cl.ass"; }, "0.6.0",
       "kind"},
      {"intelRdt",
       [](Spec& s) { s.container_edits.intel_rdt = IntelRdt{.clos_id = "c"}; },
       "0.7.0", "containerEdits.intelRdt"},
      {"additional gids",
       [](Spec& s) { s.devices[0].container_edits.additional_gids = {5}; },
       "0.7.0", "devices[0].containerEdits.additionalGids"},
      {"net devices",
       [](Spec& s) {
         s.devices[0].container_edits.net_devices = {{"eth1", "net0"}};
       },
       "1.1.0", "devices[0].containerEdits.netDevices"},
      {"schemata",
       [](Spec& s) {
         s.container_edits.intel_rdt = IntelRdt{.schemata = {"L3:0=f"}};
       },
       "1.1.0", "containerEdits.intelRdt.schemata"},
      {"monitoring",
       [](Spec& s) {
         s.container_edits.intel_rdt = IntelRdt{.enable_monitoring = true};
       },
       "1.1.0", "containerEdits.intelRdt.enableMonitoring"},
  };
  for (const Case& c : cases) {
    Spec spec;
    spec.kind = "vendor.com/class";
    spec.devices.push_back({.name = "dev"});
    c.edit(spec);
    VersionRequirement required = RequiredSpecVersion(spec);
    EXPECT_EQ(required.version, c.version) << c.name;
    EXPECT_EQ(required.field, c.field) << c.name;
    EXPECT_EQ(MinimumRequiredVersion(spec), c.version) << c.name;
  }
}

TEST(SpecVersionTest, SupportedRange) {
  EXPECT_EQ(SpecVersionIndex("0.3.0"), 0);
  EXPECT_EQ(SpecVersionIndex("v1.1.0"), 7);
  EXPECT_EQ(SpecVersionIndex("0.2.0"), -1);
  EXPECT_EQ(SpecVersionIndex("1.2.0"), -1);
  EXPECT_EQ(LatestSpecVersion(), "1.1.0");
}

}  // namespace
}  // namespace dralloc::cdi
