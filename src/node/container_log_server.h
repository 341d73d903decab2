// ContainerLogServer: the kubelet's container log endpoint over HTTP/1.1
// (plain TCP, one thread per connection, one request per connection):
//
//   GET /containerLogs/{namespace}/{pod}/{container}
//       ?tailLines=N   only the last N lines
//       &previous=true the run before the current one
//       &follow=true   keep streaming (chunked) until the container's run
//                      ends, the client goes away or the server stops
//       &limitBytes=N  at most N bytes
//
// Logs are read from the runtime's files (ContainerRuntime::LogOf); a
// missing pod or container is 404 with the reason as text. `timestamps`
// is ignored (the files hold the raw output, without per-line times).
#ifndef DRALLOC_NODE_CONTAINER_LOG_SERVER_H_
#define DRALLOC_NODE_CONTAINER_LOG_SERVER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "node/container_runtime.h"

namespace dralloc::node {

struct ContainerLogServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: a free port
  std::chrono::milliseconds follow_poll{100};
};

class ContainerLogServer {
 public:
  // `runtime` must outlive the server.
  ContainerLogServer(const ContainerRuntime& runtime,
                     ContainerLogServerOptions options);
  ~ContainerLogServer();
  ContainerLogServer(const ContainerLogServer&) = delete;
  ContainerLogServer& operator=(const ContainerLogServer&) = delete;

  // Binds and accepts in the background.
  Status Start() EXCLUDES(mu_);
  uint16_t port() const { return port_; }
  // Stops accepting, ends open connections and joins their threads.
  void Stop() EXCLUDES(mu_);

 private:
  struct Impl;
  void AcceptLoop();
  void Serve(int fd);

  const ContainerRuntime& runtime_;
  const ContainerLogServerOptions options_;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_thread_;
  Mutex mu_;
  std::set<int> open_fds_ GUARDED_BY(mu_);
  std::vector<std::thread> connections_ GUARDED_BY(mu_);
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CONTAINER_LOG_SERVER_H_
