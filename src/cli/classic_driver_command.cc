// `dralloc driver classic-example`: a classic DRA (resource.k8s.io/v1alpha2,
// KEP-3063) control-plane driver, as Kubernetes 1.30's e2e test driver:
// it allocates GPUs from its own per-node inventory for the claims of the
// ResourceClasses that name it (Immediate claims at once, the others
// through the pods' PodSchedulingContexts), reads claim and class
// parameters from the ConfigMaps their parametersRef names, and writes a
// resource handle ({"nodeName","gpus","env"}) per allocation. Prints
// `ready` once its caches are synced and its allocations restored; runs
// until SIGINT/SIGTERM.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "classiccontroller/controller.h"
#include "cli/api_client_flags.h"
#include "cli/commands.h"
#include "cli/server_flags.h"
#include "client/informer.h"
#include "common/log.h"
#include "exampledriver/classic_driver.h"

namespace dralloc::cli {
namespace {

constexpr char kComponent[] = "classic-driver";

struct ClassicDriverFlags {
  ApiClientFlags api;
  std::string driver_name = "gpu.classic.example.com";
  std::vector<std::string> nodes;
  int gpus_per_node = 8;
  int workers = 4;
  int recheck_seconds = 30;
  int startup_timeout_s = 30;
  std::string log_level = "info";
};

namespace v1alpha2 = api::v1alpha2;

int RunClassicDriver(const ClassicDriverFlags& flags) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  auto pool =
      exampledriver::ClassicGpuPool::Create(flags.nodes, flags.gpus_per_node);
  if (!pool.ok()) {
    fmt::print(stderr, "dralloc driver classic-example: {}\n",
               pool.status().message());
    return kExitBadInput;
  }
  const sigset_t signals = BlockTerminationSignals();
  auto api = ConnectApi(flags.api, "dralloc-classic-example-driver/0.1");
  if (!api.ok()) {
    fmt::print(stderr, "dralloc driver classic-example: {}\n",
               api.status().message());
    return kExitInvalid;
  }
  client::ApiClient& client = **api;
  client::Informer claims(client,
                          client::ResourceFor<v1alpha2::ResourceClaim>());
  client::Informer classes(client,
                           client::ResourceFor<v1alpha2::ResourceClass>());
  client::Informer contexts(
      client, client::ResourceFor<v1alpha2::PodSchedulingContext>());
  client::Informer pods(client, client::PodsResource());
  exampledriver::ClassicExampleDriver driver(client, flags.driver_name,
                                             *std::move(pool));
  classiccontroller::Controller controller(
      client, {claims, classes, contexts, pods}, driver,
      {.driver_name = flags.driver_name,
       .workers = flags.workers,
       .recheck_delay = std::chrono::seconds(flags.recheck_seconds)});
  for (client::Informer* informer : {&claims, &classes, &contexts, &pods}) {
    informer->Start();
  }
  for (client::Informer* informer : {&claims, &classes, &contexts, &pods}) {
    if (!informer->WaitForSync(std::chrono::seconds(flags.startup_timeout_s))) {
      fmt::print(stderr,
                 "dralloc driver classic-example: the API server's {} did "
                 "not sync within {} s\n",
                 informer->resource().QualifiedResource(),
                 flags.startup_timeout_s);
      return kExitInvalid;
    }
  }
  // Allocations made before a restart hold their GPUs again.
  if (Status restored = driver.Restore(claims.List()); !restored.ok()) {
    log::Warn(kComponent, "restoring allocations: {}", restored.message());
  }
  controller.Start();
  log::Info(kComponent, "driver {}: {} GPUs on each of {} nodes",
            flags.driver_name, flags.gpus_per_node, flags.nodes.size());
  fmt::print("ready\n");
  std::fflush(stdout);
  const int received = WaitForTermination(signals);
  log::Info(kComponent, "signal {}: shutting down", received);
  controller.Stop();
  for (client::Informer* informer : {&claims, &classes, &contexts, &pods}) {
    informer->Stop();
  }
  return kExitOk;
}

}  // namespace

void AddClassicDriverCommand(CLI::App& driver, int& exit_code) {
  auto [command, flags] = AddCommand<ClassicDriverFlags>(
      driver, "classic-example",
      "A classic DRA (resource.k8s.io/v1alpha2) control-plane driver: "
      "allocates GPUs of listed nodes for its ResourceClasses' claims, "
      "negotiating nodes with the scheduler through PodSchedulingContexts",
      exit_code,
      [](const ClassicDriverFlags& f) { return RunClassicDriver(f); });
  AddApiClientFlags(command, flags.api);
  command.add_option("--driver-name", flags.driver_name, "DRA driver name")
      ->capture_default_str();
  command.add_option("--nodes", flags.nodes, "the nodes with GPUs")
      ->delimiter(',')
      ->required();
  command.add_option("--gpus-per-node", flags.gpus_per_node, "GPUs per node")
      ->check(CLI::Range(1, 128))
      ->capture_default_str();
  command.add_option("--workers", flags.workers, "worker threads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  command
      .add_option("--recheck-interval", flags.recheck_seconds,
                  "seconds between looks at an open PodSchedulingContext")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  command
      .add_option("--startup-timeout", flags.startup_timeout_s,
                  "seconds to wait for the API server's caches")
      ->capture_default_str();
  command.add_option("--log-level", flags.log_level,
                     "debug, info, warn or error");
}

}  // namespace dralloc::cli
