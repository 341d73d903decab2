#include "apiserver/table_printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dralloc::apiserver {
namespace {

struct Column {
  std::string_view name;
  std::string_view description;
  int priority = 0;
  std::string_view type = "string";  // "integer" for counts
};

std::vector<Column> ColumnsFor(std::string_view kind) {
  if (kind == "ResourceClaim") {
    return {{"Name", "Name of the claim"},
            {"State", "Whether the claim is allocated and reserved"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceSlice") {
    return {{"Name", "Name of the slice"},
            {"Node", "The node the devices are on"},
            {"Driver", "The driver publishing the devices"},
            {"Pool", "The pool the slice belongs to"},
            {"Age", "Time since creation"}};
  }
  // resource.k8s.io/v1alpha3 ResourcePoolStatusRequest (KEP-5677). The
  // columns follow the KEP's "kubectl Integration" text: upstream's handler
  // in pkg/printers/internalversion/printers.go could not be read, so the
  // descriptions, the column types and the "-" of rows without counts are
  // dralloc's. The count cells are strings because they may be "-".
  if (kind == "ResourcePoolStatusRequest") {
    return {{"Name", "Name of the request"},
            {"Driver", "The driver whose pools are reported"},
            {"Total", "Devices in the listed pools"},
            {"Available", "Devices of the listed pools that can be allocated"},
            {"Allocated", "Devices of the listed pools that claims hold"},
            {"Unavailable", "Tainted devices of the listed pools"},
            {"Errors", "Listed pools with a validation error"},
            {"Pools", "Pools that match the request"},
            {"Status",
             "Pending, Complete (listed/matching pools when cut "
             "at the limit) or Failed"},
            {"Completed", "Time since the request was answered"}};
  }
  if (kind == "Pod") {
    return {{"Name", "Name of the pod"},
            {"Ready",
             "The aggregate readiness state of this pod for accepting "
             "traffic."},
            {"Status", "The aggregate status of the containers in this pod."},
            {"Restarts",
             "The number of times the containers in this pod have been "
             "restarted and when the last container in this pod has "
             "restarted."},
            {"Age", "Time since creation"},
            {"IP", "IP address allocated to the pod.", 1},
            {"Node", "The node the pod is bound to", 1},
            {"Nominated Node",
             "The node the scheduler nominated for the pod to preempt on", 1},
            {"Readiness Gates",
             "The readiness gates whose conditions are true, of all", 1}};
  }
  if (kind == "Node") {
    return {{"Name", "Name of the node"},
            {"Status", "The status of the node"},
            {"Roles", "The roles of the node"},
            {"Age", "Time since creation"},
            {"Version", "Kubelet Version reported by the node."},
            {"Internal-IP", "The node's InternalIP address", 1},
            {"External-IP", "The node's ExternalIP address", 1},
            {"OS-Image", "OS Image reported by the node.", 1},
            {"Kernel-Version", "Kernel Version reported by the node.", 1},
            {"Container-Runtime",
             "Container runtime version reported by the node.", 1}};
  }
  if (kind == "Event") {
    return {{"Last Seen", "Time since the event last occurred"},
            {"Type", "Normal or Warning"},
            {"Reason", "Why the event was recorded"},
            {"Object", "The object the event is about"},
            {"Message", "What happened"},
            {"Name", "Name of the event", 1}};
  }
  if (kind == "Namespace") {
    return {
        {"Name", "Name"}, {"Status", "Status"}, {"Age", "Time since creation"}};
  }
  if (kind == "Lease") {
    return {{"Name", "Name of the lease"},
            {"Holder", "The identity of the current holder"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceQuota") {
    return {{"Name", "Name of the resource quota"},
            {"Age", "Time since creation"},
            {"Request",
             "Request represents a minimum amount of cpu/memory that a "
             "container may consume."},
            {"Limit",
             "Limits control the maximum amount of cpu/memory that a "
             "container may use independent of contention on the node."}};
  }
  // rbac.authorization.k8s.io/v1 (upstream's role and binding printers).
  if (kind == "Role" || kind == "ClusterRole") {
    return {{"Name", "Name of the role"},
            {"Created At", "Time the role was created"}};
  }
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    return {{"Name", "Name of the binding"},
            {"Role", "RoleRef to the role"},
            {"Age", "Time since creation"},
            {"Users", "Users in the binding", 1},
            {"Groups", "Groups in the binding", 1},
            {"ServiceAccounts", "ServiceAccounts in the binding", 1}};
  }
  // core/v1 ServiceAccount, Secret, ConfigMap (upstream's printers).
  if (kind == "ServiceAccount") {
    return {{"Name", "Name", 0},
            {"Secrets",
             "Secrets is the list of secrets allowed to be used "
             "by pods running using this ServiceAccount.",
             0, "integer"},
            {"Age", "Time since creation"}};
  }
  if (kind == "Secret") {
    return {{"Name", "Name", 0},
            {"Type", "The type of the secret"},
            {"Data", "The number of keys in the secret", 0, "integer"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ConfigMap") {
    return {{"Name", "Name", 0},
            {"Data", "The number of keys in the config map", 0, "integer"},
            {"Age", "Time since creation"}};
  }
  return {{"Name", "Name of the object"}, {"Age", "Time since creation"}};
}

// resource.k8s.io/v1alpha2 (Kubernetes 1.30's printers). 1.30's columns of
// ResourceSlice could not be read; dralloc shows its top-level nodeName and
// driverName. The parameters kinds get the default columns.
std::vector<Column> ClassicColumnsFor(std::string_view kind) {
  if (kind == "ResourceClass") {
    return {{"Name", "Name of the class"},
            {"DriverName", "The driver that handles claims of this class"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceClaim") {
    return {{"Name", "Name of the claim"},
            {"ResourceClassName", "The ResourceClass of the claim"},
            {"AllocationMode", "Immediate or WaitForFirstConsumer"},
            {"State",
             "A summary of the current state (allocated, pending, reserved, "
             "etc.)."},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceClaimTemplate") {
    return {{"Name", "Name of the template"},
            {"ResourceClassName", "The ResourceClass of the claims"},
            {"AllocationMode", "Immediate or WaitForFirstConsumer"},
            {"Age", "Time since creation"}};
  }
  if (kind == "PodSchedulingContext") {
    return {{"Name", "Name of the context"},
            {"SelectedNode", "The node the scheduler selected"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceSlice") {
    return {{"Name", "Name of the slice"},
            {"Node", "The node the instances are on"},
            {"Driver", "The driver publishing the instances"},
            {"Age", "Time since creation"}};
  }
  return {{"Name", "Name of the object"}, {"Age", "Time since creation"}};
}

const Json& At(const Json& object,
               std::initializer_list<std::string_view> path) {
  static const Json kNull;
  const Json* node = &object;
  for (std::string_view part : path) {
    if (!node->is_object()) return kNull;
    auto it = node->find(std::string(part));
    if (it == node->end()) return kNull;
    node = &*it;
  }
  return *node;
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

// Seconds since `timestamp` (RFC 3339) as kubectl prints ages; nullopt when
// it is not a timestamp.
std::optional<std::string> Since(const std::string& timestamp) {
  std::tm tm{};
  if (timestamp.empty() ||
      strptime(timestamp.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) {
    return std::nullopt;
  }
  return HumanDuration(std::chrono::seconds(std::time(nullptr) - timegm(&tm)));
}

std::string Age(const Json& object) {
  return Since(Text(At(object, {"metadata", "creationTimestamp"})))
      .value_or("<unknown>");
}

std::string OrNone(std::string text) { return text.empty() ? "<none>" : text; }

const Json& Items(const Json& object,
                  std::initializer_list<std::string_view> path) {
  static const Json kEmpty = Json::array();
  const Json& items = At(object, path);
  return items.is_array() ? items : kEmpty;
}

int64_t Integer(const Json& value) {
  return value.is_number_integer() ? value.get<int64_t>() : 0;
}

// The condition of `type` among `conditions`' items has status "True".
bool ConditionTrue(const Json& conditions, std::string_view type) {
  for (const Json& condition : Items(conditions, {})) {
    if (Text(At(condition, {"type"})) == type) {
      return Text(At(condition, {"status"})) == "True";
    }
  }
  return false;
}

// "true/all" of spec.readinessGates, "<none>" without gates.
std::string ReadinessGates(const Json& pod) {
  const Json& gates = Items(pod, {"spec", "readinessGates"});
  if (gates.empty()) return "<none>";
  const Json& conditions = At(pod, {"status", "conditions"});
  int true_gates = 0;
  for (const Json& gate : gates) {
    if (ConditionTrue(conditions, Text(At(gate, {"conditionType"})))) {
      ++true_gates;
    }
  }
  return fmt::format("{}/{}", true_gates, gates.size());
}

// The roles of node-role.kubernetes.io/<role> labels and of the
// kubernetes.io/role label, sorted, comma-separated; "<none>".
std::string NodeRoles(const Json& node) {
  constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
  std::set<std::string> roles;
  const Json& labels = At(node, {"metadata", "labels"});
  if (labels.is_object()) {
    for (const auto& [key, value] : labels.items()) {
      if (key.starts_with(kRolePrefix) && key.size() > kRolePrefix.size()) {
        roles.insert(key.substr(kRolePrefix.size()));
      } else if (key == "kubernetes.io/role" && !Text(value).empty()) {
        roles.insert(Text(value));
      }
    }
  }
  std::string out;
  for (const std::string& role : roles) {
    if (!out.empty()) out += ',';
    out += role;
  }
  return OrNone(out);
}

// The address of `type` in status.addresses, "<none>".
std::string NodeAddress(const Json& node, std::string_view type) {
  for (const Json& address : Items(node, {"status", "addresses"})) {
    if (Text(At(address, {"type"})) == type) {
      return Text(At(address, {"address"}));
    }
  }
  return "<none>";
}

// kube-apiserver's node row: NAME, STATUS (Ready / NotReady from the Ready
// condition, Unknown without one; ",SchedulingDisabled" when
// unschedulable), ROLES, AGE, VERSION; wide: INTERNAL-IP, EXTERNAL-IP,
// OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME.
Json NodeCells(const Json& node) {
  std::string status = "Unknown";
  for (const Json& condition : Items(node, {"status", "conditions"})) {
    if (Text(At(condition, {"type"})) == "Ready") {
      status = Text(At(condition, {"status"})) == "True" ? "Ready" : "NotReady";
    }
  }
  if (At(node, {"spec", "unschedulable"}) == true) {
    status += ",SchedulingDisabled";
  }
  const auto info = [&](std::string_view field) {
    const std::string value = Text(At(node, {"status", "nodeInfo", field}));
    return value.empty() ? std::string("<unknown>") : value;
  };
  return {Text(At(node, {"metadata", "name"})),
          status,
          NodeRoles(node),
          Age(node),
          Text(At(node, {"status", "nodeInfo", "kubeletVersion"})),
          NodeAddress(node, "InternalIP"),
          NodeAddress(node, "ExternalIP"),
          info("osImage"),
          info("kernelVersion"),
          info("containerRuntimeVersion")};
}

// The latest lastState.terminated.finishedAt of `status` (a container
// status) into `latest` (RFC 3339 strings of one format compare in order).
void NoteRestart(const Json& status, std::string& latest) {
  const std::string finished =
      Text(At(status, {"lastState", "terminated", "finishedAt"}));
  if (finished > latest) latest = finished;
}

// What a terminated container without a reason prints: its signal or exit
// code.
std::string ExitText(const Json& terminated, std::string_view prefix) {
  const int64_t signal = Integer(At(terminated, {"signal"}));
  if (signal != 0) return fmt::format("{}Signal:{}", prefix, signal);
  return fmt::format("{}ExitCode:{}", prefix,
                     Integer(At(terminated, {"exitCode"})));
}

// The progress of a pod's init containers, as the kubelet reports it.
struct PodProgress {
  std::string reason;  // the STATUS column so far
  int ready = 0;
  int restarts = 0;
  std::string last_restart;  // RFC 3339, "" when unknown
  bool initializing = false;
};

bool IsSidecar(const Json& pod, const std::string& name) {
  for (const Json& container : Items(pod, {"spec", "initContainers"})) {
    if (Text(At(container, {"name"})) == name) {
      return Text(At(container, {"restartPolicy"})) == "Always";
    }
  }
  return false;
}

// Upstream printPod's pass over initContainerStatuses: the first init
// container that has not completed names the status (Init:<reason>,
// Init:ExitCode:N, Init:i/n). Sidecars' restarts are kept apart, as they
// count even when initialization is done.
void ScanInitContainers(const Json& pod, PodProgress& progress,
                        PodProgress& sidecars) {
  const Json& statuses = Items(pod, {"status", "initContainerStatuses"});
  const size_t total = Items(pod, {"spec", "initContainers"}).size();
  for (size_t i = 0; i < statuses.size(); ++i) {
    const Json& status = statuses[i];
    const bool sidecar = IsSidecar(pod, Text(At(status, {"name"})));
    progress.restarts +=
        static_cast<int>(Integer(At(status, {"restartCount"})));
    NoteRestart(status, progress.last_restart);
    if (sidecar) {
      sidecars.restarts +=
          static_cast<int>(Integer(At(status, {"restartCount"})));
      NoteRestart(status, sidecars.last_restart);
    }
    const Json& terminated = At(status, {"state", "terminated"});
    const std::string waiting =
        Text(At(status, {"state", "waiting", "reason"}));
    if (terminated.is_object() && Integer(At(terminated, {"exitCode"})) == 0) {
      continue;
    }
    if (sidecar && At(status, {"started"}) == true) {
      if (At(status, {"ready"}) == true) ++progress.ready;
      continue;
    }
    progress.initializing = true;
    if (terminated.is_object()) {
      const std::string reason = Text(At(terminated, {"reason"}));
      progress.reason =
          reason.empty() ? ExitText(terminated, "Init:") : "Init:" + reason;
    } else if (!waiting.empty() && waiting != "PodInitializing") {
      progress.reason = "Init:" + waiting;
    } else {
      progress.reason = fmt::format("Init:{}/{}", i, total);
    }
    return;
  }
}

// Upstream printPod's pass over containerStatuses (last to first, so the
// first container's reason wins).
void ScanContainers(const Json& pod, PodProgress& progress) {
  const Json& statuses = Items(pod, {"status", "containerStatuses"});
  bool running = false;
  for (size_t i = statuses.size(); i-- > 0;) {
    const Json& status = statuses[i];
    progress.restarts +=
        static_cast<int>(Integer(At(status, {"restartCount"})));
    NoteRestart(status, progress.last_restart);
    const std::string waiting =
        Text(At(status, {"state", "waiting", "reason"}));
    const Json& terminated = At(status, {"state", "terminated"});
    if (!waiting.empty()) {
      progress.reason = waiting;
    } else if (terminated.is_object()) {
      const std::string reason = Text(At(terminated, {"reason"}));
      progress.reason = reason.empty() ? ExitText(terminated, "") : reason;
    } else if (At(status, {"ready"}) == true &&
               At(status, {"state", "running"}).is_object()) {
      running = true;
      ++progress.ready;
    }
  }
  if (progress.reason == "Completed" && running) {
    progress.reason = ConditionTrue(At(pod, {"status", "conditions"}), "Ready")
                          ? "Running"
                          : "NotReady";
  }
}

// kube-apiserver's pod row: NAME, READY, STATUS, RESTARTS, AGE; wide: IP,
// NODE, NOMINATED NODE, READINESS GATES.
Json PodCells(const Json& pod) {
  const std::string phase = Text(At(pod, {"status", "phase"}));
  const std::string status_reason = Text(At(pod, {"status", "reason"}));
  PodProgress progress;
  progress.reason = status_reason.empty() ? phase : status_reason;
  for (const Json& condition : Items(pod, {"status", "conditions"})) {
    if (Text(At(condition, {"type"})) == "PodScheduled" &&
        Text(At(condition, {"reason"})) == "SchedulingGated") {
      progress.reason = "SchedulingGated";
    }
  }
  int total = static_cast<int>(Items(pod, {"spec", "containers"}).size());
  for (const Json& container : Items(pod, {"spec", "initContainers"})) {
    if (Text(At(container, {"restartPolicy"})) == "Always") ++total;
  }
  PodProgress sidecars;
  ScanInitContainers(pod, progress, sidecars);
  if (!progress.initializing ||
      ConditionTrue(At(pod, {"status", "conditions"}), "Initialized")) {
    progress.restarts = sidecars.restarts;
    progress.last_restart = sidecars.last_restart;
    ScanContainers(pod, progress);
  }
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  if (!At(pod, {"metadata", "deletionTimestamp"}).is_null()) {
    if (status_reason == "NodeLost") {
      progress.reason = "Unknown";
    } else if (!terminal) {
      progress.reason = "Terminating";
    }
  }
  std::string restarts = std::to_string(progress.restarts);
  if (progress.restarts != 0) {
    if (auto ago = Since(progress.last_restart)) {
      restarts += fmt::format(" ({} ago)", *ago);
    }
  }
  std::string ip;
  const Json& ips = Items(pod, {"status", "podIPs"});
  if (!ips.empty()) ip = Text(At(ips[0], {"ip"}));
  return {Text(At(pod, {"metadata", "name"})),
          fmt::format("{}/{}", progress.ready, total),
          progress.reason,
          restarts,
          Age(pod),
          OrNone(ip),
          OrNone(Text(At(pod, {"spec", "nodeName"}))),
          OrNone(Text(At(pod, {"status", "nominatedNodeName"}))),
          ReadinessGates(pod)};
}

std::string ClaimState(const Json& claim) {
  std::vector<std::string> states;
  if (!At(claim, {"metadata", "deletionTimestamp"}).is_null()) {
    states.push_back("deleted");
  }
  const Json& allocation = At(claim, {"status", "allocation"});
  if (allocation.is_null()) {
    states.push_back("pending");
  } else {
    states.push_back("allocated");
    const Json& reserved = At(claim, {"status", "reservedFor"});
    states.push_back(reserved.is_array() && !reserved.empty() ? "reserved"
                                                              : "");
    if (states.back().empty()) states.pop_back();
  }
  std::string out;
  for (const std::string& s : states) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

// kubectl's REQUEST and LIMIT of a ResourceQuota: "name: used/hard" for
// every resource of status.hard in name order, the "limits." ones in LIMIT.
Json ResourceQuotaCells(const std::string& name, const Json& object) {
  std::vector<std::string> requests;
  std::vector<std::string> limits;
  const Json& hard = At(object, {"status", "hard"});
  const Json& used = At(object, {"status", "used"});
  if (hard.is_object()) {
    std::vector<std::string> resources;
    for (const auto& [resource, value] : hard.items()) {
      resources.push_back(resource);
    }
    std::sort(resources.begin(), resources.end());
    for (const std::string& resource : resources) {
      std::string used_text = Text(At(used, {resource}));
      if (used_text.empty()) used_text = "0";
      std::string entry =
          fmt::format("{}: {}/{}", resource, used_text, Text(hard[resource]));
      (resource.starts_with("limits.") ? limits : requests)
          .push_back(std::move(entry));
    }
  }
  return {name, Age(object), fmt::format("{}", fmt::join(requests, ", ")),
          fmt::format("{}", fmt::join(limits, ", "))};
}

// NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS of a (Cluster)RoleBinding;
// subject lists joined with ", ", service accounts as namespace/name.
Json BindingCells(const std::string& name, const Json& binding) {
  std::string users, groups, service_accounts;
  auto append = [](std::string& list, const std::string& item) {
    if (!list.empty()) list += ", ";
    list += item;
  };
  const Json& subjects = At(binding, {"subjects"});
  if (subjects.is_array()) {
    for (const Json& subject : subjects) {
      const std::string kind = Text(At(subject, {"kind"}));
      const std::string subject_name = Text(At(subject, {"name"}));
      if (kind == "User") append(users, subject_name);
      if (kind == "Group") append(groups, subject_name);
      if (kind == "ServiceAccount") {
        append(service_accounts,
               Text(At(subject, {"namespace"})) + "/" + subject_name);
      }
    }
  }
  return {name,
          Text(At(binding, {"roleRef", "kind"})) + "/" +
              Text(At(binding, {"roleRef", "name"})),
          Age(binding),
          users,
          groups,
          service_accounts};
}

// NAME DRIVER TOTAL AVAILABLE ALLOCATED UNAVAILABLE ERRORS POOLS STATUS
// COMPLETED of a ResourcePoolStatusRequest. The counts are sums over
// status.pools (a pool without a count adds 0) and are shown only for a
// Complete answer; a pending or failed request shows "-" for them. POOLS is
// status.poolCount, "-" before an answer.
Json PoolStatusRequestCells(const std::string& name, const Json& request) {
  constexpr std::string_view kNone = "-";
  const Json& status = At(request, {"status"});
  std::string state = "Pending";
  std::string completed(kNone);
  for (const Json& condition : Items(status, {"conditions"})) {
    const std::string type = Text(At(condition, {"type"}));
    if ((type == "Complete" || type == "Failed") &&
        Text(At(condition, {"status"})) == "True") {
      state = type;
      completed = Since(Text(At(condition, {"lastTransitionTime"})))
                      .value_or("<unknown>");
      break;
    }
  }
  const Json& pool_count = At(status, {"poolCount"});
  std::string pools(kNone);
  if (pool_count.is_number_integer())
    pools = std::to_string(Integer(pool_count));
  std::vector<std::string> counts(5, std::string(kNone));
  if (state == "Complete") {
    int64_t total = 0, available = 0, allocated = 0, unavailable = 0;
    int64_t errors = 0;
    const Json& listed = Items(status, {"pools"});
    for (const Json& pool : listed) {
      total += Integer(At(pool, {"totalDevices"}));
      available += Integer(At(pool, {"availableDevices"}));
      allocated += Integer(At(pool, {"allocatedDevices"}));
      unavailable += Integer(At(pool, {"unavailableDevices"}));
      if (At(pool, {"validationError"}).is_string()) ++errors;
    }
    counts = {std::to_string(total), std::to_string(available),
              std::to_string(allocated), std::to_string(unavailable),
              std::to_string(errors)};
    const int64_t matching = Integer(pool_count);
    if (static_cast<int64_t>(listed.size()) < matching) {
      state = fmt::format("Complete ({}/{} pools)", listed.size(), matching);
    }
  }
  return {name,      Text(At(request, {"spec", "driver"})),
          counts[0], counts[1],
          counts[2], counts[3],
          counts[4], pools,
          state,     completed};
}

// The number of entries of the list or map `member` of `object`.
int64_t MemberCount(const Json& object, std::string_view member) {
  const Json& value = At(object, {member});
  return value.is_object() || value.is_array()
             ? static_cast<int64_t>(value.size())
             : 0;
}

// 1.30's claim state: deleted, pending (not when deleted) or allocated,
// then reserved, or deallocating when deleted or deallocationRequested.
std::string ClassicClaimState(const Json& claim) {
  std::vector<std::string_view> states;
  const bool deleted = !At(claim, {"metadata", "deletionTimestamp"}).is_null();
  if (deleted) states.push_back("deleted");
  if (At(claim, {"status", "allocation"}).is_null()) {
    if (!deleted) states.push_back("pending");
  } else {
    states.push_back("allocated");
    const Json& reserved = At(claim, {"status", "reservedFor"});
    if (reserved.is_array() && !reserved.empty()) {
      states.push_back("reserved");
    } else if (deleted ||
               At(claim, {"status", "deallocationRequested"}) == true) {
      states.push_back("deallocating");
    }
  }
  return fmt::format("{}", fmt::join(states, ","));
}

Json ClassicCells(std::string_view kind, const Json& object) {
  const std::string name = Text(At(object, {"metadata", "name"}));
  if (kind == "ResourceClass") {
    return {name, Text(At(object, {"driverName"})), Age(object)};
  }
  if (kind == "ResourceClaim") {
    return {name, Text(At(object, {"spec", "resourceClassName"})),
            Text(At(object, {"spec", "allocationMode"})),
            ClassicClaimState(object), Age(object)};
  }
  if (kind == "ResourceClaimTemplate") {
    return {name, Text(At(object, {"spec", "spec", "resourceClassName"})),
            Text(At(object, {"spec", "spec", "allocationMode"})), Age(object)};
  }
  if (kind == "PodSchedulingContext") {
    return {name, Text(At(object, {"spec", "selectedNode"})), Age(object)};
  }
  if (kind == "ResourceSlice") {
    std::string node = Text(At(object, {"nodeName"}));
    return {name, node.empty() ? "<none>" : node,
            Text(At(object, {"driverName"})), Age(object)};
  }
  return {name, Age(object)};
}

Json Cells(std::string_view kind, const Json& object) {
  const std::string name = Text(At(object, {"metadata", "name"}));
  if (kind == "ResourceClaim") return {name, ClaimState(object), Age(object)};
  if (kind == "ResourceSlice") {
    std::string node = Text(At(object, {"spec", "nodeName"}));
    return {name, node.empty() ? "<none>" : node,
            Text(At(object, {"spec", "driver"})),
            Text(At(object, {"spec", "pool", "name"})), Age(object)};
  }
  if (kind == "Pod") return PodCells(object);
  if (kind == "ResourcePoolStatusRequest") {
    return PoolStatusRequestCells(name, object);
  }
  if (kind == "Namespace") {
    return {name, Text(At(object, {"status", "phase"})), Age(object)};
  }
  if (kind == "Node") return NodeCells(object);
  if (kind == "ResourceQuota") return ResourceQuotaCells(name, object);
  if (kind == "Lease") {
    return {name, Text(At(object, {"spec", "holderIdentity"})), Age(object)};
  }
  if (kind == "Role" || kind == "ClusterRole") {
    return {name, Text(At(object, {"metadata", "creationTimestamp"}))};
  }
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    return BindingCells(name, object);
  }
  if (kind == "ServiceAccount") {
    return {name, MemberCount(object, "secrets"), Age(object)};
  }
  if (kind == "Secret") {
    return {name, Text(At(object, {"type"})), MemberCount(object, "data"),
            Age(object)};
  }
  if (kind == "ConfigMap") {
    return {name,
            MemberCount(object, "data") + MemberCount(object, "binaryData"),
            Age(object)};
  }
  if (kind == "Event") {
    std::string last = Text(At(object, {"lastTimestamp"}));
    if (last.empty()) last = Text(At(object, {"eventTime"}));
    Json stamped = {{"metadata", {{"creationTimestamp", last}}}};
    const std::string involved_kind =
        Text(At(object, {"involvedObject", "kind"}));
    std::string lower(involved_kind);
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    return {last.empty() ? Age(object) : Age(stamped),
            Text(At(object, {"type"})),
            Text(At(object, {"reason"})),
            lower + "/" + Text(At(object, {"involvedObject", "name"})),
            Text(At(object, {"message"})),
            name};
  }
  return {name, Age(object)};
}

// The row condition upstream's printPod gives finished pods.
void AddPodRowConditions(const Json& pod, Json& row) {
  const std::string phase = Text(At(pod, {"status", "phase"}));
  if (phase != "Succeeded" && phase != "Failed") return;
  row["conditions"] = Json::array(
      {{{"type", "Completed"},
        {"status", "True"},
        {"reason", phase},
        {"message", phase == "Succeeded" ? "The pod has completed successfully."
                                         : "The pod failed."}}});
}

}  // namespace

bool WantsTable(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

std::string HumanDuration(std::chrono::seconds age) {
  const int64_t s = age.count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return fmt::format("{}s", s);
  const int64_t m = s / 60;
  if (m < 10) {
    return s % 60 == 0 ? fmt::format("{}m", m)
                       : fmt::format("{}m{}s", m, s % 60);
  }
  if (m < 180) return fmt::format("{}m", m);
  const int64_t h = m / 60;
  if (h < 8) {
    return m % 60 == 0 ? fmt::format("{}h", h)
                       : fmt::format("{}h{}m", h, m % 60);
  }
  if (h < 48) return fmt::format("{}h", h);
  const int64_t d = h / 24;
  if (h < 24 * 8) {
    return h % 24 == 0 ? fmt::format("{}d", d)
                       : fmt::format("{}d{}h", d, h % 24);
  }
  if (d < 365 * 2) return fmt::format("{}d", d);
  const int64_t y = d / 365;
  if (d < 365 * 8) return fmt::format("{}y{}d", y, d % 365);
  return fmt::format("{}y", y);
}

Json MakeTable(const api::ResourceInfo& info,
               const std::vector<std::string>& objects,
               const Json& list_metadata) {
  Json columns = Json::array();
  const bool classic = info.IsClassic();
  for (const Column& column :
       classic ? ClassicColumnsFor(info.kind) : ColumnsFor(info.kind)) {
    columns.push_back({{"name", column.name},
                       {"type", column.type},
                       {"format", column.name == "Name" ? "name" : ""},
                       {"description", column.description},
                       {"priority", column.priority}});
  }
  Json rows = Json::array();
  for (const std::string& text : objects) {
    Json object = Json::parse(text, nullptr, false);
    if (object.is_discarded()) continue;
    Json row = {{"cells", classic ? ClassicCells(info.kind, object)
                                  : Cells(info.kind, object)}};
    if (info.kind == "Pod") AddPodRowConditions(object, row);
    row["object"] = {{"kind", "PartialObjectMetadata"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", object["metadata"]}};
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", columns},
          {"rows", rows}};
}

}  // namespace dralloc::apiserver
