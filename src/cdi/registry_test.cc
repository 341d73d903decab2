#include "cdi/registry.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cdi/edits_merge.h"
#include "cdi/spec_parser.h"
#include "cdi/temp_dir_test_util.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

// A spec of kind `kind` whose devices each set env "DEV_<name>=<tag>", with
// `spec_env` as its spec-level env.
Spec EnvSpec(std::string kind, std::vector<std::string> devices,
             std::string tag, std::vector<std::string> spec_env = {}) {
  Spec spec;
  spec.kind = std::move(kind);
  for (const std::string& name : devices) {
    Device device;
    device.name = name;
    device.container_edits.env = {"DEV_" + name + "=" + tag};
    spec.devices.push_back(std::move(device));
  }
  spec.container_edits.env = std::move(spec_env);
  return spec;
}

void Write(const Spec& spec, const fs::path& file) {
  Status status = WriteSpecFile(spec, file);
  ASSERT_TRUE(status.ok()) << status;
}

void WriteText(const fs::path& file, std::string_view text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::vector<std::string> Names(const Registry& registry) {
  std::vector<std::string> names;
  for (const RegisteredDevice& d : registry.Devices()) {
    names.push_back(d.qualified_name);
  }
  return names;
}

std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

StatusOr<ContainerEdits> Resolve(const Registry& registry,
                                 std::vector<std::string> names) {
  return registry.Resolve(names);
}

TEST(RegistryTest, MissingDirectoriesAreEmpty) {
  TempDir dir;
  Registry registry = Registry::Load({dir.path() / "nope", dir.path() / "x"});
  EXPECT_TRUE(registry.Devices().empty());
  EXPECT_TRUE(registry.errors().empty());
}

TEST(RegistryTest, LaterDirectoryWins) {
  TempDir dir;
  fs::path etc = dir.path() / "etc", run = dir.path() / "run";
  Write(EnvSpec("vendor.com/gpu", {"gpu0", "gpu1"}, "etc"), etc / "a.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "run"), run / "b.json");
  Registry registry = Registry::Load({etc, run});
  EXPECT_TRUE(registry.errors().empty());
  std::vector<RegisteredDevice> devices = registry.Devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0],
            (RegisteredDevice{"vendor.com/gpu=gpu0", run / "b.json", 1}));
  EXPECT_EQ(devices[1],
            (RegisteredDevice{"vendor.com/gpu=gpu1", etc / "a.json", 0}));
  StatusOr<ContainerEdits> edits =
      Resolve(registry, {"vendor.com/gpu=gpu0", "vendor.com/gpu=gpu1"});
  ASSERT_TRUE(edits.ok()) << edits.status();
  EXPECT_EQ(edits->env,
            (std::vector<std::string>{"DEV_gpu0=run", "DEV_gpu1=etc"}));
}

TEST(RegistryTest, ConflictInOneDirectoryDropsTheDevice) {
  TempDir dir;
  fs::path etc = dir.path() / "etc";
  Write(EnvSpec("vendor.com/gpu", {"gpu0", "gpu1"}, "a"), etc / "a.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "b"), etc / "b.yaml");
  Registry registry = Registry::Load({etc});
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"vendor.com/gpu=gpu1"}));
  ASSERT_EQ(registry.errors().size(), 2u);
  EXPECT_EQ(registry.errors()[0].file, etc / "a.json");
  EXPECT_EQ(registry.errors()[1].file, etc / "b.yaml");
  EXPECT_EQ(registry.errors()[0].message,
            "cdi spec " + (etc / "a.json").string() +
                ": device \"vendor.com/gpu=gpu0\" is also defined in " +
                (etc / "b.yaml").string() +
                " in the same directory; all its definitions there are "
                "ignored");
  StatusOr<ContainerEdits> edits = Resolve(registry, {"vendor.com/gpu=gpu0"});
  EXPECT_EQ(edits.status().code(), StatusCode::kNotFound);
}

TEST(RegistryTest, LaterDirectoryOverridesAnEarlierConflict) {
  TempDir dir;
  fs::path etc = dir.path() / "etc", run = dir.path() / "run";
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "a"), etc / "a.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "b"), etc / "b.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "run"), run / "c.json");
  Registry registry = Registry::Load({etc, run});
  EXPECT_EQ(registry.errors().size(), 2u);
  StatusOr<ContainerEdits> edits = Resolve(registry, {"vendor.com/gpu=gpu0"});
  ASSERT_TRUE(edits.ok()) << edits.status();
  EXPECT_EQ(edits->env, (std::vector<std::string>{"DEV_gpu0=run"}));
}

TEST(RegistryTest, ConflictInLaterDirectoryDoesNotRestoreEarlier) {
  TempDir dir;
  fs::path etc = dir.path() / "etc", run = dir.path() / "run";
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "etc"), etc / "a.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "b"), run / "b.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "c"), run / "c.json");
  Registry registry = Registry::Load({etc, run});
  EXPECT_TRUE(registry.Devices().empty());
  EXPECT_EQ(registry.errors().size(), 2u);
}

TEST(RegistryTest, BadFilesAreRecordedAndSkipped) {
  TempDir dir;
  fs::path etc = dir.path() / "etc";
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "good"), etc / "good.json");
  WriteText(etc / "bad.json",
            R"({"cdiVersion":"0.3.0","kind":"vendor.com/gpu","bogus":1,)"
            R"("devices":[{"name":"gpu9","containerEdits":{"env":["A=1"]}}]})");
  WriteText(etc / "broken.yaml", "cdiVersion: [\n");
  WriteText(etc / "notes.txt", "not a spec");
  WriteText(etc / "other.yml", "not read: .yml is not a spec extension");
  fs::create_directories(etc / "sub.json");
  WriteText(etc / "sub.json" / "inner.json", "{}");
  WriteText(etc / "huge.json", std::string(kMaxSpecFileBytes + 1, ' '));
  Registry registry = Registry::Load({etc});
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"vendor.com/gpu=gpu0"}));
  ASSERT_EQ(registry.errors().size(), 3u);
  EXPECT_EQ(registry.errors()[0].file, etc / "bad.json");
  EXPECT_EQ(
      registry.errors()[0].message,
      "cdi spec " + (etc / "bad.json").string() + ": bogus: Unknown field");
  EXPECT_EQ(registry.errors()[1].file, etc / "broken.yaml");
  EXPECT_TRUE(registry.errors()[1].message.starts_with(
      "cdi spec " + (etc / "broken.yaml").string() + ": line "))
      << registry.errors()[1].message;
  EXPECT_EQ(registry.errors()[2].file, etc / "huge.json");
  EXPECT_NE(registry.errors()[2].message.find("larger than the limit"),
            std::string::npos);
}

TEST(RegistryTest, ResolveOrderSpecEditsOnceThenDevices) {
  TempDir dir;
  Spec a = EnvSpec("vendor.com/gpu", {"a0", "a1"}, "x", {"SPEC_A=1"});
  // Both devices of `a` set X: the later request wins, in place.
  a.devices[0].container_edits.env.push_back("X=a0");
  a.devices[1].container_edits.env.push_back("X=a1");
  a.devices[1].container_edits.device_nodes.push_back({.path = "/dev/a1"});
  Spec b = EnvSpec("other.io/nic", {"b0"}, "y", {"SPEC_B=1"});
  Write(a, dir.path() / "a.json");
  Write(b, dir.path() / "b.yaml");
  Registry registry = Registry::Load({dir.path()});
  StatusOr<ContainerEdits> edits =
      Resolve(registry, {"vendor.com/gpu=a1", "other.io/nic=b0",
                         "vendor.com/gpu=a0", "vendor.com/gpu=a1"});
  ASSERT_TRUE(edits.ok()) << edits.status();
  EXPECT_EQ(edits->env,
            (std::vector<std::string>{"SPEC_A=1", "DEV_a1=x", "X=a0",
                                      "SPEC_B=1", "DEV_b0=y", "DEV_a0=x"}));
  ASSERT_EQ(edits->device_nodes.size(), 1u);
  EXPECT_EQ(edits->device_nodes[0].path, "/dev/a1");
}

TEST(RegistryTest, UnknownAndMalformedNamesAreNotFound) {
  TempDir dir;
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "x"), dir.path() / "a.json");
  Registry registry = Registry::Load({dir.path()});
  StatusOr<ContainerEdits> edits =
      Resolve(registry, {"vendor.com/gpu=gpu0", "vendor.com/gpu=gpu7",
                         "not-a-name", "vendor.com/tpu=gpu0"});
  ASSERT_FALSE(edits.ok());
  EXPECT_EQ(edits.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(edits.status().message(),
            "unresolvable CDI devices: vendor.com/gpu=gpu7, not-a-name, "
            "vendor.com/tpu=gpu0");
}

TEST(RegistryTest, EmptyRequestGivesNoEdits) {
  Registry registry;
  StatusOr<ContainerEdits> edits = Resolve(registry, {});
  ASSERT_TRUE(edits.ok());
  EXPECT_EQ(*edits, ContainerEdits{});
}

TEST(RegistryTest, ReloadSeesAddedRemovedAndFixedFiles) {
  TempDir dir;
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "x"), dir.path() / "a.json");
  WriteText(dir.path() / "bad.json", "{");
  Registry first = Registry::Load({dir.path()});
  EXPECT_EQ(first.errors().size(), 1u);
  Write(EnvSpec("vendor.com/gpu", {"gpu1"}, "x"), dir.path() / "b.json");
  fs::remove(dir.path() / "a.json");
  Write(EnvSpec("vendor.com/gpu", {"gpu2"}, "x"), dir.path() / "bad.json");
  Registry second = first.Reload();
  EXPECT_TRUE(second.errors().empty());
  EXPECT_EQ(Names(second), (std::vector<std::string>{"vendor.com/gpu=gpu1",
                                                     "vendor.com/gpu=gpu2"}));
  // The first registry is unchanged.
  EXPECT_EQ(Names(first), (std::vector<std::string>{"vendor.com/gpu=gpu0"}));
}

TEST(RegistryTest, ReloadRereadsOnlyChangedFiles) {
  TempDir dir;
  fs::path file = dir.path() / "a.json";
  Write(EnvSpec("vendor.com/gpu", {"gpu0"}, "aaa"), file);
  Registry first = Registry::Load({dir.path()});
  fs::file_time_type written = fs::last_write_time(file);
  // Same inode, size and modification time: Reload keeps the parsed spec.
  std::string text = ReadText(file);
  std::string changed = text;
  changed.replace(changed.find("aaa"), 3, "bbb");
  std::ofstream(file, std::ios::binary | std::ios::in | std::ios::out)
      << changed;
  fs::last_write_time(file, written);
  Registry second = first.Reload();
  EXPECT_EQ(Resolve(second, {"vendor.com/gpu=gpu0"})->env,
            (std::vector<std::string>{"DEV_gpu0=aaa"}));
  // A new modification time makes it read the file again.
  fs::last_write_time(file, written + std::chrono::seconds(1));
  Registry third = second.Reload();
  EXPECT_EQ(Resolve(third, {"vendor.com/gpu=gpu0"})->env,
            (std::vector<std::string>{"DEV_gpu0=bbb"}));
}

TEST(MergeEditsTest, LaterWinsByKey) {
  ContainerEdits into;
  into.env = {"A=1", "B=2"};
  into.device_nodes = {{.path = "/dev/x", .permissions = "r"},
                       {.path = "/dev/y"}};
  into.mounts = {{"/h1", "/c", "", {}}, {"/h2", "/d", "", {}}};
  into.net_devices = {{"eth1", "n1"}};
  into.additional_gids = {5};
  into.hooks = {{"poststop", "/bin/a", {}, {}, {}}};
  ContainerEdits from;
  from.env = {"B=3", "C=4", "A=5"};
  from.device_nodes = {{.path = "/dev/x", .permissions = "rw"}};
  from.mounts = {{"/h3", "/c", "", {}}};
  from.net_devices = {{"eth1", "n2"}, {"eth2", "n3"}};
  from.additional_gids = {0, 5, 6};
  from.hooks = {{"poststop", "/bin/b", {}, {}, {}}};
  from.intel_rdt = IntelRdt{.clos_id = "c"};
  MergeEdits(into, from);
  EXPECT_EQ(into.env, (std::vector<std::string>{"A=5", "B=3", "C=4"}));
  ASSERT_EQ(into.device_nodes.size(), 2u);
  EXPECT_EQ(into.device_nodes[0].path, "/dev/y");
  EXPECT_EQ(into.device_nodes[1].permissions, "rw");
  ASSERT_EQ(into.mounts.size(), 2u);
  EXPECT_EQ(into.mounts[0].host_path, "/h2");
  EXPECT_EQ(into.mounts[1].host_path, "/h3");
  EXPECT_EQ(into.net_devices,
            (std::vector<NetDevice>{{"eth1", "n2"}, {"eth2", "n3"}}));
  EXPECT_EQ(into.additional_gids, (std::vector<uint32_t>{5, 6}));
  EXPECT_EQ(into.hooks.size(), 2u);
  EXPECT_EQ(into.intel_rdt->clos_id, "c");
}

}  // namespace
}  // namespace dralloc::cdi
