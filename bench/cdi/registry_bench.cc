// Resolving the CDI ID of a per-claim spec written just before, with N
// other spec files in the directory (one per prepared claim, as the
// example driver leaves them): what the node agent does after each
// NodePrepareResources.
//
//   BM_ResolveNewSpec_Reload/N: the old way. Resolve misses, so
//     Registry::Reload() (list the directory, stat every file, copy the
//     index into a new Registry), then Resolve.
//   BM_ResolveNewSpec_Watched/N: WatchedRegistry without its background
//     thread, so every Resolve takes the miss path: drain the inotify
//     queue, read the one new file, look up again.
//   BM_ResolveNewSpec_WatchedBackground/N: as the node agent runs it, with
//     the background thread applying events (it may have applied the new
//     file before Resolve runs, or be applying it: then Resolve waits).
//
// Only the resolve is timed; writing the spec (temp file + rename, no
// fsync) and removing it afterwards, so that N stays N, are not.
// Run: dralloc_cdi_bench --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cdi/registry.h"
#include "cdi/spec_writer.h"
#include "cdi/watched_registry.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kKind = "gpu.example.com/gpu";

// A fresh directory holding `files` per-claim specs; removed at the end.
class SpecDir {
 public:
  explicit SpecDir(int files) {
    std::string pattern =
        (fs::temp_directory_path() / "dralloc-cdi-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
    for (int i = 0; i < files; ++i) Write("old-" + std::to_string(i));
  }
  ~SpecDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

  // Writes claim `claim`'s spec as drivers do (temp file, rename).
  void Write(const std::string& claim) const {
    Spec spec;
    spec.cdi_version = "0.3.0";
    spec.kind = kKind;
    Device device;
    device.name = claim + "-gpu-0";
    device.container_edits.env = {"GPU_DEVICE_0=" + claim};
    spec.devices.push_back(std::move(device));
    fs::path temp = path_ / ("." + claim + ".tmp");
    std::ofstream(temp) << FormatSpecJson(spec, -1);
    fs::rename(temp, File(claim));
  }
  fs::path File(const std::string& claim) const {
    return path_ / TransientSpecFileName(kKind, claim);
  }
  static std::vector<std::string> Ids(const std::string& claim) {
    return {std::string(kKind) + "=" + claim + "-gpu-0"};
  }

 private:
  fs::path path_;
};

void BM_ResolveNewSpec_Reload(benchmark::State& state) {
  SpecDir dir(static_cast<int>(state.range(0)));
  Registry registry = Registry::Load({dir.path()});
  int claim_number = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string claim = "new-" + std::to_string(claim_number++);
    dir.Write(claim);
    state.ResumeTiming();
    StatusOr<ContainerEdits> edits = registry.Resolve(SpecDir::Ids(claim));
    if (!edits.ok()) {
      registry = registry.Reload();
      edits = registry.Resolve(SpecDir::Ids(claim));
    }
    if (!edits.ok()) state.SkipWithError("not resolved");
    benchmark::DoNotOptimize(edits);
    state.PauseTiming();
    fs::remove(dir.File(claim));
    state.ResumeTiming();
  }
}

// `background`: the node agent's setting (a thread applies events as they
// come, so the new file may be applied before Resolve runs).
void ResolveNewSpecWatched(benchmark::State& state, bool background) {
  SpecDir dir(static_cast<int>(state.range(0)));
  WatchedRegistry registry({dir.path()}, {.background_refresh = background});
  int claim_number = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string claim = "new-" + std::to_string(claim_number++);
    dir.Write(claim);
    state.ResumeTiming();
    StatusOr<ContainerEdits> edits = registry.Resolve(SpecDir::Ids(claim));
    if (!edits.ok()) state.SkipWithError("not resolved");
    benchmark::DoNotOptimize(edits);
    state.PauseTiming();
    fs::remove(dir.File(claim));
    state.ResumeTiming();
  }
  if (registry.stats().full_rescans != 0) state.SkipWithError("rescanned");
}

void BM_ResolveNewSpec_Watched(benchmark::State& state) {
  ResolveNewSpecWatched(state, /*background=*/false);
}

void BM_ResolveNewSpec_WatchedBackground(benchmark::State& state) {
  ResolveNewSpecWatched(state, /*background=*/true);
}

BENCHMARK(BM_ResolveNewSpec_Reload)
    ->Arg(10)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ResolveNewSpec_Watched)
    ->Arg(10)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ResolveNewSpec_WatchedBackground)
    ->Arg(10)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dralloc::cdi
