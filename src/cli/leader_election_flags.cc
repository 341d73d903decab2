#include "cli/leader_election_flags.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#include "cli/commands.h"
#include "cli/server_flags.h"
#include "common/log.h"

namespace dralloc::cli {
namespace {

// Nanoseconds per unit of a Go duration.
Status EnsureNamespace(client::ApiClient& api, const std::string& name) {
  api::Namespace ns;
  ns.metadata.name = name;
  StatusOr<client::ObjectPtr> created = api.Create(api::Object(std::move(ns)));
  if (created.ok() || created.status().code() == StatusCode::kAlreadyExists) {
    return OkStatus();
  }
  return Status(created.status().code(),
                fmt::format("creating namespace {} for leader election: {}",
                            name, created.status().message()));
}

}  // namespace

void AddLeaderElectionFlags(CLI::App& command, LeaderElectionFlags& flags,
                            std::string resource_name,
                            bool with_resource_name) {
  flags.resource_name = std::move(resource_name);
  command.add_flag("--leader-elect", flags.enabled,
                   "run only while holding a coordination.k8s.io/v1 Lease, "
                   "so that one of several replicas is active");
  command
      .add_option("--leader-elect-lease-duration", flags.lease_duration,
                  "how long candidates wait after a leader's last renewal "
                  "before taking over")
      ->capture_default_str();
  command
      .add_option("--leader-elect-renew-deadline", flags.renew_deadline,
                  "how long the leader retries renewing before it stops "
                  "leading")
      ->capture_default_str();
  command
      .add_option("--leader-elect-retry-period", flags.retry_period,
                  "time between attempts to acquire or renew")
      ->capture_default_str();
  if (with_resource_name) {
    command
        .add_option("--leader-elect-resource-name", flags.resource_name,
                    "name of the Lease")
        ->capture_default_str();
  }
  command
      .add_option("--leader-elect-resource-namespace", flags.resource_namespace,
                  "namespace of the Lease (created when missing)")
      ->capture_default_str();
}

StatusOr<leaderelection::LeaderElectionConfig> ElectionConfig(
    const LeaderElectionFlags& flags, std::string lease_name) {
  leaderelection::LeaderElectionConfig config;
  ASSIGN_OR_RETURN(
      config.lease_duration,
      ParseGoDuration(flags.lease_duration, "--leader-elect-lease-duration"));
  ASSIGN_OR_RETURN(
      config.renew_deadline,
      ParseGoDuration(flags.renew_deadline, "--leader-elect-renew-deadline"));
  ASSIGN_OR_RETURN(
      config.retry_period,
      ParseGoDuration(flags.retry_period, "--leader-elect-retry-period"));
  config.lease_name = std::move(lease_name);
  config.lease_namespace = flags.resource_namespace;
  config.release_on_cancel = true;
  RETURN_IF_ERROR(leaderelection::ValidateConfig(config));
  return config;
}

int RunElected(client::ApiClient& api, const LeaderElectionFlags& flags,
               std::vector<ElectedComponent> components,
               const sigset_t& signals) {
  std::vector<std::unique_ptr<leaderelection::LeaderElector>> electors;
  leaderelection::SystemElectionClock clock;
  std::atomic<bool> lost{false};
  for (ElectedComponent& component : components) {
    auto config = ElectionConfig(flags, component.lease_name);
    if (!config.ok()) {
      fmt::print(stderr, "{}\n", config.status().message());
      return kExitBadInput;
    }
    electors.push_back(std::make_unique<leaderelection::LeaderElector>(
        api, *std::move(config),
        leaderelection::LeaderCallbacks{.on_started_leading = component.start,
                                        .on_stopped_leading = component.stop},
        clock));
  }
  if (Status s = EnsureNamespace(api, flags.resource_namespace); !s.ok()) {
    // Not fatal: the namespace may exist and we may only lack the right to
    // create it; the elector's writes say what is wrong if not.
    log::Warn("leaderelection", "{}", s.message());
  }
  std::atomic<bool> shutting_down{false};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < electors.size(); ++i) {
    log::Info("leaderelection", "{} is a candidate for lease {}/{}",
              electors[i]->identity(), flags.resource_namespace,
              components[i].lease_name);
    threads.emplace_back([&, elector = electors[i].get()] {
      elector->Run();
      // Run returns by itself only when the lease was lost: wake the main
      // thread, which waits for a termination signal.
      if (!shutting_down.load()) {
        lost.store(true);
        kill(getpid(), SIGTERM);
      }
    });
  }
  const int received = WaitForTermination(signals);
  shutting_down.store(true);
  if (lost.load()) {
    log::Error("leaderelection", "leader election lost: exiting");
  } else {
    log::Info("leaderelection", "signal {}: stopping and releasing", received);
  }
  for (auto& elector : electors) elector->Stop();
  for (std::thread& thread : threads) thread.join();
  return lost.load() ? kExitInvalid : kExitOk;
}

}  // namespace dralloc::cli
