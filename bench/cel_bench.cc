// CEL engine benchmarks: the five expressions compared side by side with
// @bufbuild/cel (scripts/bench-cel-peer.sh), plus compile time.
//
// Goals (issue #3): e1 <= 40 ns, e2 <= 200 ns per evaluation, zero heap
// allocations per evaluation for both (the allocs_per_eval counter), and
// compiling a typical selector <= 20 us.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include "cel/dra/dra_environment.h"
#include "cel/lib/semver_library.h"
#include "cel/program.h"
#include "common/quantity.h"
#include "common/semver.h"

// Counts every heap allocation of the process so that benchmarks can report
// allocations per evaluation.
namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// The replacement pair is malloc/free based by design; GCC cannot see that
// operator new and operator delete here belong together.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace dralloc::cel {
namespace {

constexpr const char* kPeerExpressions[] = {
    // e1
    R"(device.driver == "gpu.example.com")",
    // e2: three clauses incl. a quantity and a semver comparison
    R"(device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0 && device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0")))",
    // e3
    R"(device.attributes["gpu.example.com"].model == "A100" && device.attributes["gpu.example.com"].cores >= 64)",
    // e4
    R"(device.driver.startsWith("gpu") && device.driver.indexOf("example") > 0)",
    // e5
    R"([1,2,3,4,5,6,7,8,9,10].exists(x, x > 9))",
};

std::unique_ptr<DraDevice> MakeDevice() {
  auto device = std::make_unique<DraDevice>("gpu.example.com");
  device->AddAttribute("model", Value::String("A100"));
  device->AddAttribute("cores", Value::Int(108));
  device->AddAttribute("driverVersion",
                       MakeSemverValue(*SemVer::ParseStrict("1.3.0")));
  device->AddCapacity("memory", *Quantity::Parse("80Gi"));
  return device;
}

void BM_CelPeer(benchmark::State& state) {
  const char* expression = kPeerExpressions[state.range(0)];
  auto program = SelectorCache().GetOrCompile(expression);
  if (!program.ok()) {
    state.SkipWithError(program.status().message().c_str());
    return;
  }
  auto device = MakeDevice();
  Activation activation(*SelectorEnvironment());
  activation.Set(DeviceSlot(), device->AsValue());
  // Warm up, then count allocations over the timed loop.
  EvalContext warm;
  Value first = (*program)->Evaluate(activation, warm);
  if (!first.IsTrue()) {
    state.SkipWithError(("unexpected result: " + first.DebugString()).c_str());
    return;
  }
  uint64_t before = g_allocations.load(std::memory_order_relaxed);
  for (auto _ : state) {
    EvalContext ctx;
    Value result = (*program)->Evaluate(activation, ctx);
    benchmark::DoNotOptimize(result);
  }
  uint64_t allocations = g_allocations.load(std::memory_order_relaxed) - before;
  state.counters["allocs_per_eval"] = static_cast<double>(allocations) /
                                      static_cast<double>(state.iterations());
  state.SetLabel("e" + std::to_string(state.range(0) + 1));
}
BENCHMARK(BM_CelPeer)->DenseRange(0, 4)->MinWarmUpTime(0.1);

// Arguments: expression (0: e1, 1: e2), with the static cost estimate (1) as
// API validation compiles, or without (0) as the scheduler's cache does.
void BM_CelCompileSelector(benchmark::State& state) {
  auto env = SelectorEnvironment();
  CompileOptions options;
  options.estimate_cost = state.range(1) != 0;
  const char* expression = kPeerExpressions[state.range(0)];
  for (auto _ : state) {
    auto program = Compile(env, expression, options);
    benchmark::DoNotOptimize(program);
  }
  state.SetLabel(std::string(state.range(0) == 0 ? "e1" : "e2") +
                 (options.estimate_cost ? " with cost estimate" : ""));
}
BENCHMARK(BM_CelCompileSelector)->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace
}  // namespace dralloc::cel
