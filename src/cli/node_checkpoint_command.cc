// `dralloc node-checkpoint --root DIR | --state-dir DIR [-o table|json]`:
// prints the claims a node agent's checkpoint records (snapshot plus
// journal, read only; safe while the agent runs): which claims it
// prepared, per driver whether the driver finished ("prepared") or may
// have ("preparing"), and the pods on the node that use each.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "node/checkpoint.h"

namespace dralloc::cli {
namespace {

struct NodeCheckpointFlags {
  std::string root;
  std::string state_dir;
  std::string output = "table";
};

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out.empty() ? "<none>" : out;
}

void PrintTable(const std::vector<node::ClaimInfo>& claims) {
  constexpr auto kRow = "{:<40} {:<38} {:<36} {}\n";
  fmt::print(kRow, "CLAIM", "UID", "DRIVERS", "PODS");
  for (const node::ClaimInfo& claim : claims) {
    std::vector<std::string> drivers;
    for (const auto& [name, state] : claim.drivers) {
      drivers.push_back(name + "=" +
                        (state.prepared ? "prepared" : "preparing"));
    }
    fmt::print(kRow, claim.namespace_ + "/" + claim.name, claim.uid,
               Join(drivers),
               Join({claim.pod_uids.begin(), claim.pod_uids.end()}));
  }
}

int RunNodeCheckpoint(const NodeCheckpointFlags& flags) {
  if (flags.root.empty() == flags.state_dir.empty()) {
    fmt::print(stderr, "dralloc node-checkpoint: give --root or --state-dir\n");
    return kExitBadInput;
  }
  if (flags.output != "table" && flags.output != "json") {
    fmt::print(stderr,
               "dralloc node-checkpoint: -o: Unsupported value: \"{}\": "
               "supported values: \"table\", \"json\"\n",
               flags.output);
    return kExitBadInput;
  }
  const node::Checkpoint checkpoint(
      flags.state_dir.empty() ? flags.root + "/state" : flags.state_dir);
  auto claims = checkpoint.Load();
  if (!claims.ok()) {
    fmt::print(stderr, "{}\n", claims.status().message());
    return kExitInvalid;
  }
  if (flags.output == "json") {
    fmt::print("{}", node::Checkpoint::Encode(*claims));
  } else {
    PrintTable(*claims);
  }
  return kExitOk;
}

}  // namespace

void RegisterNodeCheckpointCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<NodeCheckpointFlags>(
      app, "node-checkpoint",
      "Prints the claims a node agent's checkpoint records as prepared "
      "(read only; safe while the agent runs)",
      exit_code, RunNodeCheckpoint);
  command.add_option("--root", flags.root,
                     "the node agent's --root (its state is DIR/state)");
  command.add_option("--state-dir", flags.state_dir,
                     "the node agent's --state-dir");
  command.add_option("-o,--output", flags.output, "table or json")
      ->capture_default_str();
}

}  // namespace dralloc::cli
