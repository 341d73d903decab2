#include "node/process_runtime.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/clock.h"
#include "common/log.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
constexpr std::string_view kComponent = "process-runtime";

// A JSON array kept in `fields` under `name` (command, args, env), or an
// empty array.
json KeptArray(const api::UnknownFields& fields, std::string_view name) {
  const api::RawJson* raw = FindUnknownField(fields, name);
  if (raw == nullptr) return json::array();
  json value = json::parse(raw->json, nullptr, false);
  return value.is_array() ? value : json::array();
}

std::string KeptString(const api::UnknownFields& fields,
                       std::string_view name) {
  const api::RawJson* raw = FindUnknownField(fields, name);
  if (raw == nullptr) return "";
  json value = json::parse(raw->json, nullptr, false);
  return value.is_string() ? value.get<std::string>() : "";
}

// The kubelet's exit code of a wait status: the code, or 128 + signal.
int ExitCode(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

api::PodCondition Condition(std::string type, bool status, std::string reason,
                            const std::string& now) {
  api::PodCondition condition;
  condition.type = std::move(type);
  condition.status = status ? "True" : "False";
  condition.last_transition_time = now;
  condition.reason = std::move(reason);
  return condition;
}

json TerminatedJson(const std::optional<std::string>& id, int exit_code,
                    const std::string& reason, const std::string& message,
                    const std::string& started, const std::string& finished) {
  json out = {{"exitCode", exit_code},
              {"reason", reason},
              {"startedAt", started.empty() ? json() : json(started)},
              {"finishedAt", finished}};
  if (!message.empty()) out["message"] = message;
  if (id) out["containerID"] = *id;
  return out;
}

constexpr char kProcessGroupFile[] = "pgid";

// Writes "<pgid> <start time>" to DIR/pgid (best effort: only used to
// clean up after an agent that died).
void RecordProcessGroup(const std::filesystem::path& dir, pid_t pid) {
  std::optional<uint64_t> start = ProcessStartTime(pid);
  if (!start) return;
  std::ofstream(dir / kProcessGroupFile) << pid << " " << *start << "\n";
}

// A duration as Go prints it, to the second above one second: "500ms",
// "10s", "1m20s", "5m0s".
std::string GoDuration(std::chrono::milliseconds delay) {
  const int64_t ms = delay.count();
  if (ms < 1000) return fmt::format("{}ms", ms);
  const int64_t seconds = ms / 1000;
  if (seconds < 60) return fmt::format("{}s", seconds);
  return fmt::format("{}m{}s", seconds / 60, seconds % 60);
}

// $(NAME) becomes NAME's value when NAME is defined (else stays as is) and
// $$ becomes $, as the kubelet expands command, args and env values.
std::string ExpandVars(std::string_view text,
                       const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out.push_back(text[i]);
      continue;
    }
    if (text[i + 1] == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    const size_t close =
        text[i + 1] == '(' ? text.find(')', i + 2) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out.push_back('$');
      continue;
    }
    auto it = vars.find(std::string(text.substr(i + 2, close - i - 2)));
    out += it != vars.end() ? std::string_view(it->second)
                            : text.substr(i, close - i + 1);
    i = close;
  }
  return out;
}

// Appends a container's env[] entries (each value expanded with the ones
// before it) to `env` and `vars`; valueFrom cannot be resolved here and is
// a warning.
void AddContainerEnv(const json& entries, const std::string& field,
                     std::vector<std::string>& env,
                     std::map<std::string, std::string>& vars,
                     std::vector<std::string>& warnings) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].is_object()) continue;
    const std::string name = entries[i].value("name", "");
    if (entries[i].contains("valueFrom")) {
      warnings.push_back(fmt::format(
          "{}.env[{}].valueFrom ({}): not supported by --runtime process; "
          "the variable is not set",
          field, i, name));
      continue;
    }
    const std::string value = ExpandVars(entries[i].value("value", ""), vars);
    env.push_back(name + "=" + value);
    vars[name] = value;
  }
}

}  // namespace

ProcessRuntime::ProcessRuntime(ProcessRuntimeOptions options)
    : options_(std::move(options)),
      base_(options_.node_name, options_.host_ip) {
  log::Warn(kComponent,
            "--runtime process: pod containers run as local processes of "
            "this node agent's user with NO isolation (no namespaces, "
            "cgroups, images, device nodes or mounts); for local "
            "development only");
  KillLeftoverGroups();
  thread_ = std::thread([this] { Run(); });
}

ProcessRuntime::~ProcessRuntime() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
  MutexLock lock(mu_);
  for (auto& [uid, pod] : pods_) {
    for (Container& container : pod.containers) {
      if (container.process) container.process->Signal(SIGTERM);
    }
  }
  for (auto& [uid, pod] : pods_) {
    for (Container& container : pod.containers) {
      if (container.process) container.process->Stop(std::chrono::seconds(2));
    }
  }
}

void ProcessRuntime::SetChangeListener(ChangeListener listener) {
  MutexLock lock(listener_mu_);
  listener_ = std::move(listener);
}

api::PodStatus ProcessRuntime::CreatingStatus(const api::Pod& pod) const {
  return base_.CreatingStatus(pod);
}

std::filesystem::path ProcessRuntime::LogPath(const Pod& pod,
                                              const Container& container,
                                              int restart) const {
  return pod.dir / container.name / (std::to_string(restart) + ".log");
}

ProcessRuntime::Container ProcessRuntime::BuildContainer(
    const Pod& pod, const api::Container& spec, bool init,
    const ContainerDevices* devices, std::vector<std::string>& warnings) const {
  Container out;
  out.name = spec.name;
  out.image = spec.image;
  out.init = init;
  const std::string field = fmt::format(
      "spec.{}[{}]", init ? "initContainers" : "containers", spec.name);
  const char* path = std::getenv("PATH");
  std::map<std::string, std::string> vars = {
      {"PATH", path != nullptr ? path : "/usr/bin:/bin"},
      {"HOSTNAME", pod.name}};
  out.env = {"PATH=" + vars["PATH"], "HOSTNAME=" + pod.name};
  AddContainerEnv(KeptArray(spec.unknown_fields, "env"), field, out.env, vars,
                  warnings);
  for (const char* part_name : {"command", "args"}) {
    for (const json& part : KeptArray(spec.unknown_fields, part_name)) {
      if (part.is_string()) {
        out.argv.push_back(ExpandVars(part.get<std::string>(), vars));
      }
    }
    if (out.argv.empty()) {
      out.create_error = fmt::format(
          "{}.command: Required value: --runtime process runs a container's "
          "command and has no image entrypoint to fall back on",
          field);
      break;
    }
  }
  if (devices != nullptr) {
    const cdi::ContainerEdits& edits = devices->edits;
    out.env.insert(out.env.end(), edits.env.begin(), edits.env.end());
    if (!edits.device_nodes.empty() || !edits.mounts.empty() ||
        !edits.hooks.empty()) {
      log::Warn(kComponent,
                "pod {} container {}: CDI edits not applied without "
                "isolation: {} device node(s), {} mount(s), {} hook(s)",
                pod.key, spec.name, edits.device_nodes.size(),
                edits.mounts.size(), edits.hooks.size());
    }
  }
  const std::string working_dir = KeptString(spec.unknown_fields, "workingDir");
  out.working_dir =
      working_dir.empty() ? pod.dir : std::filesystem::path(working_dir);
  return out;
}

Status ProcessRuntime::StartPod(const api::Pod& spec,
                                const std::vector<ContainerDevices>& devices,
                                std::vector<std::string>& warnings) {
  MutexLock lock(mu_);
  if (pods_.contains(spec.metadata.uid)) return OkStatus();
  Pod pod;
  pod.namespace_ = spec.metadata.namespace_;
  pod.name = spec.metadata.name;
  pod.key = pod.namespace_ + "/" + pod.name;
  pod.uid = spec.metadata.uid;
  pod.restart_policy = KeptString(spec.spec.unknown_fields, "restartPolicy");
  if (pod.restart_policy.empty()) pod.restart_policy = "Always";
  pod.dir = options_.logs_root / "pods" /
            fmt::format("{}_{}_{}", pod.namespace_, pod.name, pod.uid);
  std::error_code ec;
  std::filesystem::create_directories(pod.dir, ec);
  if (ec) {
    return UnavailableError(fmt::format("pod {}: directory {}: {}", pod.key,
                                        pod.dir.string(), ec.message()));
  }
  auto devices_of = [&](const std::string& name) -> const ContainerDevices* {
    for (const ContainerDevices& d : devices) {
      if (d.container == name) return &d;
    }
    return nullptr;
  };
  for (const api::Container& c : spec.spec.init_containers) {
    pod.containers.push_back(
        BuildContainer(pod, c, true, devices_of(c.name), warnings));
  }
  pod.init_count = pod.containers.size();
  for (const api::Container& c : spec.spec.containers) {
    pod.containers.push_back(
        BuildContainer(pod, c, false, devices_of(c.name), warnings));
  }
  AdoptPreviousRuns(spec.status, pod);
  Pod& stored = pods_[pod.uid] = std::move(pod);
  StartDue(stored);
  return OkStatus();
}

void ProcessRuntime::KillLeftoverGroups() const {
  std::error_code ec;
  const std::filesystem::path pods = options_.logs_root / "pods";
  if (!std::filesystem::is_directory(pods, ec)) return;
  for (const auto& pod : std::filesystem::directory_iterator(pods, ec)) {
    for (const auto& container :
         std::filesystem::directory_iterator(pod.path(), ec)) {
      const std::filesystem::path file = container.path() / kProcessGroupFile;
      pid_t pgid = 0;
      uint64_t start = 0;
      if (!(std::ifstream(file) >> pgid >> start) || pgid <= 1) continue;
      std::filesystem::remove(file, ec);
      // A group lives while any member does, and its id is not reused
      // meanwhile; the leader's start time tells a reused pid apart.
      if (::kill(-pgid, 0) != 0) continue;
      std::optional<uint64_t> leader = ProcessStartTime(pgid);
      if (leader && *leader != start) continue;
      ::kill(-pgid, SIGKILL);
      log::Warn(kComponent,
                "killed process group {} left by a previous node agent ({})",
                pgid, container.path().string());
    }
  }
}

void ProcessRuntime::AdoptPreviousRuns(const api::PodStatus& status,
                                       Pod& pod) const {
  using nlohmann::json;
  std::map<std::string, json> previous;  // container name → its status
  for (const char* field : {"initContainerStatuses", "containerStatuses"}) {
    const api::RawJson* raw = FindUnknownField(status.unknown_fields, field);
    if (raw == nullptr) continue;
    json list = json::parse(raw->json, nullptr, /*allow_exceptions=*/false);
    if (!list.is_array()) continue;
    for (json& entry : list) {
      if (entry.is_object() && entry.contains("name") &&
          entry["name"].is_string()) {
        std::string name = entry["name"].get<std::string>();
        previous[name] = std::move(entry);
      }
    }
  }
  for (Container& c : pod.containers) {
    auto it = previous.find(c.name);
    if (it == previous.end()) continue;
    AdoptPreviousRun(pod, it->second, c);
  }
}

void ProcessRuntime::AdoptPreviousRun(const Pod& pod,
                                      const nlohmann::json& previous,
                                      Container& c) const {
  using nlohmann::json;
  // Fields of the wrong type (someone else wrote the status) read as empty.
  auto text = [](const json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>()
                                                 : std::string();
  };
  auto number = [](const json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
  };
  auto member = [](const json& object, const char* key) -> const json* {
    auto it = object.find(key);
    return it != object.end() && it->is_object() ? &*it : nullptr;
  };
  const json* state = member(previous, "state");
  const json* running = state ? member(*state, "running") : nullptr;
  const json* terminated = state ? member(*state, "terminated") : nullptr;
  const int restarts = number(previous, "restartCount");
  if (running == nullptr && terminated == nullptr && restarts == 0) return;
  c.restart_count = restarts;
  c.ever_started = true;
  if (terminated != nullptr) {
    // Ended for good before the restart (a restart would show waiting).
    c.terminated = Terminated{
        number(*terminated, "exitCode"), text(*terminated, "reason"),
        text(*terminated, "message"),    text(*terminated, "startedAt"),
        text(*terminated, "finishedAt"), text(*terminated, "containerID")};
    return;
  }
  // Running, or waiting to restart: its process ended with the agent.
  Terminated lost{137,
                  "ContainerStatusUnknown",
                  "the node agent restarted and the container's process "
                  "ended with it",
                  running != nullptr ? text(*running, "startedAt") : "",
                  NowRfc3339(),
                  text(previous, "containerID")};
  if (WillRestart(pod, c, lost.exit_code)) {
    ScheduleRestart(c, std::move(lost));
  } else {
    c.terminated = std::move(lost);
  }
}

void ProcessRuntime::Launch(Pod& pod, Container& container) {
  const int restart = container.restart_count;
  SubprocessOptions options;
  options.argv = container.argv;
  options.extra_env = container.env;
  options.inherit_env = false;
  options.search_path = true;
  options.working_dir = container.working_dir;
  options.new_process_group = true;
  options.output_file = LogPath(pod, container, restart);
  container.started_at = NowRfc3339();
  container.restart_at.reset();
  container.ever_started = true;
  auto process = Subprocess::Start(options);
  if (!process.ok()) {
    // The kubelet reports a container whose process cannot start as
    // terminated with StartError (exit code 128).
    Terminated failed{128,
                      "StartError",
                      process.status().message(),
                      container.started_at,
                      NowRfc3339(),
                      ""};
    log::Warn(kComponent, "pod {} container {}: {}", pod.key, container.name,
              failed.message);
    if (WillRestart(pod, container, 128)) {
      ScheduleRestart(container, std::move(failed));
    } else {
      container.terminated = failed;
    }
    return;
  }
  container.process = std::move(*process);
  container.container_id =
      fmt::format("process://{}", container.process->pid());
  RecordProcessGroup(pod.dir / container.name, container.process->pid());
  log::Info(kComponent, "pod {} container {} started: pid {}", pod.key,
            container.name, container.process->pid());
}

bool ProcessRuntime::WillRestart(const Pod& pod, const Container& container,
                                 int exit_code) const {
  if (pod.kill_at) return false;  // being stopped
  if (pod.restart_policy == "Never") return false;
  // Init containers that succeeded are done; with Always they restart
  // only on failure (as OnFailure).
  if (pod.restart_policy == "OnFailure" || container.init) {
    return exit_code != 0;
  }
  return true;
}

std::chrono::milliseconds ProcessRuntime::RestartDelay(
    int restart_count) const {
  if (restart_count <= 1) return std::chrono::milliseconds(0);
  auto delay = options_.restart_backoff_initial;
  for (int i = 2; i < restart_count && delay < options_.restart_backoff_max;
       ++i) {
    delay *= 2;
  }
  return std::min(delay, options_.restart_backoff_max);
}

void ProcessRuntime::ScheduleRestart(Container& container,
                                     Terminated run) const {
  container.last = std::move(run);
  ++container.restart_count;
  container.restart_delay = RestartDelay(container.restart_count);
  container.restart_at = SteadyClock::now() + container.restart_delay;
}

bool ProcessRuntime::ReapExit(Pod& pod, Container& container) {
  if (!container.process) return false;
  std::optional<int> wait_status = container.process->exit_status();
  if (!wait_status) return false;
  const int code = ExitCode(*wait_status);
  Terminated done{code,         code == 0 ? "Completed" : "Error",
                  "",           container.started_at,
                  NowRfc3339(), container.container_id};
  log::Info(kComponent, "pod {} container {} {}", pod.key, container.name,
            DescribeWaitStatus(*wait_status));
  container.process.reset();
  if (WillRestart(pod, container, code)) {
    ScheduleRestart(container, std::move(done));
  } else {
    container.terminated = done;
  }
  return true;
}

bool ProcessRuntime::StartDue(Pod& pod) {
  if (pod.kill_at) return false;
  const auto now = SteadyClock::now();
  auto due = [&](const Container& c) {
    if (c.process || c.terminated || !c.create_error.empty()) return false;
    return !c.ever_started || (c.restart_at && *c.restart_at <= now);
  };
  bool changed = false;
  // Init containers one at a time, each to success.
  for (size_t i = 0; i < pod.init_count; ++i) {
    Container& c = pod.containers[i];
    if (c.terminated && c.terminated->exit_code == 0) continue;
    if (c.terminated) return changed;  // failed for good: the pod failed
    if (due(c)) {
      Launch(pod, c);
      changed = true;
    }
    return changed;
  }
  for (size_t i = pod.init_count; i < pod.containers.size(); ++i) {
    Container& c = pod.containers[i];
    if (due(c)) {
      Launch(pod, c);
      changed = true;
    }
  }
  return changed;
}

bool ProcessRuntime::Advance(Pod& pod) {
  bool changed = false;
  for (Container& container : pod.containers) {
    changed |= ReapExit(pod, container);
  }
  if (pod.kill_at && SteadyClock::now() >= *pod.kill_at) {
    for (Container& container : pod.containers) {
      if (container.process) container.process->Signal(SIGKILL);
    }
  }
  changed |= StartDue(pod);
  return changed;
}

void ProcessRuntime::Run() {
  MutexLock lock(mu_);
  while (!stopping_) {
    wake_.WaitFor(mu_, options_.poll_interval,
                  [this]() REQUIRES(mu_) { return stopping_; });
    if (stopping_) return;
    std::vector<std::string> changed;
    for (auto& [uid, pod] : pods_) {
      if (Advance(pod)) {
        ++pod.version;
        changed.push_back(pod.key);
      }
    }
    if (changed.empty()) continue;
    mu_.Unlock();
    {
      MutexLock listener_lock(listener_mu_);
      if (listener_) {
        for (const std::string& key : changed) listener_(key);
      }
    }
    mu_.Lock();
  }
}

uint64_t ProcessRuntime::StateVersion(const std::string& pod_uid) const {
  MutexLock lock(mu_);
  auto it = pods_.find(pod_uid);
  return it == pods_.end() ? 0 : it->second.version;
}

bool ProcessRuntime::StopPod(const std::string& pod_uid,
                             std::chrono::seconds grace) {
  MutexLock lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end()) return true;
  Pod& pod = it->second;
  if (!pod.kill_at) {
    pod.kill_at = SteadyClock::now() + grace;
    log::Info(kComponent, "pod {}: stopping containers (grace {}s)", pod.key,
              grace.count());
    for (Container& container : pod.containers) {
      if (!container.process) continue;
      container.process->Signal(grace.count() > 0 ? SIGTERM : SIGKILL);
    }
  }
  Advance(pod);
  for (const Container& container : pod.containers) {
    if (container.process) return false;
  }
  log::Info(kComponent, "pod {}: containers stopped", pod.key);
  std::error_code ec;
  std::filesystem::remove_all(pod.dir, ec);  // logs go with the pod
  if (ec) {
    log::Warn(kComponent, "pod {}: removing {}: {}", pod.key, pod.dir.string(),
              ec.message());
  }
  pods_.erase(it);
  return true;
}

}  // namespace dralloc::node

namespace dralloc::node {

nlohmann::json ProcessRuntime::ContainerStatus(const Pod& pod,
                                               const Container& c) {
  using nlohmann::json;
  const bool running = c.process != nullptr;
  json status = {{"name", c.name},    {"image", c.image},
                 {"imageID", ""},     {"lastState", json::object()},
                 {"ready", running},  {"restartCount", c.restart_count},
                 {"started", running}};
  if (!c.container_id.empty()) status["containerID"] = c.container_id;
  if (c.last) {
    status["lastState"] = {
        {"terminated",
         TerminatedJson(c.last->container_id.empty()
                            ? std::nullopt
                            : std::optional(c.last->container_id),
                        c.last->exit_code, c.last->reason, c.last->message,
                        c.last->started_at, c.last->finished_at)}};
  }
  if (running) {
    status["state"] = {{"running", {{"startedAt", c.started_at}}}};
  } else if (c.terminated) {
    const Terminated& t = *c.terminated;
    status["state"] = {
        {"terminated",
         TerminatedJson(t.container_id.empty() ? std::nullopt
                                               : std::optional(t.container_id),
                        t.exit_code, t.reason, t.message, t.started_at,
                        t.finished_at)}};
  } else if (!c.create_error.empty()) {
    status["state"] = {
        {"waiting",
         {{"reason", "CreateContainerError"}, {"message", c.create_error}}}};
  } else if (c.restart_at) {
    status["state"] = {
        {"waiting",
         {{"reason", "CrashLoopBackOff"},
          {"message", fmt::format("back-off {} restarting failed container={} "
                                  "pod={}_{}({})",
                                  GoDuration(c.restart_delay), c.name, pod.name,
                                  pod.namespace_, pod.uid)}}}};
  } else {
    status["state"] = {{"waiting", {{"reason", "PodInitializing"}}}};
  }
  return status;
}

// As the kubelet's getPhase: Pending while an init container has not
// succeeded or a container waits to start for the first time; Running
// while one runs or will restart; then Failed if one failed, else
// Succeeded.
std::string ProcessRuntime::Phase(const Pod& pod) const {
  for (size_t i = 0; i < pod.init_count; ++i) {
    const Container& c = pod.containers[i];
    if (c.terminated && c.terminated->exit_code != 0) return "Failed";
    if (!c.terminated) return "Pending";
  }
  int waiting = 0, running = 0, restarting = 0, failed = 0;
  for (size_t i = pod.init_count; i < pod.containers.size(); ++i) {
    const Container& c = pod.containers[i];
    if (c.process) {
      ++running;
    } else if (c.terminated) {
      failed += c.terminated->exit_code != 0 ? 1 : 0;
    } else if (c.last) {
      ++restarting;
    } else {
      ++waiting;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0 || restarting > 0) return "Running";
  return failed > 0 ? "Failed" : "Succeeded";
}

api::PodStatus ProcessRuntime::StatusOf(const api::Pod& spec) const {
  using nlohmann::json;
  api::PodStatus status = base_.RunningStatus(spec);
  MutexLock lock(mu_);
  auto it = pods_.find(spec.metadata.uid);
  if (it == pods_.end()) return status;
  const Pod& pod = it->second;
  const std::string phase = Phase(pod);
  bool initialized = true;
  bool all_running = true;
  json init_statuses = json::array();
  json statuses = json::array();
  for (size_t i = 0; i < pod.containers.size(); ++i) {
    const Container& c = pod.containers[i];
    if (c.init) {
      initialized &= c.terminated && c.terminated->exit_code == 0;
      init_statuses.push_back(ContainerStatus(pod, c));
    } else {
      all_running &= c.process != nullptr;
      statuses.push_back(ContainerStatus(pod, c));
    }
  }
  const bool finished = phase == "Succeeded" || phase == "Failed";
  const std::string not_ready =
      finished ? "PodCompleted" : "ContainersNotReady";
  const std::string now = NowRfc3339();
  std::vector<api::PodCondition> conditions = {
      Condition("PodReadyToStartContainers", true, "", now),
      Condition("Initialized", initialized || finished,
                initialized || finished ? "" : "ContainersNotInitialized", now),
      Condition("Ready", all_running, all_running ? "" : not_ready, now),
      Condition("ContainersReady", all_running, all_running ? "" : not_ready,
                now)};
  MergePodConditions(spec, conditions);
  status.conditions = std::move(conditions);
  status.phase = phase;
  SetUnknownField(status.unknown_fields, "containerStatuses", statuses.dump());
  if (!init_statuses.empty()) {
    SetUnknownField(status.unknown_fields, "initContainerStatuses",
                    init_statuses.dump());
  }
  return status;
}

const ProcessRuntime::Pod* ProcessRuntime::FindPod(
    const std::string& namespace_, const std::string& name) const {
  for (const auto& [uid, pod] : pods_) {
    if (pod.namespace_ == namespace_ && pod.name == name) return &pod;
  }
  return nullptr;
}

StatusOr<ContainerLogRef> ProcessRuntime::LogOf(const std::string& namespace_,
                                                const std::string& name,
                                                const std::string& container,
                                                bool previous) const {
  MutexLock lock(mu_);
  const Pod* pod = FindPod(namespace_, name);
  if (pod == nullptr) {
    return NotFoundError(
        fmt::format("pod \"{}\" in namespace \"{}\" is not running on this "
                    "node",
                    name, namespace_));
  }
  for (const Container& c : pod->containers) {
    if (c.name != container) continue;
    if (!c.ever_started) {
      return FailedPreconditionError(fmt::format(
          "container \"{}\" in pod \"{}\" is waiting to start: {}", container,
          name,
          c.create_error.empty() ? "PodInitializing" : "CreateContainerError"));
    }
    // While waiting to restart, the latest run is the one that exited.
    const bool backing_off = !c.process && c.restart_at.has_value();
    const int latest = c.restart_count - (backing_off ? 1 : 0);
    if (previous) {
      if (latest == 0) {
        return NotFoundError(fmt::format(
            "previous terminated container \"{}\" in pod \"{}\" not found",
            container, name));
      }
      return ContainerLogRef{LogPath(*pod, c, latest - 1), false};
    }
    return ContainerLogRef{LogPath(*pod, c, latest), c.process != nullptr};
  }
  return NotFoundError(
      fmt::format("container \"{}\" in pod \"{}\" not found", container, name));
}

}  // namespace dralloc::node
