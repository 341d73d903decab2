// The node agent's added latency per prepare (bench/node/README.md).
//
// A timed DRA driver (v1 DRAPlugin) serves on a real unix socket under a
// fresh temp dir and adds up the time spent inside its own handlers. Each
// iteration prepares and then unprepares one new claim of one device, so
// per iteration: real_time = the whole round trip seen by the caller,
// driver_us = the driver's handler time, added_us = the difference (gRPC
// client and server, the node agent's bookkeeping and its checkpoint).
//
//   BM_DraManagerPrepareUnprepare/N: node::DraManager with a
//     ClaimInfoCache whose checkpoint is in the temp dir (journaled,
//     fdatasynced before a prepare returns), as `dralloc node` runs it,
//     with N claims of other pods held; also the median and p99 of each
//     prepare's own added time (prepare_added_p50_us: the goal).
//   BM_PluginClientPrepareUnprepare: node::DraPluginClient alone (no
//     checkpoint): the share of gRPC in the added time.
//   BM_CheckpointMutate/N: one ClaimInfoCache change (a journal record
//     appended and fdatasynced) on its own, with N other claims held.
//
// Run: dralloc_node_bench --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
// (TMPDIR=/dev/shm: the same without the disk's fsync latency.)
// The project's headers come first: common/thread_annotations.h defines
// GUARDED_BY etc. unconditionally, gRPC's headers only when undefined.
#include "api/types/resource_claim.h"
#include "node/claim_info_cache.h"
#include "node/dra_manager.h"
#include "node/dra_plugin_client.h"

// Then the libraries.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"

namespace dralloc::node {
namespace {

namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
using Clock = std::chrono::steady_clock;
constexpr char kDriver[] = "gpu.example.com";

// A v1 DRA driver that prepares every claim as one device and counts the
// nanoseconds spent inside its handlers.
class TimedDraService final : public drav1::DRAPlugin::Service {
 public:
  grpc::Status NodePrepareResources(
      grpc::ServerContext*, const drav1::NodePrepareResourcesRequest* request,
      drav1::NodePrepareResourcesResponse* response) override {
    const auto start = Clock::now();
    for (const auto& claim : request->claims()) {
      drav1::Device* device =
          (*response->mutable_claims())[claim.uid()].add_devices();
      device->set_pool_name("node-0");
      device->set_device_name("gpu-0");
      device->add_request_names("gpu");
      device->add_cdi_device_ids(std::string("k8s.") + kDriver +
                                 "/gpu=" + claim.uid() + "-gpu-0");
    }
    Charge(start);
    return grpc::Status::OK;
  }
  grpc::Status NodeUnprepareResources(
      grpc::ServerContext*, const drav1::NodeUnprepareResourcesRequest* request,
      drav1::NodeUnprepareResourcesResponse* response) override {
    const auto start = Clock::now();
    for (const auto& claim : request->claims()) {
      (*response->mutable_claims())[claim.uid()];
    }
    Charge(start);
    return grpc::Status::OK;
  }
  // Handler nanoseconds since the last call.
  int64_t TakeHandlerNanos() { return handler_ns_.exchange(0); }

 private:
  void Charge(Clock::time_point start) {
    handler_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                       Clock::now() - start)
                       .count();
  }
  std::atomic<int64_t> handler_ns_{0};
};

// The timed driver on $TMPDIR/drnb-*/dra.sock (default /tmp) and a state
// dir beside it; all removed on destruction.
class BenchNode {
 public:
  BenchNode() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
        "/drnb-XXXXXX";
    dir_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
    socket_ = dir_ + "/dra.sock";
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix://" + socket_,
                             grpc::InsecureServerCredentials());
    builder.RegisterService(&driver_);
    server_ = builder.BuildAndStart();
  }
  ~BenchNode() {
    if (server_)
      server_->Shutdown(std::chrono::system_clock::now() +
                        std::chrono::seconds(1));
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  bool ok() const { return !dir_.empty() && server_ != nullptr; }
  std::shared_ptr<const DraPluginClient> NewClient() const {
    return std::make_shared<const DraPluginClient>(
        kDriver, socket_, DraApiVersion::kV1, std::chrono::seconds(10));
  }
  std::string state_dir() const { return dir_ + "/state"; }
  TimedDraService& driver() { return driver_; }

 private:
  std::string dir_;
  std::string socket_;
  TimedDraService driver_;
  std::unique_ptr<grpc::Server> server_;
};

// A claim allocated one device of the bench driver.
api::ResourceClaim MakeClaim(int64_t n) {
  api::ResourceClaim claim;
  claim.metadata.namespace_ = "bench";
  claim.metadata.name = "claim-" + std::to_string(n);
  claim.metadata.uid = "uid-" + std::to_string(n);
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = kDriver;
  result.pool = "node-0";
  result.device = "gpu-0";
  api::AllocationResult allocation;
  allocation.devices.results.push_back(result);
  claim.status.allocation = allocation;
  return claim;
}

// Sets driver_us and added_us per iteration from the loop's wall time.
void ReportAddedLatency(benchmark::State& state, Clock::duration wall,
                        int64_t driver_ns) {
  const double wall_us =
      std::chrono::duration<double, std::micro>(wall).count();
  const double driver_us = static_cast<double>(driver_ns) / 1e3;
  state.counters["driver_us"] =
      benchmark::Counter(driver_us, benchmark::Counter::kAvgIterations);
  state.counters["added_us"] = benchmark::Counter(
      wall_us - driver_us, benchmark::Counter::kAvgIterations);
}

// Nearest-rank percentile of `values` (sorted in place), in microseconds.
double PercentileUs(std::vector<int64_t>& nanos, double p) {
  if (nanos.empty()) return 0;
  std::sort(nanos.begin(), nanos.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * nanos.size()));
  return static_cast<double>(nanos[std::max<size_t>(rank, 1) - 1]) / 1e3;
}

// Arg: claims held by other pods on the node (prepared before timing).
// Besides the totals, each prepare's and unprepare's own added time (its
// wall time minus the driver's time in that call) gives the median and
// p99 per operation: prepare_added_p50_us is the figure.
void BM_DraManagerPrepareUnprepare(benchmark::State& state) {
  BenchNode node;
  auto cache = ClaimInfoCache::Open(node.state_dir());
  if (!node.ok() || !cache.ok()) {
    state.SkipWithError("set-up failed (socket or state dir)");
    return;
  }
  auto client = node.NewClient();
  DraManager manager(**cache,
                     [&](std::string_view)
                         -> StatusOr<std::shared_ptr<const DraPluginClient>> {
                       return client;
                     });
  // Untimed: the held claims, and one round that connects the channel.
  for (int64_t i = 0; i < state.range(0); ++i) {
    api::ResourceClaim held = MakeClaim(-2 - i);
    if (!manager
             .PrepareResources("held-" + std::to_string(i),
                               {NodeClaim::Of(held)})
             .ok()) {
      state.SkipWithError("preparing the held claims failed");
      return;
    }
  }
  api::ResourceClaim warm = MakeClaim(-1);
  if (!manager.PrepareResources("pod-warm", {NodeClaim::Of(warm)}).ok() ||
      !manager.UnprepareResources("pod-warm").ok()) {
    state.SkipWithError("warm-up prepare failed");
    return;
  }
  node.driver().TakeHandlerNanos();
  std::vector<int64_t> prepare_added, unprepare_added;
  int64_t driver_ns = 0;
  int64_t n = 0;
  auto timed = [&](const std::function<Status()>& op,
                   std::vector<int64_t>& added) {
    const auto begin = Clock::now();
    Status status = op();
    const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             Clock::now() - begin)
                             .count();
    const int64_t in_driver = node.driver().TakeHandlerNanos();
    driver_ns += in_driver;
    added.push_back(wall - in_driver);
    return status;
  };
  const auto start = Clock::now();
  for (auto _ : state) {
    api::ResourceClaim claim = MakeClaim(n);
    const std::string pod = "pod-" + std::to_string(n++);
    Status prepared = timed(
        [&] { return manager.PrepareResources(pod, {NodeClaim::Of(claim)}); },
        prepare_added);
    Status unprepared =
        timed([&] { return manager.UnprepareResources(pod); }, unprepare_added);
    if (!prepared.ok() || !unprepared.ok()) {
      state.SkipWithError("prepare or unprepare failed");
      break;
    }
  }
  ReportAddedLatency(state, Clock::now() - start, driver_ns);
  state.counters["prepare_added_p50_us"] = PercentileUs(prepare_added, 50);
  state.counters["prepare_added_p99_us"] = PercentileUs(prepare_added, 99);
  state.counters["unprepare_added_p50_us"] = PercentileUs(unprepare_added, 50);
}
BENCHMARK(BM_DraManagerPrepareUnprepare)
    ->Arg(0)
    ->Arg(1000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_PluginClientPrepareUnprepare(benchmark::State& state) {
  BenchNode node;
  if (!node.ok()) {
    state.SkipWithError("set-up failed (socket)");
    return;
  }
  auto client = node.NewClient();
  if (!client->Prepare({{"bench", "warm", "warm"}}).at("warm").ok()) {
    state.SkipWithError("warm-up prepare failed");
    return;
  }
  node.driver().TakeHandlerNanos();
  int64_t n = 0;
  const auto start = Clock::now();
  for (auto _ : state) {
    const std::string uid = "uid-" + std::to_string(n++);
    const std::vector<DraClaimRef> claims = {{"bench", uid, "claim-" + uid}};
    PrepareResults prepared = client->Prepare(claims);
    UnprepareResults unprepared = client->Unprepare(claims);
    if (!prepared.at(uid).ok() || !unprepared.at(uid).ok()) {
      state.SkipWithError("prepare or unprepare failed");
      break;
    }
  }
  ReportAddedLatency(state, Clock::now() - start,
                     node.driver().TakeHandlerNanos());
}
BENCHMARK(BM_PluginClientPrepareUnprepare)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Arg: claims already in the checkpoint (a node with that many prepared
// claims); each iteration adds or removes one more.
void BM_CheckpointMutate(benchmark::State& state) {
  BenchNode node;
  auto cache = ClaimInfoCache::Open(node.state_dir());
  if (!node.ok() || !cache.ok()) {
    state.SkipWithError("set-up failed (state dir)");
    return;
  }
  Status filled = (*cache)->Mutate([&](ClaimInfoCache::Transaction& tx) {
    for (int64_t i = 0; i < state.range(0); ++i) {
      ClaimInfo& claim = tx.Edit("held-" + std::to_string(i));
      claim.namespace_ = "bench";
      claim.name = "claim-" + claim.uid;
      claim.pod_uids.insert("pod-" + claim.uid);
      claim.drivers[kDriver].prepared = true;
      claim.drivers[kDriver].devices.push_back(
          {{"gpu"}, "node-0", "gpu-0", {"k8s.gpu.example.com/gpu=x"}, {}});
    }
  });
  if (!filled.ok()) {
    state.SkipWithError("checkpoint write failed");
    return;
  }
  bool present = false;
  for (auto _ : state) {
    Status changed = (*cache)->Mutate([&](ClaimInfoCache::Transaction& tx) {
      if (present) {
        tx.Erase("extra");
      } else {
        tx.Edit("extra");
      }
    });
    present = !present;
    if (!changed.ok() || !(*cache)->Sync().ok()) {
      state.SkipWithError("checkpoint write failed");
      break;
    }
  }
}
BENCHMARK(BM_CheckpointMutate)
    ->Arg(0)
    ->Arg(1000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dralloc::node

BENCHMARK_MAIN();
