// dralloc schedule -f PATH… [-o table|yaml|json|none] [--stats]: an offline
// what-if run. The objects are validated and go into an in-memory API
// (client::MemoryApiClient, with API defaulting), the claim controller and the
// scheduler run to quiescence, and the result is printed: pod → node → claim →
// devices, and the pods that could not be scheduled with the scheduler's
// reasons. Exit 0: every pod is scheduled; 1: some pod is not; 2: invalid
// input.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/validation/validation.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "client/memory_api_client.h"
#include "encoding/yaml_writer.h"
#include "scheduler/control_plane.h"

namespace dralloc::cli {
namespace {

struct ScheduleFlags {
  std::vector<std::string> paths;
  std::string output = "table";
  std::string scheduler_name = "dralloc-scheduler";
  std::string placement = "default";
  bool stats = false;
};

// Creation order: what objects refer to exists before them.
int KindRank(std::string_view kind) {
  static const std::map<std::string_view, int> kRanks = {
      {"Namespace", 0},
      {"Node", 1},
      {"DeviceClass", 2},
      {"ResourceSlice", 3},
      {"ResourceSlicePatch", 4},
      {"DeviceTaintRule", 5},
      {"ResourceClaimTemplate", 6},
      {"ResourceClaim", 7},
      {"Pod", 8},
      {"Event", 9}};
  auto it = kRanks.find(kind);
  return it == kRanks.end() ? 10 : it->second;
}

// Loads, decodes and validates the input; prints problems to stderr.
bool LoadInput(const ScheduleFlags& flags, std::vector<api::Object>& objects) {
  LoadResult loaded = LoadObjects(flags.paths, api::DecodeOptions{});
  if (ReportLoadFailures(loaded, std::cerr)) return false;
  bool ok = true;
  for (LoadedObject& object : loaded.objects) {
    if (!object.result.errors.empty()) {
      std::cerr << fmt::format("error: {}: cannot decode\n", object.Location());
      PrintFieldErrors(object.result.errors, "  ", std::cerr);
      ok = false;
      continue;
    }
    api::ErrorList errors = api::Validate(*object.result.object);
    if (!errors.empty()) {
      std::cerr << fmt::format("error: {}: invalid\n", object.Location());
      PrintFieldErrors(errors, "  ", std::cerr);
      ok = false;
      continue;
    }
    objects.push_back(std::move(*object.result.object));
  }
  std::stable_sort(objects.begin(), objects.end(),
                   [](const api::Object& a, const api::Object& b) {
                     return KindRank(api::KindOf(a)) < KindRank(api::KindOf(b));
                   });
  return ok;
}

// Stores the input through the API (admission included). Namespaces that
// objects use but the input does not define are created.
bool StoreInput(client::ApiClient& api, std::vector<api::Object>& objects) {
  std::set<std::string> namespaces;
  for (const api::Object& object : objects) {
    if (const auto* ns = std::get_if<api::Namespace>(&object)) {
      namespaces.insert(ns->metadata.name);
    }
  }
  bool ok = true;
  for (api::Object& object : objects) {
    const std::string& ns = api::MetaOf(object).namespace_;
    if (client::ResourceOf(object).namespaced) {
      if (ns.empty()) api::MetaOf(object).namespace_ = "default";
      const std::string& use = api::MetaOf(object).namespace_;
      if (namespaces.insert(use).second) {
        api::Namespace created;
        created.metadata.name = use;
        (void)api.Create(api::Object(created));
      }
    }
    auto created = api.Create(object);
    if (!created.ok()) {
      std::cerr << fmt::format("error: {}: {}\n", api::DisplayName(object),
                               created.status().message());
      ok = false;
      continue;
    }
    // Claims given with an allocation are in-use state.
    const auto* claim = std::get_if<api::ResourceClaim>(&object);
    if (claim != nullptr && claim->status.allocation) {
      auto& stored = std::get<api::ResourceClaim>(*created);
      stored.status = claim->status;
      auto updated = api.UpdateStatus(*created);
      if (!updated.ok()) {
        std::cerr << fmt::format("error: {}: status: {}\n",
                                 api::DisplayName(object),
                                 updated.status().message());
        ok = false;
      }
    }
  }
  return ok;
}

template <typename T>
std::vector<const T*> Sorted(const std::vector<client::ObjectPtr>& objects) {
  std::vector<const T*> out;
  for (const client::ObjectPtr& o : objects) {
    if (const T* typed = client::As<T>(o)) out.push_back(typed);
  }
  std::sort(out.begin(), out.end(), [](const T* a, const T* b) {
    return std::tie(a->metadata.namespace_, a->metadata.name) <
           std::tie(b->metadata.namespace_, b->metadata.name);
  });
  return out;
}

std::string PendingReason(const api::Pod& pod) {
  for (const auto& condition : pod.status.conditions) {
    if (condition.type == "PodScheduled" && condition.status == "False") {
      return condition.message;
    }
  }
  if (!pod.spec.resource_claims.empty() &&
      pod.status.resource_claim_statuses.size() <
          pod.spec.resource_claims.size()) {
    return "its resource claims could not be created (missing "
           "ResourceClaimTemplate?)";
  }
  return "not scheduled";
}

void PrintTable(scheduler::ControlPlane& plane,
                const std::vector<const api::Pod*>& pods) {
  std::cout << fmt::format("{:<36} {:<20} {:<40} {}\n", "POD", "NODE", "CLAIM",
                           "DEVICES");
  for (const api::Pod* pod : pods) {
    if (pod->spec.node_name.empty()) continue;
    const std::string pod_name =
        pod->metadata.namespace_ + "/" + pod->metadata.name;
    bool printed = false;
    for (const auto& entry : pod->spec.resource_claims) {
      std::string claim_name = entry.resource_claim_name.value_or("");
      for (const auto& s : pod->status.resource_claim_statuses) {
        if (s.name == entry.name && s.resource_claim_name) {
          claim_name = *s.resource_claim_name;
        }
      }
      const auto* claim = client::As<api::ResourceClaim>(
          plane.claims().Get(pod->metadata.namespace_, claim_name));
      std::vector<std::string> devices;
      if (claim != nullptr && claim->status.allocation) {
        for (const auto& r : claim->status.allocation->devices.results) {
          devices.push_back(fmt::format("{}/{}/{}{}", r.driver, r.pool,
                                        r.device,
                                        r.share_id ? " (shared)" : ""));
        }
      }
      std::cout << fmt::format("{:<36} {:<20} {:<40} {}\n", pod_name,
                               pod->spec.node_name, claim_name,
                               fmt::join(devices, ", "));
      printed = true;
    }
    if (!printed) {
      std::cout << fmt::format("{:<36} {:<20} {:<40} {}\n", pod_name,
                               pod->spec.node_name, "-", "-");
    }
  }
  bool header = false;
  for (const api::Pod* pod : pods) {
    if (!pod->spec.node_name.empty()) continue;
    if (!header) {
      std::cout << "\nUNSCHEDULABLE\n";
      header = true;
    }
    std::cout << fmt::format("{}/{}: {}\n", pod->metadata.namespace_,
                             pod->metadata.name, PendingReason(*pod));
  }
}

int PrintObjects(scheduler::ControlPlane& plane, const std::string& output) {
  std::vector<api::Json> items;
  auto add = [&](const auto& typed) -> bool {
    StatusOr<api::Json> json = api::EncodeObject(
        api::Object(*typed), api::PreferredVersion(api::Object(*typed)));
    if (!json.ok()) {
      std::cerr << "error: " << json.status().message() << '\n';
      return false;
    }
    items.push_back(std::move(*json));
    return true;
  };
  for (const auto* claim : Sorted<api::ResourceClaim>(plane.claims().List())) {
    if (!add(claim)) return kExitBadInput;
  }
  for (const auto* pod : Sorted<api::Pod>(plane.pods().List())) {
    if (!add(pod)) return kExitBadInput;
  }
  api::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  if (output == "json") {
    std::cout << list.dump(4, ' ', false, api::Json::error_handler_t::replace)
              << '\n';
  } else {
    std::cout << encoding::ToYaml(list);
  }
  return kExitOk;
}

int RunSchedule(const ScheduleFlags& flags) {
  std::vector<api::Object> objects;
  if (!LoadInput(flags, objects)) return kExitBadInput;

  client::MemoryApiClient api;
  if (!StoreInput(api, objects)) return kExitBadInput;

  scheduler::ControlPlaneOptions options;
  options.scheduler.scheduler_name = flags.scheduler_name;
  options.scheduler.binders = 0;
  options.scheduler.initial_backoff = std::chrono::milliseconds(0);
  options.scheduler.placement =
      flags.placement == "pack"     ? scheduler::Placement::kPack
      : flags.placement == "spread" ? scheduler::Placement::kSpread
                                    : scheduler::Placement::kDefault;
  scheduler::ControlPlane plane(api, options);
  const auto start = std::chrono::steady_clock::now();
  Status run = plane.RunToQuiescence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!run.ok()) {
    std::cerr << "error: " << run.message() << '\n';
    return kExitBadInput;
  }

  std::vector<const api::Pod*> pods = Sorted<api::Pod>(plane.pods().List());
  size_t ours = 0, scheduled = 0;
  for (const api::Pod* pod : pods) {
    if (!plane.scheduler()->Responsible(*pod)) continue;
    ++ours;
    if (!pod->spec.node_name.empty()) ++scheduled;
  }
  if (flags.stats) {
    const scheduler::SchedulerStats stats = plane.scheduler()->stats();
    const auto controller = plane.controller()->metrics();
    std::cerr << fmt::format(
        "scheduled {}/{} pods in {:.3f} s ({:.0f} pods/s); {} claims "
        "created, {} nodes evaluated, {} allocator calls, {} failed "
        "attempts\n",
        scheduled, ours, seconds, seconds > 0 ? scheduled / seconds : 0.0,
        controller.create_attempts - controller.create_failures,
        stats.nodes_evaluated, stats.allocator_calls, stats.unschedulable);
  }
  int code = kExitOk;
  if (flags.output == "table") {
    PrintTable(plane, pods);
  } else if (flags.output == "yaml" || flags.output == "json") {
    code = PrintObjects(plane, flags.output);
  }
  if (code != kExitOk) return code;
  return scheduled == ours ? kExitOk : kExitInvalid;
}

}  // namespace

void RegisterScheduleCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* command = app.add_subcommand(
      "schedule",
      "Offline what-if: load nodes, slices, classes, claims, templates and "
      "pods into an in-memory API, run the claim controller and the "
      "scheduler until nothing changes, and print where each pod landed "
      "with its devices, and why the others did not. Exit 0: every pod "
      "scheduled; 1: some pod unschedulable; 2: invalid input.");
  command
      ->add_option("-f,--filename", flags->paths,
                   "Files or directories (recursive)")
      ->required()
      ->take_all();
  command
      ->add_option("-o,--output", flags->output,
                   "table (default), yaml or json (claims and pods after "
                   "scheduling), none")
      ->check(CLI::IsMember({"table", "yaml", "json", "none"}));
  command->add_option("--scheduler-name", flags->scheduler_name,
                      "Schedule pods with this schedulerName (and pods "
                      "without one)");
  command
      ->add_option("--placement", flags->placement,
                   "default (first fit, like kube-scheduler), pack or "
                   "spread (prefer nodes whose devices are most/least used)")
      ->check(CLI::IsMember({"default", "pack", "spread"}));
  command->add_flag("--stats", flags->stats,
                    "Print scheduling throughput and counters to stderr");
  command->callback([flags, &exit_code] { exit_code = RunSchedule(*flags); });
}

}  // namespace dralloc::cli
