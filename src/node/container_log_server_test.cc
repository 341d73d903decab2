// The container log endpoint over real TCP against a ProcessRuntime:
// whole logs, tailLines, previous, follow (bounded by the run's end) and
// errors.
#include "node/container_log_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "node/node_test_util.h"
#include "node/process_runtime.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;

struct Reply {
  int code = 0;
  std::string headers;
  std::string body;
};

// The body of a chunked response, decoded.
std::string Dechunk(std::string_view data) {
  std::string out;
  while (!data.empty()) {
    const size_t eol = data.find("\r\n");
    if (eol == std::string_view::npos) break;
    const size_t size =
        std::stoul(std::string(data.substr(0, eol)), nullptr, 16);
    if (size == 0) break;
    out += data.substr(eol + 2, size);
    data.remove_prefix(std::min(data.size(), eol + 2 + size + 2));
  }
  return out;
}

// GET `target` on 127.0.0.1:`port`, reading until the server closes (10 s
// at most).
Reply Get(uint16_t port, const std::string& target) {
  Reply reply;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return reply;
  }
  const std::string request =
      "GET " + target + " HTTP/1.1\r\nHost: node\r\n\r\n";
  (void)!::write(fd, request.data(), request.size());
  std::string data;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) data.append(buffer, n);
  ::close(fd);
  const size_t end = data.find("\r\n\r\n");
  if (end == std::string::npos) return reply;
  reply.code = std::atoi(data.c_str() + 9);
  reply.headers = data.substr(0, end);
  reply.body = data.substr(end + 4);
  if (reply.headers.find("Transfer-Encoding: chunked") != std::string::npos) {
    reply.body = Dechunk(reply.body);
  }
  return reply;
}

api::Pod ShellPod(std::string name, std::string restart_policy,
                  std::string script) {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = name;
  pod.metadata.uid = "uid-" + name;
  api::Container container;
  container.name = "c";
  SetUnknownField(container.unknown_fields, "command",
                  json::array({"sh", "-c", script}).dump());
  pod.spec.containers.push_back(container);
  SetUnknownField(pod.spec.unknown_fields, "restartPolicy",
                  json(restart_policy).dump());
  return pod;
}

class ContainerLogServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProcessRuntimeOptions options;
    options.node_name = "node-a";
    options.logs_root = dir_.path();
    options.restart_backoff_initial = 30s;
    options.poll_interval = 5ms;
    runtime_ = std::make_unique<ProcessRuntime>(options);
    server_ = std::make_unique<ContainerLogServer>(
        *runtime_, ContainerLogServerOptions{"127.0.0.1", 0, 10ms});
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    server_->Stop();
    runtime_.reset();
  }
  void Run(const api::Pod& pod) {
    std::vector<std::string> warnings;
    ASSERT_TRUE(runtime_->StartPod(pod, {}, warnings).ok());
  }
  bool Phase(const api::Pod& pod, const std::string& phase) {
    return WaitFor([&] { return runtime_->StatusOf(pod).phase == phase; }, 10s);
  }

  TempDir dir_;
  std::unique_ptr<ProcessRuntime> runtime_;
  std::unique_ptr<ContainerLogServer> server_;
};

TEST_F(ContainerLogServerTest, WholeLogAndTailLines) {
  api::Pod pod =
      ShellPod("p", "Never", "for i in 1 2 3 4 5; do echo line $i; done");
  Run(pod);
  ASSERT_TRUE(Phase(pod, "Succeeded"));
  Reply all = Get(server_->port(), "/containerLogs/ns/p/c");
  EXPECT_EQ(all.code, 200);
  EXPECT_EQ(all.body, "line 1\nline 2\nline 3\nline 4\nline 5\n");
  Reply tail = Get(server_->port(), "/containerLogs/ns/p/c?tailLines=2");
  EXPECT_EQ(tail.code, 200);
  EXPECT_EQ(tail.body, "line 4\nline 5\n");
  Reply none = Get(server_->port(), "/containerLogs/ns/p/c?tailLines=0");
  EXPECT_EQ(none.body, "");
  Reply limited = Get(server_->port(), "/containerLogs/ns/p/c?limitBytes=4");
  EXPECT_EQ(limited.body, "line");
  Reply bad = Get(server_->port(), "/containerLogs/ns/p/c?tailLines=x");
  EXPECT_EQ(bad.code, 400);
  EXPECT_NE(bad.body.find("tailLines: Invalid value: \"x\""),
            std::string::npos);
}

TEST_F(ContainerLogServerTest, Previous) {
  api::Pod pod = ShellPod("r", "OnFailure",
                          "n=$(cat count 2>/dev/null || echo 0); echo run $n; "
                          "echo $((n+1)) > count; [ $n -ge 1 ]");
  Run(pod);
  ASSERT_TRUE(Phase(pod, "Succeeded"));
  EXPECT_EQ(Get(server_->port(), "/containerLogs/ns/r/c").body, "run 1\n");
  EXPECT_EQ(Get(server_->port(), "/containerLogs/ns/r/c?previous=true").body,
            "run 0\n");
}

TEST_F(ContainerLogServerTest, FollowStreamsUntilTheRunEnds) {
  api::Pod pod =
      ShellPod("f", "Never",
               "echo first; sleep 0.3; echo second; sleep 0.3; echo third");
  Run(pod);
  ASSERT_TRUE(Phase(pod, "Running"));
  const auto start = std::chrono::steady_clock::now();
  Reply follow = Get(server_->port(), "/containerLogs/ns/f/c?follow=true");
  EXPECT_EQ(follow.code, 200);
  EXPECT_EQ(follow.body, "first\nsecond\nthird\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

TEST_F(ContainerLogServerTest, FollowEndsWhenTheServerStops) {
  api::Pod pod = ShellPod("s", "Never", "echo up; sleep 30");
  Run(pod);
  ASSERT_TRUE(Phase(pod, "Running"));
  std::thread stopper([&] {
    std::this_thread::sleep_for(300ms);  // lets the stream start
    server_->Stop();
  });
  Reply follow = Get(server_->port(), "/containerLogs/ns/s/c?follow=true");
  stopper.join();
  EXPECT_EQ(follow.code, 200);
  EXPECT_EQ(follow.body, "up\n");
  EXPECT_TRUE(WaitFor([&] { return runtime_->StopPod(pod.metadata.uid, 0s); }));
}

TEST_F(ContainerLogServerTest, Errors) {
  Reply pod = Get(server_->port(), "/containerLogs/ns/missing/c");
  EXPECT_EQ(pod.code, 404);
  EXPECT_NE(pod.body.find("pod \"missing\""), std::string::npos) << pod.body;
  Reply path = Get(server_->port(), "/other");
  EXPECT_EQ(path.code, 404);
  api::Pod one = ShellPod("one", "Never", "true");
  Run(one);
  ASSERT_TRUE(Phase(one, "Succeeded"));
  Reply container = Get(server_->port(), "/containerLogs/ns/one/x");
  EXPECT_EQ(container.code, 404);
  EXPECT_NE(container.body.find("container \"x\""), std::string::npos);
  Reply previous =
      Get(server_->port(), "/containerLogs/ns/one/c?previous=true");
  EXPECT_EQ(previous.code, 404);
  EXPECT_NE(previous.body.find("previous terminated container \"c\""),
            std::string::npos);
  api::Pod waiting = ShellPod("init", "Never", "true");
  api::Container init;
  init.name = "first";
  SetUnknownField(init.unknown_fields, "command",
                  json::array({"sleep", "30"}).dump());
  waiting.spec.init_containers.push_back(init);
  Run(waiting);
  Reply not_started = Get(server_->port(), "/containerLogs/ns/init/c");
  EXPECT_EQ(not_started.code, 400);
  EXPECT_EQ(not_started.body,
            "container \"c\" in pod \"init\" is waiting to start: "
            "PodInitializing\n");
  EXPECT_TRUE(
      WaitFor([&] { return runtime_->StopPod(waiting.metadata.uid, 0s); }));
}

}  // namespace
}  // namespace dralloc::node
