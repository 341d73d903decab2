// ProcessRuntime with `/bin/sh -c` commands: container states and pod phase
// as the kubelet writes them, restart policies, env (pod env, then CDI env),
// init containers, stopping with SIGTERM then SIGKILL, logs.
#include "node/process_runtime.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/subprocess.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;

api::Container Shell(std::string name, std::string script,
                     json env = json::array()) {
  api::Container container;
  container.name = std::move(name);
  container.image = "busybox";
  SetUnknownField(container.unknown_fields, "command",
                  json::array({"sh", "-c", script}).dump());
  if (!env.empty())
    SetUnknownField(container.unknown_fields, "env", env.dump());
  return container;
}

api::Pod MakePod(std::string name, std::string restart_policy,
                 std::vector<api::Container> containers,
                 std::vector<api::Container> init = {}) {
  api::Pod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = name;
  pod.metadata.uid = "uid-" + name;
  pod.spec.node_name = "node-a";
  pod.spec.containers = std::move(containers);
  pod.spec.init_containers = std::move(init);
  if (!restart_policy.empty()) {
    SetUnknownField(pod.spec.unknown_fields, "restartPolicy",
                    json(restart_policy).dump());
  }
  return pod;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ProcessRuntimeTest : public ::testing::Test {
 protected:
  ProcessRuntimeTest() {
    runtime_ = std::make_unique<ProcessRuntime>(Options());
  }
  ProcessRuntimeOptions Options() const {
    ProcessRuntimeOptions options;
    options.node_name = "node-a";
    options.logs_root = dir_.path();
    options.restart_backoff_initial = 1s;
    options.restart_backoff_max = 2s;
    options.poll_interval = 5ms;
    return options;
  }

  void Start(const api::Pod& pod, std::vector<ContainerDevices> devices = {}) {
    std::vector<std::string> warnings;
    ASSERT_TRUE(runtime_->StartPod(pod, devices, warnings).ok());
    warnings_ = warnings;
  }
  api::PodStatus Status(const api::Pod& pod) { return runtime_->StatusOf(pod); }
  json Containers(const api::Pod& pod,
                  const char* field = "containerStatuses") {
    api::PodStatus status = Status(pod);
    const api::RawJson* raw = FindUnknownField(status.unknown_fields, field);
    return raw == nullptr ? json::array() : json::parse(raw->json);
  }
  bool WaitPhase(const api::Pod& pod, const std::string& phase) {
    return WaitFor([&] { return Status(pod).phase == phase; }, 10s);
  }
  std::string Log(const api::Pod& pod, const std::string& container,
                  bool previous = false) {
    auto ref = runtime_->LogOf(pod.metadata.namespace_, pod.metadata.name,
                               container, previous);
    return ref.ok() ? ReadFile(ref->path) : "<" + ref.status().message() + ">";
  }
  // A new runtime over the same directory: the agent restarted.
  void RestartRuntime() {
    runtime_.reset();
    runtime_ = std::make_unique<ProcessRuntime>(Options());
  }
  void StopAll(const api::Pod& pod) {
    EXPECT_TRUE(
        WaitFor([&] { return runtime_->StopPod(pod.metadata.uid, 0s); }, 5s));
  }

  TempDir dir_;
  std::unique_ptr<ProcessRuntime> runtime_;
  std::vector<std::string> warnings_;
};

TEST_F(ProcessRuntimeTest, ExitZeroIsCompletedAndPodSucceeded) {
  api::Pod pod = MakePod("ok", "Never", {Shell("main", "echo hello")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  json c = Containers(pod)[0];
  EXPECT_EQ(c["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(c["state"]["terminated"]["exitCode"], 0);
  EXPECT_TRUE(c["state"]["terminated"].contains("startedAt"));
  EXPECT_TRUE(c["state"]["terminated"].contains("finishedAt"));
  EXPECT_EQ(c["ready"], false);
  EXPECT_EQ(c["restartCount"], 0);
  EXPECT_EQ(Log(pod, "main"), "hello\n");
  EXPECT_TRUE(std::filesystem::exists(dir_.path() +
                                      "/pods/default_ok_uid-ok/main/0.log"));
  for (const api::PodCondition& condition : Status(pod).conditions) {
    if (condition.type == "Ready") {
      EXPECT_EQ(condition.status, "False");
      EXPECT_EQ(condition.reason, "PodCompleted");
    }
  }
}

TEST_F(ProcessRuntimeTest, ExitThreeIsErrorAndPodFailed) {
  api::Pod pod = MakePod("bad", "Never", {Shell("main", "echo oops; exit 3")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Failed"));
  json c = Containers(pod)[0];
  EXPECT_EQ(c["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(c["state"]["terminated"]["exitCode"], 3);
}

TEST_F(ProcessRuntimeTest, RunningContainerIsReadyAndPodRunning) {
  api::Pod pod = MakePod("run", "", {Shell("main", "sleep 30")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Running"));
  json c = Containers(pod)[0];
  EXPECT_TRUE(c["state"]["running"].contains("startedAt"));
  EXPECT_EQ(c["ready"], true);
  StopAll(pod);
}

TEST_F(ProcessRuntimeTest, OnFailureRestartsUntilSuccess) {
  // Fails twice (exit 1), then succeeds; counts in the pod directory.
  api::Pod pod =
      MakePod("retry", "OnFailure",
              {Shell("main",
                     "n=$(cat count 2>/dev/null || echo 0); echo run $n; "
                     "echo $((n+1)) > count; [ $n -ge 2 ]")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  json c = Containers(pod)[0];
  EXPECT_EQ(c["restartCount"], 2);
  EXPECT_EQ(c["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(c["lastState"]["terminated"]["reason"], "Error");
  EXPECT_EQ(Log(pod, "main"), "run 2\n");
  EXPECT_EQ(Log(pod, "main", /*previous=*/true), "run 1\n");
}

TEST_F(ProcessRuntimeTest, AlwaysRestartsWithCrashLoopBackOff) {
  api::Pod pod = MakePod("loop", "Always", {Shell("main", "exit 0")});
  Start(pod);
  // First restart at once, the second after the 1 s backoff: waiting
  // CrashLoopBackOff in between, the pod Running.
  ASSERT_TRUE(WaitFor(
      [&] {
        json c = Containers(pod)[0];
        return c["state"].contains("waiting") &&
               c["state"]["waiting"]["reason"] == "CrashLoopBackOff";
      },
      10s));
  EXPECT_EQ(Status(pod).phase, "Running");
  json c = Containers(pod)[0];
  EXPECT_GE(c["restartCount"].get<int>(), 1);
  EXPECT_EQ(c["lastState"]["terminated"]["reason"], "Completed");
  EXPECT_TRUE(c["state"]["waiting"]["message"].get<std::string>().starts_with(
      "back-off 1s restarting failed container=main "
      "pod=loop_default(uid-loop)"))
      << c;
  StopAll(pod);
}

TEST_F(ProcessRuntimeTest, NeverDoesNotRestart) {
  api::Pod pod =
      MakePod("never", "Never", {Shell("a", "exit 0"), Shell("b", "exit 1")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Failed"));
  for (const json& c : Containers(pod)) EXPECT_EQ(c["restartCount"], 0);
}

TEST_F(ProcessRuntimeTest, EnvIsPodEnvThenCdiEnv) {
  json env = json::array(
      {{{"name", "A"}, {"value", "pod"}},
       {{"name", "B"}, {"value", "pod"}},
       {{"name", "C"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "x"}}}}}}});
  api::Pod pod = MakePod(
      "env", "Never",
      {Shell("main", "echo A=$A B=$B GPU=$GPU C=${C-unset} HOST=$HOSTNAME",
             env)});
  ContainerDevices devices{"main", {"gpu.example.com/gpu=gpu-0"}, {}};
  devices.edits.env = {"B=cdi", "GPU=gpu-0"};
  devices.edits.mounts.push_back({});
  Start(pod, {devices});
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  EXPECT_EQ(Log(pod, "main"), "A=pod B=cdi GPU=gpu-0 C=unset HOST=env\n");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("spec.containers[main].env[2].valueFrom (C)"),
            std::string::npos)
      << warnings_[0];
}

TEST_F(ProcessRuntimeTest, DependentVariablesAreExpandedAsTheKubeletDoes) {
  json env = json::array({{{"name", "A"}, {"value", "a"}},
                          {{"name", "B"}, {"value", "$(A)-b-$(NONE)"}}});
  api::Container container = Shell("main", "", env);
  SetUnknownField(
      container.unknown_fields, "command",
      json::array({"sh", "-c", "echo \"$0|$1|$B\"", "$(B)", "$$(A)"}).dump());
  api::Pod pod = MakePod("expand", "Never", {container});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  EXPECT_EQ(Log(pod, "main"), "a-b-$(NONE)|$(A)|a-b-$(NONE)\n");
}

TEST_F(ProcessRuntimeTest, MissingCommandIsCreateContainerError) {
  api::Container container;
  container.name = "main";
  container.image = "nginx";
  api::Pod pod = MakePod("nocmd", "Never", {container});
  Start(pod);
  json c = Containers(pod)[0];
  EXPECT_EQ(c["state"]["waiting"]["reason"], "CreateContainerError");
  EXPECT_NE(c["state"]["waiting"]["message"].get<std::string>().find(
                "spec.containers[main].command: Required value"),
            std::string::npos);
  EXPECT_EQ(Status(pod).phase, "Pending");
  EXPECT_TRUE(runtime_->StopPod(pod.metadata.uid, 0s));
}

TEST_F(ProcessRuntimeTest, InitContainersRunFirstInOrder) {
  api::Pod pod = MakePod("init", "Never", {Shell("main", "cat order")},
                         {Shell("one", "sleep 0.1; echo one >> order"),
                          Shell("two", "echo two >> order")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  EXPECT_EQ(Log(pod, "main"), "one\ntwo\n");
  json init = Containers(pod, "initContainerStatuses");
  ASSERT_EQ(init.size(), 2u);
  EXPECT_EQ(init[0]["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(init[1]["state"]["terminated"]["reason"], "Completed");
}

TEST_F(ProcessRuntimeTest, FailedInitContainerWithNeverFailsThePod) {
  api::Pod pod = MakePod("initfail", "Never", {Shell("main", "echo no")},
                         {Shell("one", "exit 2")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Failed"));
  EXPECT_EQ(Containers(pod)[0]["state"]["waiting"]["reason"],
            "PodInitializing");
}

TEST_F(ProcessRuntimeTest, StopSendsSigtermAndRemovesThePodDirectory) {
  const std::string marker = dir_.path() + "/term-marker";
  api::Pod pod =
      MakePod("term", "Always",
              {Shell("main", "trap 'echo got SIGTERM >" + marker +
                                 "; exit 0' TERM; echo up; "
                                 "while true; do sleep 0.05; done")});
  Start(pod);
  ASSERT_TRUE(WaitFor([&] { return Log(pod, "main") == "up\n"; }, 10s));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(
      WaitFor([&] { return runtime_->StopPod(pod.metadata.uid, 20s); }, 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  // The shell's `sleep` (same process group) gets SIGTERM too.
  EXPECT_EQ(ReadFile(marker), "got SIGTERM\n");
  EXPECT_FALSE(
      std::filesystem::exists(dir_.path() + "/pods/default_term_uid-term"));
  EXPECT_EQ(runtime_->StateVersion(pod.metadata.uid), 0u);  // forgotten
}

// The agent restarts while a container runs: the restarted agent's pod
// (whose status still says Running) continues from that status.
TEST_F(ProcessRuntimeTest, AfterAnAgentRestartTheRestartCountContinues) {
  api::Pod pod =
      MakePod("keep", "Always",
              {Shell("main", "echo run; while true; do sleep 0.05; done")});
  Start(pod);
  ASSERT_TRUE(WaitFor([&] { return Log(pod, "main") == "run\n"; }, 10s));
  pod.status = Status(pod);
  RestartRuntime();
  Start(pod);
  ASSERT_TRUE(WaitFor([&] { return Log(pod, "main") == "run\n"; }, 10s));
  json c = Containers(pod)[0];
  EXPECT_EQ(c["restartCount"], 1);
  EXPECT_TRUE(c["state"].contains("running")) << c.dump();
  EXPECT_EQ(c["lastState"]["terminated"]["reason"], "ContainerStatusUnknown");
  EXPECT_EQ(c["lastState"]["terminated"]["exitCode"], 137);
  EXPECT_EQ(Log(pod, "main", /*previous=*/true), "run\n");  // 0.log
  EXPECT_TRUE(std::filesystem::exists(
      dir_.path() + "/pods/default_keep_uid-keep/main/1.log"));
  StopAll(pod);
}

TEST_F(ProcessRuntimeTest, AfterAnAgentRestartNeverPodsFailAndDoneInitIsKept) {
  api::Pod pod =
      MakePod("once", "Never",
              {Shell("main", "echo main; while true; do sleep 0.05; done")},
              {Shell("init", "echo init")});
  Start(pod);
  ASSERT_TRUE(WaitFor([&] { return Log(pod, "main") == "main\n"; }, 10s));
  pod.status = Status(pod);
  RestartRuntime();
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Failed"));
  json c = Containers(pod)[0];
  EXPECT_EQ(c["state"]["terminated"]["reason"], "ContainerStatusUnknown");
  EXPECT_EQ(c["restartCount"], 0);
  json init = Containers(pod, "initContainerStatuses")[0];
  EXPECT_EQ(init["state"]["terminated"]["reason"], "Completed");
  EXPECT_FALSE(std::filesystem::exists(
      dir_.path() + "/pods/default_once_uid-once/init/1.log"));  // not rerun
}

// A process group left running by an agent that died (kill -9 reaches only
// the group leader through PR_SET_PDEATHSIG) is killed by the next runtime;
// a recorded group whose leader pid now belongs to another process (other
// start time) is left alone.
TEST_F(ProcessRuntimeTest, LeftoverProcessGroupsAreKilledAtStart) {
  auto start_group = [&](const std::string& pod, bool right_start_time) {
    SubprocessOptions options;
    options.argv = {"/bin/sh", "-c", "sleep 100 & wait"};
    options.new_process_group = true;
    options.terminate_with_parent = false;
    auto group = Subprocess::Start(options);
    EXPECT_TRUE(group.ok());
    const pid_t pgid = (*group)->pid();
    const std::optional<uint64_t> started = ProcessStartTime(pgid);
    EXPECT_TRUE(started.has_value());
    const std::string dir = dir_.path() + "/pods/" + pod + "/main";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/pgid")
        << pgid << " " << (*started + (right_start_time ? 0 : 1)) << "\n";
    return std::move(*group);
  };
  std::unique_ptr<Subprocess> left = start_group("default_a_uid-a", true);
  std::unique_ptr<Subprocess> other = start_group("default_b_uid-b", false);
  RestartRuntime();
  ASSERT_TRUE(WaitFor([&] { return left->exit_status().has_value(); }, 5s));
  EXPECT_TRUE(WIFSIGNALED(*left->exit_status()));
  EXPECT_EQ(WTERMSIG(*left->exit_status()), SIGKILL);
  EXPECT_FALSE(
      std::filesystem::exists(dir_.path() + "/pods/default_a_uid-a/main/pgid"));
  EXPECT_FALSE(other->exit_status().has_value());  // not ours: untouched
  other->Signal(SIGKILL);
}

TEST_F(ProcessRuntimeTest, StopKillsAfterTheGracePeriod) {
  api::Pod pod = MakePod(
      "stubborn", "Always",
      {Shell("main",
             "trap '' TERM; echo up; while true; do sleep 0.05; done")});
  Start(pod);
  ASSERT_TRUE(WaitFor([&] { return Log(pod, "main") == "up\n"; }, 10s));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(runtime_->StopPod(pod.metadata.uid, 1s));
  ASSERT_TRUE(
      WaitFor([&] { return runtime_->StopPod(pod.metadata.uid, 1s); }, 10s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 900ms);
}

TEST_F(ProcessRuntimeTest, ChangeListenerHearsExits) {
  std::atomic<int> calls{0};
  runtime_->SetChangeListener([&](const std::string& key) {
    if (key == "default/quick") ++calls;
  });
  api::Pod pod = MakePod("quick", "Never", {Shell("main", "true")});
  const uint64_t before = runtime_->StateVersion(pod.metadata.uid);
  Start(pod);
  EXPECT_TRUE(WaitFor([&] { return calls.load() > 0; }, 10s));
  EXPECT_NE(runtime_->StateVersion(pod.metadata.uid), before);
  runtime_->SetChangeListener({});
}

TEST_F(ProcessRuntimeTest, PreviousLogOfAFirstRunIsNotFound) {
  api::Pod pod = MakePod("first", "Never", {Shell("main", "true")});
  Start(pod);
  ASSERT_TRUE(WaitPhase(pod, "Succeeded"));
  auto ref = runtime_->LogOf("default", "first", "main", true);
  ASSERT_FALSE(ref.ok());
  EXPECT_EQ(ref.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(runtime_->LogOf("default", "first", "other", false).ok());
  EXPECT_FALSE(runtime_->LogOf("default", "nope", "main", false).ok());
}

}  // namespace
}  // namespace dralloc::node
