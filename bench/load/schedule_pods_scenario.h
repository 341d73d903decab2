// The `schedule-pods` scenario: end-to-end pod scheduling throughput of a
// server that runs a scheduler (`dralloc serve`), modelled on upstream
// scheduler_perf SchedulingWithResourceClaimTemplate.
//
// 1. POSTs every object of the setup file (JSON lines: namespace, device
//    class, nodes, slices, claim template) in order; 409 AlreadyExists is
//    fine. Untimed.
// 2. Lists the pods' namespace and opens a watch on its pods from the list
//    resourceVersion (with bookmarks).
// 3. Creates every pod of the pods file from N client connections, recording
//    when each create was sent.
// 4. Records, from the watch, when each pod was first seen with a non-empty
//    spec.nodeName, until all are bound or the timeout.
// 5. Lists the namespace's ResourceClaims and checks that no device is
//    allocated to two claims.
#ifndef DRALLOC_BENCH_LOAD_SCHEDULE_PODS_SCENARIO_H_
#define DRALLOC_BENCH_LOAD_SCHEDULE_PODS_SCENARIO_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "load/latency_summary.h"
#include "load/load_support.h"
#include "load/load_target.h"
#include "load/stall_monitor.h"

namespace dralloc::load {

// ---- Pure helpers (unit-tested) ----

// Parses JSON lines: one JSON object per non-blank line. kInvalidArgument
// names the first bad line (1-based).
StatusOr<std::vector<nlohmann::json>> ParseJsonLines(std::string_view text);

// The REST collection an object is created in, from its apiVersion, kind and
// metadata.namespace: "/api/v1/nodes",
// "/apis/resource.k8s.io/v1/namespaces/test/resourceclaimtemplates".
// Cluster-scoped kinds (Namespace, Node, DeviceClass, ResourceSlice,
// DeviceTaintRule, ...) ignore metadata.namespace; namespaced kinds without
// one go to "default". kInvalidArgument without apiVersion or kind.
StatusOr<std::string> CollectionPathFor(const nlohmann::json& object);

// metadata.name / metadata.namespace of an object ("" when absent).
std::string ObjectName(const nlohmann::json& object);
std::string ObjectNamespace(const nlohmann::json& object);

// One line of a pod watch stream.
struct PodWatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  std::string name;
  std::string namespace_name;
  std::string node_name;  // spec.nodeName, "" when unbound
  std::string resource_version;
  // For ERROR events: the Status message and code.
  std::string error_message;
  int error_code = 0;
};

// nullopt when the line is not a JSON watch event ({"type":..,"object":{..}}).
std::optional<PodWatchEvent> ParsePodWatchLine(std::string_view line);

// Result of checking the allocations in a ResourceClaim list.
struct ClaimAllocationCheck {
  std::int64_t claims = 0;
  // Claims with status.allocation.
  std::int64_t allocated_claims = 0;
  // Device results over all allocated claims.
  std::int64_t allocated_devices = 0;
  // Distinct devices (driver/pool/device) that appear in more than one
  // allocation result.
  std::int64_t double_allocated_devices = 0;
  // Up to 10 of them, "driver/pool/device" (for the report).
  std::vector<std::string> double_allocated_examples;
};

// Reads a ResourceClaimList body. Results with adminAccess are not counted
// as conflicts (admin access may share devices). kInvalidArgument when the
// body is not a list.
StatusOr<ClaimAllocationCheck> CheckClaimAllocations(std::string_view body);

// bound / (last_bound - first_create), 0 when the span is not positive.
double ThroughputPodsPerSecond(std::int64_t bound, double span_seconds);

// ---- The scenario ----

struct SchedulePodsOptions {
  LoadTarget target;
  std::string setup_path;  // JSON lines, created in order
  std::string pods_path;   // JSON lines of Pods, one namespace
  int clients = 8;
  // Bound on creating the pods and waiting for them to be bound, seconds
  // (the setup phase is not counted).
  double timeout_seconds = 300;
};

struct SchedulePodsReport {
  SchedulePodsOptions options;
  std::string namespace_name;

  std::int64_t setup_objects = 0;
  std::int64_t setup_already_existed = 0;
  double setup_seconds = 0;

  std::string watch_resource_version;
  // Times the watch had to be reopened (stream ended early).
  int watch_reopens = 0;
  std::int64_t watch_events = 0;

  std::int64_t pods = 0;
  std::int64_t pods_created = 0;
  ErrorCounts create_errors;
  double create_seconds = 0;
  double creates_per_second = 0;
  LatencySummary create_latency;

  std::int64_t pods_bound = 0;
  bool timed_out = false;
  // First create sent -> last pod seen bound.
  double first_create_to_last_bound_seconds = 0;
  double throughput_pods_per_second = 0;
  // Create sent -> first seen bound, over bound pods.
  LatencySummary bind_latency;
  // Nodes that got at least one pod.
  std::int64_t nodes_used = 0;

  // Times this process could not run for a while, from the first create to
  // the last binding seen (see StallMonitor).
  std::vector<Stall> stalls;
  std::chrono::milliseconds stall_threshold = StallMonitor::kDefaultThreshold;

  bool claims_checked = false;
  ClaimAllocationCheck claims;

  std::vector<std::string> problems;

  bool HasErrors() const;
};

// Request failures and unbound pods are counted in the report; the Status is
// an error only when the run cannot start (unreadable files, setup object
// rejected, server unreachable, watch not opened).
StatusOr<SchedulePodsReport> RunSchedulePodsScenario(
    const SchedulePodsOptions& options);

std::string FormatSchedulePodsReportText(const SchedulePodsReport& report);
std::string FormatSchedulePodsReportJson(const SchedulePodsReport& report);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_SCHEDULE_PODS_SCENARIO_H_
