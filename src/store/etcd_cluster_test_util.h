// EtcdTestCluster: throwaway etcd members (Debian's `etcd` binary) on free
// loopback ports, for tests. Each member's data and log live under the
// directory given; members can be killed, stopped (SIGSTOP), continued and
// restarted to exercise failures.
#ifndef DRALLOC_STORE_ETCD_CLUSTER_TEST_UTIL_H_
#define DRALLOC_STORE_ETCD_CLUSTER_TEST_UTIL_H_

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/subprocess.h"
#include "common/thread_annotations.h"  // before gRPC (Abseil)
#include "store/etcd_client.h"

namespace dralloc::store {

class EtcdTestCluster {
 public:
  // Starts `members` members under `dir` (emptied first) and waits until
  // the cluster answers.
  static StatusOr<std::unique_ptr<EtcdTestCluster>> Start(
      int members, const std::filesystem::path& dir) {
    auto cluster = std::unique_ptr<EtcdTestCluster>(new EtcdTestCluster(dir));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::string initial;
    for (int i = 0; i < members; ++i) {
      Member member{"m" + std::to_string(i), FreePort(), FreePort(), nullptr};
      initial += (i ? "," : "") + member.name + "=" + Url(member.peer_port);
      cluster->members_.push_back(std::move(member));
    }
    cluster->initial_cluster_ = initial;
    for (int i = 0; i < members; ++i) {
      if (Status s = cluster->Launch(i, "new"); !s.ok()) return s;
    }
    if (Status s = cluster->AwaitReady(); !s.ok()) return s;
    return cluster;
  }

  // "http://127.0.0.1:P1,http://127.0.0.1:P2…" (for --storage etcd:…).
  std::string Urls() const {
    std::string urls;
    for (const Member& m : members_) {
      urls += (urls.empty() ? "" : ",") + Url(m.client_port);
    }
    return urls;
  }
  // "127.0.0.1:P" for each member (for EtcdOptions::endpoints).
  std::vector<std::string> Endpoints() const {
    std::vector<std::string> endpoints;
    for (const Member& m : members_) {
      endpoints.push_back("127.0.0.1:" + std::to_string(m.client_port));
    }
    return endpoints;
  }
  int size() const { return static_cast<int>(members_.size()); }

  void Kill(int i) {
    members_[i].process->Signal(SIGKILL);
    members_[i].process->WaitFor(std::chrono::seconds(5));
  }
  void Pause(int i) { members_[i].process->Signal(SIGSTOP); }
  void Resume(int i) { members_[i].process->Signal(SIGCONT); }
  // Starts a killed member again on its data.
  Status Restart(int i) { return Launch(i, "existing"); }
  // Waits until every running member answers.
  Status AwaitReady() {
    for (const Member& m : members_) {
      if (!m.process || !m.process->running()) continue;
      EtcdClient client({"127.0.0.1:" + std::to_string(m.client_port)},
                        std::chrono::milliseconds(1000));
      etcdserverpb::RangeRequest request;
      request.set_key("ready");
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!client.Range(request).ok()) {
        if (std::chrono::steady_clock::now() > deadline) {
          return Status(StatusCode::kUnavailable,
                        "etcd member " + m.name +
                            " did not become ready; see " +
                            (dir_ / (m.name + ".log")).string());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    return OkStatus();
  }

  ~EtcdTestCluster() {
    for (Member& m : members_) {
      if (!m.process) continue;
      m.process->Signal(SIGCONT);
      m.process->Stop(std::chrono::milliseconds(2000));
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

 private:
  struct Member {
    std::string name;
    int client_port;
    int peer_port;
    std::unique_ptr<Subprocess> process;
  };

  explicit EtcdTestCluster(std::filesystem::path dir) : dir_(std::move(dir)) {}

  static std::string Url(int port) {
    return "http://127.0.0.1:" + std::to_string(port);
  }
  static int FreePort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(addr);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
    close(fd);
    return ntohs(addr.sin_port);
  }

  Status Launch(int i, const std::string& state) {
    Member& m = members_[i];
    SubprocessOptions options;
    options.argv = {"etcd",
                    "--name=" + m.name,
                    "--data-dir=" + (dir_ / m.name).string(),
                    "--listen-client-urls=" + Url(m.client_port),
                    "--advertise-client-urls=" + Url(m.client_port),
                    "--listen-peer-urls=" + Url(m.peer_port),
                    "--initial-advertise-peer-urls=" + Url(m.peer_port),
                    "--initial-cluster=" + initial_cluster_,
                    "--initial-cluster-state=" + state,
                    "--initial-cluster-token=dralloc-test",
                    "--logger=zap",
                    "--log-outputs=" + (dir_ / (m.name + ".log")).string()};
    options.search_path = true;
    options.output_file = dir_ / (m.name + ".out");
    auto process = Subprocess::Start(options);
    if (!process.ok()) {
      return process.status().WithPrefix(
          "starting etcd (Debian package etcd-server; scripts/install-deps.sh "
          "installs it)");
    }
    m.process = std::move(*process);
    return OkStatus();
  }

  const std::filesystem::path dir_;
  std::vector<Member> members_;
  std::string initial_cluster_;
};

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_ETCD_CLUSTER_TEST_UTIL_H_
