// SpecIndex: file-by-file updates (the full-scan equivalence is checked by
// the WatchedRegistry cases in tests/cdi/refresh/).
#include "cdi/spec_index.h"

#include <gtest/gtest.h>

#include <memory>

namespace dralloc::cdi {
namespace {

SpecFilePtr File(int priority, std::string path,
                 std::vector<std::string> devices) {
  auto file = std::make_shared<LoadedSpecFile>();
  file->file = std::move(path);
  file->priority = priority;
  Spec spec;
  spec.kind = "vendor.com/gpu";
  for (std::string& name : devices) {
    Device device;
    device.name = name;
    device.container_edits.env = {"D=" + name + "@" + file->file.string()};
    spec.devices.push_back(std::move(device));
  }
  file->spec = std::move(spec);
  return file;
}

SpecFilePtr BadFile(int priority, std::string path) {
  auto file = std::make_shared<LoadedSpecFile>();
  file->file = path;
  file->priority = priority;
  file->error = "cdi spec " + path + ": broken";
  return file;
}

std::vector<std::string> Names(const SpecIndex& index) {
  std::vector<std::string> names;
  for (const RegisteredDevice& device : index.Devices()) {
    names.push_back(device.qualified_name + "@" + device.spec_file.string());
  }
  return names;
}

TEST(SpecIndexTest, ReplacingAFileDropsItsOldDevices) {
  SpecIndex index;
  index.Put(File(0, "/etc/a.json", {"a", "b"}));
  index.Put(File(0, "/etc/a.json", {"c"}));
  EXPECT_EQ(Names(index),
            (std::vector<std::string>{"vendor.com/gpu=c@/etc/a.json"}));
  EXPECT_EQ(index.file_count(), 1u);
  index.Remove(0, "/etc/a.json");
  EXPECT_TRUE(Names(index).empty());
  index.Remove(0, "/etc/a.json");  // absent: nothing happens
  EXPECT_EQ(index.file_count(), 0u);
}

TEST(SpecIndexTest, HighestDirectoryWinsAndEarlierComesBack) {
  SpecIndex index;
  index.Put(File(0, "/etc/a.json", {"x"}));
  index.Put(File(2, "/run/b.json", {"x"}));
  index.Put(File(1, "/var/c.json", {"x"}));
  EXPECT_EQ(Names(index),
            (std::vector<std::string>{"vendor.com/gpu=x@/run/b.json"}));
  index.Remove(2, "/run/b.json");
  EXPECT_EQ(Names(index),
            (std::vector<std::string>{"vendor.com/gpu=x@/var/c.json"}));
}

TEST(SpecIndexTest, ConflictsAndBadFilesAreReportedOnceInLoadOrder) {
  SpecIndex index;
  index.Put(File(1, "/run/b.json", {"x"}));
  index.Put(BadFile(1, "/run/a.json"));
  index.Put(File(0, "/etc/z.json", {"y"}));
  index.Put(File(0, "/etc/y.json", {"y"}));
  std::vector<SpecFileError> fresh = index.TakeNewErrors();
  ASSERT_EQ(fresh.size(), 3u);  // the bad file, then the conflict's two
  EXPECT_EQ(fresh[0].file, "/run/a.json");
  EXPECT_TRUE(index.TakeNewErrors().empty());
  std::vector<SpecFileError> all = index.Errors();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].file, "/etc/y.json");
  EXPECT_EQ(all[0].message,
            "cdi spec /etc/y.json: device \"vendor.com/gpu=y\" is also "
            "defined in /etc/z.json in the same directory; all its "
            "definitions there are ignored");
  EXPECT_EQ(all[1].file, "/etc/z.json");
  EXPECT_EQ(all[2].file, "/run/a.json");
  std::vector<std::string> ids = {"vendor.com/gpu=y"};
  EXPECT_EQ(index.Resolve(ids).status().code(), StatusCode::kNotFound);
  index.Put(File(0, "/etc/z.json", {"w"}));
  EXPECT_TRUE(index.Resolve(ids).ok());
  EXPECT_EQ(index.Errors().size(), 1u);
}

TEST(SpecIndexTest, ApplyRemovesPutsAndSetsDirectoryErrors) {
  SpecIndex index;
  index.Put(File(0, "/etc/a.json", {"a"}));
  SpecIndexUpdate update;
  update.removed.emplace_back(0, "/etc/a.json");
  update.put.push_back(File(0, "/etc/b.json", {"b"}));
  update.directory_errors.emplace_back(
      1, SpecFileError{"/run", "cdi spec dir /run: Permission denied"});
  index.Apply(update);
  EXPECT_EQ(Names(index),
            (std::vector<std::string>{"vendor.com/gpu=b@/etc/b.json"}));
  ASSERT_EQ(index.Errors().size(), 1u);
  EXPECT_EQ(index.Errors()[0].file, "/run");
  index.SetDirectoryError(1, std::nullopt);
  EXPECT_TRUE(index.Errors().empty());
}

}  // namespace
}  // namespace dralloc::cdi
