// The example driver's own time per prepare + unprepare of one claim
// (bench/node/README.md, section 3).
//
// The driver (exampledriver::ExampleDriver) runs in-process against an
// in-memory API (client::MemoryApiClient: the claim GET costs a map lookup)
// with its CDI and state directories under a fresh temp dir in $TMPDIR
// (default /tmp, i.e. the disk: its fdatasync latency is part of the
// figure; TMPDIR=/dev/shm shows the time without it).
//
//   BM_DriverDirect/prepared:N/sync:S/threads:T: ExampleDriver::PrepareClaims
//     + UnprepareClaims called directly, with N other claims prepared, T
//     callers at once (each on its own claims), S = 1: --state-sync always
//     (fdatasync before answering, group committed), 0: never.
//   BM_DriverGrpc/prepared:N/threads:T: the same (sync always) through
//     PluginServer (serialize_calls = false, as `dralloc driver example`)
//     and DRA v1 over its unix socket, as the kubelet calls it.
//
// Counters: prepare_p50_us / unprepare_p50_us = the median time of one call
// (averaged over the callers' own medians); items_per_second = prepare +
// unprepare pairs per second over all callers.
//
// Run: dralloc_driver_bench --benchmark_min_time=3
//
// Results, 2026-11-28 02:37-02:41 UTC, 2 vCPUs shared with other builds
// (load 3.7-4.2), ext4 /tmp without a journal on a virtio disk whose
// flushes are rate-limited (fdatasync: 0.2 ms when idle, 4.0 ms back to
// back). Per-call medians in microseconds, prepare / unprepare;
// "before" = the driver at commit 7418a33 (whole-checkpoint rewrite per
// change, CDI spec fsynced, calls serialized by PluginServer).
//
//   /tmp (disk)                     before             after (sync always)
//   direct, 0 prepared, 1 caller    1047 / 653         3994 / 3992 (*)
//   direct, 1000 prepared, 1        13020 / 12089      1911 / 1330 (*)
//   direct, 1000 prepared, 8        (not thread-safe)  1560 / 1341,
//                                                      1963 pairs/s
//   gRPC, 1000 prepared, 1 caller   28983 / 22339      499 / 417
//   gRPC, 1000 prepared, 8 callers  230318 / 210714,   1816 / 1652,
//                                   17.5 pairs/s       1812 pairs/s
//   (*) one fdatasync per call: 4.0 ms when the disk throttles, else less.
//   With --state-sync never (no fdatasync): direct 1 caller 42 / 13 at 0
//   and 72 / 15 at 1000 prepared; 8 callers 53 / 14 and 92 / 16.
//
//   /dev/shm (CPU only)             before             after (sync always)
//   direct, 0 prepared, 1 caller    49 / 25            27 / 9
//   direct, 1000 prepared, 1        8535 / 8682        27 / 9
//   direct, 1000 prepared, 8        -                  29 / 10
//   gRPC, 1000 prepared, 8 callers  98057 / 99555,     984 / 907,
//                                   40 pairs/s         3406 pairs/s
//
// A short run (--benchmark_min_time < 1) right after another run can show
// 0.5 ms more per prepare on this ext4: without a journal it skips inodes
// freed in the last 30 s when it creates a file (recently_deleted), and the
// previous run has just deleted thousands.
// The project's headers come first: common/thread_annotations.h defines
// GUARDED_BY etc. unconditionally, gRPC's headers only when undefined.
#include "client/memory_api_client.h"
#include "common/log.h"
#include "exampledriver/example_driver.h"
#include "kubeletplugin/plugin_server.h"

// Then the libraries.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;
namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
using Clock = std::chrono::steady_clock;
using kubeletplugin::ClaimRef;

constexpr char kDriver[] = "gpu.example.com";
// Claims each caller cycles through (prepare, unprepare, next one).
constexpr int kClaimsPerCaller = 64;
constexpr int kMaxCallers = 8;

// A driver with `prepared` claims prepared and kClaimsPerCaller unprepared
// claims per caller, optionally behind a PluginServer; everything under a
// temp dir removed on destruction.
class BenchDriver {
 public:
  BenchDriver(int prepared, bool grpc, SyncMode sync) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
        "/drdb-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return;
    dir_ = pattern;
    ExampleDriverOptions options;
    options.driver_name = kDriver;
    options.node_name = "node-0";
    options.cdi_dir = dir_ / "cdi";
    options.state_dir = dir_ / "state";
    options.state_sync = sync;
    auto driver = ExampleDriver::Create(options, &api_);
    if (!driver.ok()) return;
    driver_ = std::move(driver).value();
    if (!PrepareHeld(prepared)) return;
    for (int caller = 0; caller < kMaxCallers; ++caller) {
      for (int i = 0; i < kClaimsPerCaller; ++i) {
        work_[caller].push_back(AddClaim(
            "work-" + std::to_string(caller) + "-" + std::to_string(i), i % 8));
      }
    }
    if (grpc && !StartServer()) return;
    ok_ = true;
  }
  ~BenchDriver() {
    if (server_) server_->Stop();
    server_.reset();
    driver_.reset();
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  bool ok() const { return ok_; }
  ExampleDriver& driver() { return *driver_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const ClaimRef& WorkClaim(int caller, int64_t n) const {
    return work_[caller][static_cast<size_t>(n % kClaimsPerCaller)];
  }

 private:
  ClaimRef AddClaim(const std::string& name, int gpu) {
    api::ResourceClaim claim;
    claim.metadata.namespace_ = "bench";
    claim.metadata.name = name;
    claim = std::get<api::ResourceClaim>(**api_.Create(claim));
    api::AllocationResult allocation;
    allocation.devices.results.push_back(
        {"gpu", kDriver, "node-0", "gpu-" + std::to_string(gpu)});
    claim.status.allocation = allocation;
    (void)api_.UpdateStatus(claim);
    return {"bench", claim.metadata.uid, name};
  }

  // Prepares `count` claims in batches of 100 (the set-up, untimed).
  bool PrepareHeld(int count) {
    std::vector<ClaimRef> batch;
    for (int i = 0; i < count; ++i) {
      batch.push_back(AddClaim("held-" + std::to_string(i), i % 8));
      if (batch.size() == 100 || i + 1 == count) {
        for (const auto& [uid, result] : driver_->PrepareClaims(batch)) {
          if (!result.error.ok()) return false;
        }
        batch.clear();
      }
    }
    return true;
  }

  bool StartServer() {
    kubeletplugin::PluginServerOptions options;
    options.driver_name = kDriver;
    options.plugins_dir = dir_ / "plugins";
    options.registry_dir = dir_ / "registry";
    options.serialize_calls = false;
    auto server = kubeletplugin::PluginServer::Start(options, driver_.get());
    if (!server.ok()) return false;
    server_ = std::move(server).value();
    channel_ =
        grpc::CreateChannel("unix://" + server_->dra_socket_path().string(),
                            grpc::InsecureChannelCredentials());
    return true;
  }

  fs::path dir_;
  client::MemoryApiClient api_;
  std::unique_ptr<ExampleDriver> driver_;
  std::unique_ptr<kubeletplugin::PluginServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::vector<ClaimRef> work_[kMaxCallers];
  bool ok_ = false;
};

// One driver per (prepared, grpc, sync), made by the first caller before
// the timed loop (Google Benchmark starts the callers' loops together) and
// kept for the process: set-up with 1,000 prepared claims takes a while.
BenchDriver& SharedDriver(int prepared, bool grpc, SyncMode sync) {
  static std::map<std::tuple<int, bool, SyncMode>, std::unique_ptr<BenchDriver>>
      drivers;
  auto& driver = drivers[{prepared, grpc, sync}];
  if (driver == nullptr) {
    driver = std::make_unique<BenchDriver>(prepared, grpc, sync);
  }
  return *driver;
}

double MedianMicros(std::vector<Clock::duration>& samples) {
  if (samples.empty()) return 0;
  auto middle = samples.begin() + static_cast<ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), middle, samples.end());
  return std::chrono::duration<double, std::micro>(*middle).count();
}

// Runs the timed loop: per iteration one prepare and one unprepare of the
// caller's next claim through `prepare` / `unprepare` (each returns false
// on failure), and reports the medians.
template <typename Prepare, typename Unprepare>
void RunLoop(benchmark::State& state, BenchDriver& bench, Prepare prepare,
             Unprepare unprepare) {
  const int caller = state.thread_index();
  std::vector<Clock::duration> prepares, unprepares;
  int64_t n = 0;
  for (auto _ : state) {
    const ClaimRef& claim = bench.WorkClaim(caller, n++);
    const auto start = Clock::now();
    const bool prepared = prepare(claim);
    const auto middle = Clock::now();
    const bool unprepared = unprepare(claim);
    prepares.push_back(middle - start);
    unprepares.push_back(Clock::now() - middle);
    if (!prepared || !unprepared) {
      state.SkipWithError("prepare or unprepare failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["prepare_p50_us"] = benchmark::Counter(
      MedianMicros(prepares), benchmark::Counter::kAvgThreads);
  state.counters["unprepare_p50_us"] = benchmark::Counter(
      MedianMicros(unprepares), benchmark::Counter::kAvgThreads);
}

void BM_DriverDirect(benchmark::State& state) {
  BenchDriver& bench =
      SharedDriver(static_cast<int>(state.range(0)), false,
                   state.range(1) != 0 ? SyncMode::kAlways : SyncMode::kNever);
  if (!bench.ok()) {
    state.SkipWithError("set-up failed");
    return;
  }
  ExampleDriver& driver = bench.driver();
  RunLoop(
      state, bench,
      [&](const ClaimRef& claim) {
        return driver.PrepareClaims(std::span(&claim, 1))
            .at(claim.uid)
            .error.ok();
      },
      [&](const ClaimRef& claim) {
        return driver.UnprepareClaims(std::span(&claim, 1)).at(claim.uid).ok();
      });
}

template <typename Request>
void AddClaimTo(Request& request, const ClaimRef& claim) {
  auto* out = request.add_claims();
  out->set_namespace_(claim.namespace_);
  out->set_uid(claim.uid);
  out->set_name(claim.name);
}

void BM_DriverGrpc(benchmark::State& state) {
  BenchDriver& bench =
      SharedDriver(static_cast<int>(state.range(0)), true, SyncMode::kAlways);
  if (!bench.ok()) {
    state.SkipWithError("set-up failed");
    return;
  }
  auto stub = drav1::DRAPlugin::NewStub(bench.channel());
  auto deadline = [] {
    return std::chrono::system_clock::now() + std::chrono::seconds(30);
  };
  RunLoop(
      state, bench,
      [&](const ClaimRef& claim) {
        drav1::NodePrepareResourcesRequest request;
        AddClaimTo(request, claim);
        drav1::NodePrepareResourcesResponse response;
        grpc::ClientContext context;
        context.set_deadline(deadline());
        return stub->NodePrepareResources(&context, request, &response).ok() &&
               response.claims().at(claim.uid).error().empty();
      },
      [&](const ClaimRef& claim) {
        drav1::NodeUnprepareResourcesRequest request;
        AddClaimTo(request, claim);
        drav1::NodeUnprepareResourcesResponse response;
        grpc::ClientContext context;
        context.set_deadline(deadline());
        return stub->NodeUnprepareResources(&context, request, &response)
                   .ok() &&
               response.claims().at(claim.uid).error().empty();
      });
}

BENCHMARK(BM_DriverDirect)
    ->ArgNames({"prepared", "sync"})
    ->ArgsProduct({{0, 1000}, {1, 0}})
    ->Threads(1)
    ->Threads(kMaxCallers)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DriverGrpc)
    ->ArgName("prepared")
    ->Arg(0)
    ->Arg(1000)
    ->Threads(1)
    ->Threads(kMaxCallers)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dralloc::exampledriver

int main(int argc, char** argv) {
  // One info line per prepare would be part of the figures.
  dralloc::log::SetLevel(dralloc::log::Level::kWarn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
