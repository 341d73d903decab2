// --leader-elect and its companions for the commands that run the scheduler
// or the ResourceClaim controller, with kube-scheduler's flag names, and the
// plumbing that runs a component only while it holds its Lease.
#ifndef DRALLOC_CLI_LEADER_ELECTION_FLAGS_H_
#define DRALLOC_CLI_LEADER_ELECTION_FLAGS_H_

#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/duration_flag.h"
#include "client/api_client.h"
#include "common/status.h"
#include "leaderelection/leader_elector.h"

namespace dralloc::cli {

struct LeaderElectionFlags {
  bool enabled = false;
  // Go durations, as upstream's flags take them ("15s", "1m30s", "500ms").
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string resource_name;
  std::string resource_namespace = "kube-system";
};

// Adds the flags; `resource_name` is --leader-elect-resource-name's default,
// offered only when `with_resource_name` (serve names its two leases itself).
void AddLeaderElectionFlags(CLI::App& command, LeaderElectionFlags& flags,
                            std::string resource_name,
                            bool with_resource_name = true);

// The elector configuration the flags describe, for lease `lease_name`
// (validated as client-go validates it).
StatusOr<leaderelection::LeaderElectionConfig> ElectionConfig(
    const LeaderElectionFlags& flags, std::string lease_name);

// A component that runs only while leading: `start` when its lease is
// acquired, `stop` when it is lost or on shutdown (before the release).
struct ElectedComponent {
  std::string lease_name;
  std::function<void()> start;
  std::function<void()> stop;
};

// Creates the lease namespace when missing, runs one elector per component
// until SIGINT/SIGTERM (in `signals`, blocked by the caller before any thread
// started), then stops them, stopping each component and releasing its
// lease. Returns kExitOk after a signal; kExitInvalid when a lease was lost
// (as upstream, the process exits so that its supervisor restarts it as a
// candidate) or the flags are invalid.
int RunElected(client::ApiClient& api, const LeaderElectionFlags& flags,
               std::vector<ElectedComponent> components,
               const sigset_t& signals);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_LEADER_ELECTION_FLAGS_H_
