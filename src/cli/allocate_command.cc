// dralloc allocate --node NODE -f PATH… [-o yaml|json] [--explain]: allocate
// devices for the claims in the input on one node, offline.
// Exit 0: allocated (the claims are printed as a v1 List with
// status.allocation); 1: unsatisfiable (explanation on stderr); 2: invalid
// input or a fatal allocation error.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"
#include "api/codec.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "encoding/yaml_writer.h"

namespace dralloc::cli {
namespace {

struct AllocateOptions {
  std::vector<std::string> paths;
  std::string node;
  std::string output = "yaml";
  bool explain = false;
  uint64_t max_steps = allocator::AllocatorOptions{}.max_steps;
};

void PrintLines(const std::vector<std::string>& lines,
                std::string_view prefix) {
  for (const std::string& line : lines) std::cerr << prefix << line << '\n';
}

// One line per allocated device: claim, request, device, share.
void PrintSummary(const std::vector<api::ResourceClaim>& claims,
                  std::string_view node) {
  std::cout << fmt::format("{:<32} {:<16} {}\n", "CLAIM", "REQUEST",
                           "DEVICE (driver/pool/device)");
  for (const api::ResourceClaim& claim : claims) {
    std::string name = claim.metadata.namespace_ + "/" + claim.metadata.name;
    for (const auto& r : claim.status.allocation->devices.results) {
      std::cout << fmt::format("{:<32} {:<16} {}/{}/{}{}{}\n", name, r.request,
                               r.driver, r.pool, r.device,
                               r.admin_access.value_or(false) ? " (admin)" : "",
                               r.share_id ? " (shared)" : "");
    }
  }
  std::cout << fmt::format("all {} claims fit on node {}\n", claims.size(),
                           node);
}

int RunAllocate(const AllocateOptions& options) {
  LoadResult loaded = LoadObjects(options.paths, api::DecodeOptions{});
  if (ReportLoadFailures(loaded, std::cerr)) return kExitBadInput;
  PutInNamespace(loaded, "default");
  std::vector<api::Object> objects;
  bool bad = false;
  for (LoadedObject& object : loaded.objects) {
    if (!object.result.errors.empty()) {
      std::cerr << fmt::format("error: {}: cannot decode\n", object.Location());
      PrintFieldErrors(object.result.errors, "  ", std::cerr);
      bad = true;
      continue;
    }
    objects.push_back(std::move(*object.result.object));
  }
  if (bad) return kExitBadInput;

  allocator::AllocatorOptions allocator_options;
  allocator_options.explain = options.explain;
  allocator_options.max_steps = options.max_steps;
  StatusOr<allocator::OfflineAllocation> outcome = allocator::AllocateOffline(
      std::move(objects), options.node, allocator_options);
  if (!outcome.ok()) {
    std::cerr << "error: " << outcome.status().message() << '\n';
    return kExitBadInput;
  }
  for (const auto& problem : outcome->patch_problems) {
    std::cerr << fmt::format("warning: {} not applied to device {}: {}\n",
                             problem.object, problem.device, problem.message);
  }
  const allocator::Allocation& allocation = outcome->allocation;
  if (!allocation.allocated) {
    std::cerr << fmt::format(
        "unsatisfiable: the claims do not fit on node {}\n", options.node);
    const auto& lines = allocation.explanation;
    size_t reasons = std::min(allocation.num_reasons, lines.size());
    PrintLines({lines.begin(), lines.begin() + reasons}, "  ");
    if (reasons < lines.size()) {
      std::cerr << "details:\n";
      PrintLines({lines.begin() + reasons, lines.end()}, "  ");
    }
    return kExitInvalid;
  }
  if (options.explain) {
    std::cerr << fmt::format("allocated on node {} after {} search steps\n",
                             options.node, allocation.stats.steps);
    PrintLines(allocation.explanation, "  ");
  }
  if (options.output == "summary") {
    PrintSummary(outcome->claims, options.node);
    return kExitOk;
  }
  std::vector<api::Json> items;
  for (const api::ResourceClaim& claim : outcome->claims) {
    StatusOr<api::Json> json = api::EncodeObject(claim, "resource.k8s.io/v1");
    if (!json.ok()) {
      std::cerr << "error: " << json.status().message() << '\n';
      return kExitBadInput;
    }
    items.push_back(std::move(*json));
  }
  api::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  if (options.output == "json") {
    std::cout << list.dump(4, ' ', false, api::Json::error_handler_t::replace)
              << '\n';
  } else {
    std::cout << encoding::ToYaml(list);
  }
  return kExitOk;
}

}  // namespace

void RegisterAllocateCommand(CLI::App& app, int& exit_code) {
  auto [command, options] = AddCommand<AllocateOptions>(
      app, "allocate",
      "Allocate devices for the claims in the input on one node, as the "
      "Kubernetes scheduler would. Claims with status.allocation are in-use "
      "state; all others are allocated together, in input order. Exit 0: "
      "allocated (claims printed as a v1 List); 1: unsatisfiable (why on "
      "stderr); 2: invalid input or a fatal allocation error.",
      exit_code, RunAllocate);
  command.add_option("--node", options.node, "Node to allocate for")
      ->required();
  AddFilenameOption(command, options.paths);
  command
      .add_option("-o,--output", options.output,
                  "yaml (default), json, or summary (one line per device)")
      ->check(CLI::IsMember({"yaml", "json", "summary"}));
  command.add_flag("--explain", options.explain,
                   "Print per-request diagnostics to stderr, also on success");
  command.add_option("--max-steps", options.max_steps,
                     "Search step budget before giving up (exit 2)");
}

}  // namespace dralloc::cli
