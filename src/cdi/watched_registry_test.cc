// WatchedRegistry: the step cases of tests/cdi/refresh/ (README.md there),
// each checked against a full Registry::Load after every refresh, then
// what cases cannot say: queue overflow, the background thread, many
// threads resolving while files change.
#include "cdi/watched_registry.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "cdi/registry.h"
#include "cdi/temp_dir_test_util.h"
#include "common/mutex.h"
#include "golden_case.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;

const fs::path kCaseRoot = "tests/cdi/refresh";

std::vector<std::string> Words(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// A spec of `kind` whose devices each set env "DEV_<name>=<tag>".
Spec EnvSpec(const std::string& kind, const std::vector<std::string>& devices,
             const std::string& tag) {
  Spec spec;
  spec.kind = kind;
  for (const std::string& name : devices) {
    Device device;
    device.name = name;
    device.container_edits.env = {"DEV_" + name + "=" + tag};
    spec.devices.push_back(std::move(device));
  }
  return spec;
}

void WriteInPlace(const fs::path& file, std::string_view text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// Runs one .steps case.
class CaseRunner {
 public:
  explicit CaseRunner(fs::path root) : root_(std::move(root)) {}

  void Run(const std::string& text) {
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::string_view step = golden::Trim(line);
      if (step.empty() || step.starts_with('#')) continue;
      SCOPED_TRACE(testing::Message() << "line " << number << ": " << step);
      Step(step);
      if (testing::Test::HasFatalFailure()) return;
    }
    if (registry_) RefreshAndCompare();
  }

 private:
  fs::path Path(const std::string& relative) const { return root_ / relative; }
  std::string Relative(const fs::path& path) const {
    return path.lexically_relative(root_).string();
  }

  void Step(std::string_view step) {
    std::vector<std::string> words = Words(step);
    const std::string& op = words[0];
    std::vector<std::string> args(words.begin() + 1, words.end());
    if (op == "dirs") {
      for (const std::string& dir : args) dirs_.push_back(Path(dir));
    } else if (op == "open") {
      registry_ = std::make_unique<WatchedRegistry>(
          dirs_, WatchedRegistry::Options{.background_refresh = false});
    } else if (op == "write") {
      std::string_view rest = step.substr(step.find(args[0]) + args[0].size());
      WriteInPlace(Path(args[0]), golden::Trim(rest));
    } else if (op == "refresh") {
      RefreshAndCompare();
    } else if (op == "resolve") {
      ExpectResolve(args);
    } else if (op == "devices") {
      ExpectDevices(args);
    } else if (op == "errors") {
      ExpectErrors(args);
    } else if (op == "stats") {
      ExpectStats(args);
    } else {
      FileSystemStep(op, args);
    }
  }

  void FileSystemStep(const std::string& op,
                      const std::vector<std::string>& args) {
    std::error_code error;
    if (op == "spec") {
      Spec spec = EnvSpec(args[1], {args.begin() + 2, args.end()},
                          Path(args[0]).stem().string());
      Status status = WriteSpecFile(spec, Path(args[0]));
      ASSERT_TRUE(status.ok()) << status;
    } else if (op == "rename") {
      fs::rename(Path(args[0]), Path(args[1]), error);
    } else if (op == "remove") {
      fs::remove(Path(args[0]), error);
    } else if (op == "mkdir") {
      fs::create_directories(Path(args[0]), error);
    } else if (op == "rmtree") {
      fs::remove_all(Path(args[0]), error);
    } else if (op == "symlink") {
      fs::create_symlink(Path(args[1]), Path(args[0]), error);
    } else {
      FAIL() << "unknown step " << op;
    }
    ASSERT_FALSE(error) << error.message();
  }

  // Refreshes, then the registry must say what a full scan says.
  void RefreshAndCompare() {
    ASSERT_NE(registry_, nullptr) << "no `open` step";
    registry_->Refresh();
    Registry full = Registry::Load(dirs_);
    EXPECT_EQ(registry_->Devices(), full.Devices());
    EXPECT_EQ(registry_->errors(), full.errors());
  }

  void ExpectResolve(const std::vector<std::string>& args) {
    auto arrow = std::ranges::find(args, "=>");
    ASSERT_NE(arrow, args.end()) << "resolve needs =>";
    std::vector<std::string> ids(args.begin(), arrow);
    std::vector<std::string> expected(arrow + 1, args.end());
    StatusOr<ContainerEdits> edits = registry_->Resolve(ids);
    if (expected == std::vector<std::string>{"NotFound"}) {
      EXPECT_EQ(edits.status().code(), StatusCode::kNotFound) << edits.status();
      return;
    }
    ASSERT_TRUE(edits.ok()) << edits.status();
    EXPECT_EQ(Join(edits->env), Join(expected));
  }

  void ExpectDevices(const std::vector<std::string>& expected) {
    RefreshAndCompare();
    std::vector<std::string> actual;
    for (const RegisteredDevice& device : registry_->Devices()) {
      actual.push_back(device.qualified_name + "@" +
                       Relative(device.spec_file));
    }
    EXPECT_EQ(Join(actual), Join(expected));
  }

  void ExpectErrors(const std::vector<std::string>& expected) {
    RefreshAndCompare();
    std::vector<std::string> actual;
    for (const SpecFileError& error : registry_->errors()) {
      actual.push_back(Relative(error.file));
      EXPECT_TRUE(error.message.starts_with("cdi spec " + error.file.string()))
          << error.message;
    }
    EXPECT_EQ(Join(actual), Join(expected));
  }

  void ExpectStats(const std::vector<std::string>& expected) {
    WatchedRegistry::Stats stats = registry_->stats();
    const std::map<std::string, uint64_t> values = {
        {"files_read", stats.files_read},
        {"directory_scans", stats.directory_scans},
        {"full_rescans", stats.full_rescans},
        {"overflows", stats.overflows}};
    for (const std::string& item : expected) {
      const size_t equals = item.find('=');
      auto value = values.find(item.substr(0, equals));
      ASSERT_NE(value, values.end()) << "unknown counter in " << item;
      EXPECT_EQ(std::to_string(value->second), item.substr(equals + 1))
          << value->first;
    }
  }

  fs::path root_;
  std::vector<fs::path> dirs_;
  std::unique_ptr<WatchedRegistry> registry_;
};

class WatchedRegistryCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(WatchedRegistryCaseTest, MatchesFullScan) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  CaseRunner(dir.path()).Run(golden::ReadFile(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, WatchedRegistryCaseTest,
                         testing::ValuesIn(golden::CaseFiles(kCaseRoot,
                                                             {".steps"})),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(WatchedRegistryCasesTest, CasesArePresent) {
  EXPECT_GE(golden::CaseFiles(kCaseRoot, {".steps"}).size(), 10u);
}

// Polls `done` until it holds or 10 s pass.
template <typename Predicate>
bool WaitFor(Predicate done) {
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

size_t MaxQueuedEvents() {
  std::ifstream in("/proc/sys/fs/inotify/max_queued_events");
  size_t limit = 0;
  in >> limit;
  return limit;
}

TEST(WatchedRegistryTest, QueueOverflowFallsBackToAFullRescan) {
  const size_t limit = MaxQueuedEvents();
  if (limit == 0 || limit > 200'000) {
    GTEST_SKIP() << "max_queued_events " << limit;
  }
  TempDir dir;
  fs::path etc = dir.path() / "etc";
  ASSERT_TRUE(
      WriteSpecFile(EnvSpec("vendor.com/gpu", {"gone"}, "x"), etc / "gone.json")
          .ok());
  WatchedRegistry registry({etc}, {.background_refresh = false});
  // Opening a file for writing and closing it queues IN_CLOSE_WRITE (no
  // truncation: ext4 flushes a truncated file on close). Alternate two
  // files: the kernel merges only identical adjacent events.
  WriteInPlace(etc / "a.json", "{");
  WriteInPlace(etc / "b.json", "{");
  for (size_t i = 0; i <= limit + 10; ++i) {
    fs::path file = etc / (i % 2 == 0 ? "a.json" : "b.json");
    const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  ASSERT_TRUE(WriteSpecFile(EnvSpec("vendor.com/gpu", {"late"}, "late"),
                            etc / "late.json")
                  .ok());
  fs::remove(etc / "gone.json");
  std::vector<std::string> late = {"vendor.com/gpu=late"};
  StatusOr<ContainerEdits> edits = registry.Resolve(late);
  ASSERT_TRUE(edits.ok()) << edits.status();
  EXPECT_EQ(registry.stats().overflows, 1u);
  EXPECT_EQ(registry.stats().full_rescans, 0u);  // the overflow's own rescan
  Registry full = Registry::Load({etc});
  EXPECT_EQ(registry.Devices(), full.Devices());
  EXPECT_EQ(registry.errors(), full.errors());
  // Watching goes on after the overflow.
  ASSERT_TRUE(WriteSpecFile(EnvSpec("vendor.com/gpu", {"after"}, "after"),
                            etc / "after.json")
                  .ok());
  std::vector<std::string> after = {"vendor.com/gpu=after"};
  EXPECT_TRUE(registry.Resolve(after).ok());
  EXPECT_EQ(registry.stats().full_rescans, 0u);
}

TEST(WatchedRegistryTest, BackgroundThreadAppliesAndReportsOnce) {
  TempDir dir;
  Mutex mu;
  std::vector<SpecFileError> reported;
  WatchedRegistry::Options options;
  options.on_error = [&](const SpecFileError& error) {
    MutexLock lock(mu);
    reported.push_back(error);
  };
  fs::path etc = dir.path() / "etc";
  fs::create_directories(etc);
  WatchedRegistry registry({etc}, options);
  EXPECT_TRUE(registry.watching());
  WriteInPlace(etc / "bad.json", "{");
  ASSERT_TRUE(WaitFor([&] {
    MutexLock lock(mu);
    return !reported.empty();
  }));
  ASSERT_TRUE(
      WriteSpecFile(EnvSpec("vendor.com/gpu", {"gpu0"}, "x"), etc / "good.json")
          .ok());
  ASSERT_TRUE(WaitFor([&] { return registry.Devices().size() == 1; }));
  std::vector<std::string> ids = {"vendor.com/gpu=gpu0"};
  EXPECT_TRUE(registry.ResolveApplied(ids).ok());
  MutexLock lock(mu);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].file, etc / "bad.json");
  EXPECT_TRUE(reported[0].message.starts_with("cdi spec " +
                                              (etc / "bad.json").string()));
}

TEST(WatchedRegistryTest, UnwatchableDirectoryIsReportedAndRescanned) {
  TempDir dir;
  // A name longer than NAME_MAX can be neither watched nor listed.
  fs::path bad = dir.path() / std::string(300, 'x');
  std::vector<SpecFileError> reported;
  WatchedRegistry registry({bad}, {.background_refresh = false,
                                   .on_error = [&](const SpecFileError& e) {
                                     reported.push_back(e);
                                   }});
  EXPECT_FALSE(registry.watching());
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[0].file, bad);
  EXPECT_EQ(reported[1].file, bad);
  EXPECT_NE(reported[1].message.find("cannot watch for changes"),
            std::string::npos)
      << reported[1].message;
  std::vector<std::string> ids = {"vendor.com/gpu=x"};
  EXPECT_EQ(registry.Resolve(ids).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.stats().full_rescans, 1u);
  EXPECT_EQ(reported.size(), 2u);  // not reported again
}

// Pod workers write per-claim specs and resolve them at once, while other
// files change: every fresh ID resolves, none needs a rescan.
TEST(WatchedRegistryTest, ConcurrentResolveWhileFilesChange) {
  TempDir dir;
  fs::path etc = dir.path() / "etc", run = dir.path() / "run";
  ASSERT_TRUE(WriteSpecFile(EnvSpec("vendor.com/gpu", {"base"}, "etc"),
                            etc / "base.json")
                  .ok());
  fs::create_directories(run);
  WatchedRegistry registry({etc, run}, {});
  constexpr int kWorkers = 4, kClaims = 60;
  std::atomic<int> failures{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      for (int c = 0; c < kClaims; ++c) {
        std::string claim = "w" + std::to_string(w) + "-c" + std::to_string(c);
        fs::path file = run / ("vendor.com-gpu_" + claim + ".json");
        if (!WriteSpecFile(EnvSpec("vendor.com/gpu", {claim}, claim), file)
                 .ok()) {
          ++failures;
        }
        std::vector<std::string> ids = {"vendor.com/gpu=base",
                                        "vendor.com/gpu=" + claim};
        StatusOr<ContainerEdits> edits = registry.Resolve(ids);
        if (!edits.ok() || edits->env.size() != 2) ++failures;
        if (c % 2 == 1) fs::remove(file);
      }
    });
  }
  // Meanwhile a file flips between bad and good, and readers list devices.
  threads.emplace_back([&] {
    for (int i = 0; !stop; ++i) {
      WriteInPlace(etc / "flip.json",
                   i % 2 == 0 ? "{"
                              : R"({"cdiVersion":"0.3.0","kind":"x.io/y",)"
                                R"("devices":[{"name":"d","containerEdits":)"
                                R"({"env":["A=1"]}}]})");
      registry.Devices();
      registry.errors();
    }
  });
  for (int w = 0; w < kWorkers; ++w) threads[w].join();
  stop = true;
  threads.back().join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(registry.stats().full_rescans, 0u);
  registry.Refresh();
  Registry full = Registry::Load({etc, run});
  EXPECT_EQ(registry.Devices(), full.Devices());
  EXPECT_EQ(registry.errors(), full.errors());
  EXPECT_EQ(registry.Devices().size(),
            1u + kWorkers * kClaims / 2 + (full.errors().empty() ? 1 : 0));
}

}  // namespace
}  // namespace dralloc::cdi
