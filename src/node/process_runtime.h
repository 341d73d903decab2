// ProcessRuntime (`--runtime process`): each container's command + args runs
// as a local process, WITHOUT ANY ISOLATION (same user, filesystem and
// network as the node agent). For local development only; never the
// default.
//
// A container's environment is PATH (the agent's) and HOSTNAME (the pod's
// name), then its env[].value entries, then the CDI env of its devices
// (later wins, as a runtime applies CDI edits). env[].valueFrom, device
// nodes, mounts and hooks cannot be applied without isolation: they are
// reported as warnings (env) or logged once per container (CDI edits).
// The working directory is the container's workingDir, else the pod's
// directory. A container without `command` cannot run here (no image
// entrypoints): it waits with reason CreateContainerError.
//
// Init containers run first, in order, each to completion; then all
// containers at once. Exits set container states as the kubelet writes
// them (terminated Completed|Error, restartCount, lastState,
// CrashLoopBackOff while waiting to restart with exponential backoff) and
// spec.restartPolicy (Always, OnFailure, Never) decides restarts and the
// pod phase. stdout and stderr of each run go to
// <logs_root>/pods/<namespace>_<name>_<uid>/<container>/<restart>.log.
//
// A pod started again after the agent restarted (its status already lists
// container statuses) continues from them: a container that was running
// lost its process with the agent, so it ends as terminated with reason
// ContainerStatusUnknown (exit code 137) and restarts as its
// restartPolicy says, with restartCount continued (logs of earlier runs
// stay readable with --previous); containers that had terminated for good,
// and init containers that had succeeded, are not run again. Each
// container's process group is recorded beside its logs (`pgid`: group id
// and start time); a new ProcessRuntime kills leftover groups of an agent
// that died (kill -9 leaves the grandchildren of a container running). A
// pod's directory is removed once StopPod finished.
//
// One thread watches the processes (every 20 ms) and calls the change
// listener with the pod's key after a state changed.
#ifndef DRALLOC_NODE_PROCESS_RUNTIME_H_
#define DRALLOC_NODE_PROCESS_RUNTIME_H_

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/subprocess.h"
#include "node/container_runtime.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {

struct ProcessRuntimeOptions {
  std::string node_name;
  std::string host_ip = "127.0.0.1";
  std::filesystem::path logs_root;  // logs under logs_root/pods/...
  // Delay before the second restart of a container; doubled after each
  // restart up to the maximum (the first restart is immediate).
  std::chrono::milliseconds restart_backoff_initial{10000};
  std::chrono::milliseconds restart_backoff_max{300000};
  std::chrono::milliseconds poll_interval{20};
};

class ProcessRuntime : public ContainerRuntime {
 public:
  explicit ProcessRuntime(ProcessRuntimeOptions options);
  ~ProcessRuntime() override;  // kills every process still running
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  void SetChangeListener(ChangeListener listener) override
      EXCLUDES(listener_mu_);
  api::PodStatus CreatingStatus(const api::Pod& pod) const override;
  Status StartPod(const api::Pod& pod,
                  const std::vector<ContainerDevices>& devices,
                  std::vector<std::string>& warnings) override EXCLUDES(mu_);
  uint64_t StateVersion(const std::string& pod_uid) const override
      EXCLUDES(mu_);
  api::PodStatus StatusOf(const api::Pod& pod) const override EXCLUDES(mu_);
  bool StopPod(const std::string& pod_uid, std::chrono::seconds grace) override
      EXCLUDES(mu_);
  StatusOr<ContainerLogRef> LogOf(const std::string& namespace_,
                                  const std::string& name,
                                  const std::string& container,
                                  bool previous) const override EXCLUDES(mu_);

 private:
  struct Terminated {
    int exit_code = 0;
    std::string reason;  // Completed | Error
    std::string message;
    std::string started_at;
    std::string finished_at;
    std::string container_id;
  };
  struct Container {
    std::string name;
    std::string image;
    bool init = false;
    std::vector<std::string> argv;  // empty: cannot run
    std::vector<std::string> env;   // KEY=VALUE, later wins
    std::filesystem::path working_dir;
    std::string create_error;  // set: waiting CreateContainerError
    std::unique_ptr<Subprocess> process;
    std::string container_id;
    std::string started_at;
    int restart_count = 0;  // also the current run's log number
    bool ever_started = false;
    std::optional<Terminated> terminated;  // final: will not restart
    std::optional<Terminated> last;        // the run before (lastState)
    std::optional<std::chrono::steady_clock::time_point> restart_at;
    std::chrono::milliseconds restart_delay{0};  // of the pending restart
  };
  struct Pod {
    std::string key;  // namespace/name
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string restart_policy;         // Always | OnFailure | Never
    std::filesystem::path dir;          // logs_root/pods/<ns>_<name>_<uid>
    std::vector<Container> containers;  // init containers first
    size_t init_count = 0;
    uint64_t version = 1;
    std::optional<std::chrono::steady_clock::time_point> kill_at;
  };

  void Run() EXCLUDES(mu_, listener_mu_);
  // Continues the containers' runs from `status` (see the header comment).
  void AdoptPreviousRuns(const api::PodStatus& status, Pod& pod) const;
  void AdoptPreviousRun(const Pod& pod, const nlohmann::json& previous,
                        Container& c) const;
  // Kills the process groups recorded under logs_root/pods/*/*/pgid whose
  // leader is still the process that was started (same start time).
  void KillLeftoverGroups() const;
  // Reaps exits, starts what is due, kills past the grace period; true when
  // a state changed.
  bool Advance(Pod& pod) REQUIRES(mu_);
  bool ReapExit(Pod& pod, Container& container) REQUIRES(mu_);
  bool StartDue(Pod& pod) REQUIRES(mu_);
  void Launch(Pod& pod, Container& container) REQUIRES(mu_);
  bool WillRestart(const Pod& pod, const Container& container,
                   int exit_code) const;
  // Records `run` as lastState and schedules the next run after the
  // backoff.
  void ScheduleRestart(Container& container, Terminated run) const;
  std::chrono::milliseconds RestartDelay(int restart_count) const;
  Container BuildContainer(const Pod& pod, const api::Container& spec,
                           bool init, const ContainerDevices* devices,
                           std::vector<std::string>& warnings) const;
  std::filesystem::path LogPath(const Pod& pod, const Container& container,
                                int restart) const;
  std::string Phase(const Pod& pod) const REQUIRES(mu_);
  // One entry of status.containerStatuses / initContainerStatuses.
  static nlohmann::json ContainerStatus(const Pod& pod,
                                        const Container& container);
  const Pod* FindPod(const std::string& namespace_,
                     const std::string& name) const REQUIRES(mu_);

  const ProcessRuntimeOptions options_;
  const SimulatedRuntime base_;  // pod IPs and the creating status

  // Held while the listener runs, so that replacing it waits for calls in
  // flight.
  Mutex listener_mu_;
  ChangeListener listener_ GUARDED_BY(listener_mu_);
  mutable Mutex mu_;
  CondVar wake_;
  std::map<std::string, Pod> pods_ GUARDED_BY(mu_);  // by UID
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_PROCESS_RUNTIME_H_
