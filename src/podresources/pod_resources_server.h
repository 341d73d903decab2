// PodResourcesServer: the kubelet's PodResources v1 service
// (`v1.PodResourcesLister`: List, Get, GetAllocatableResources) on a unix
// socket, for monitoring agents. Answers come from a PodResourcesSource; DRA
// claims are reported in `dynamic_resources` (KEP-3695).
//
//   PodResourcesServer server(source);
//   RETURN_IF_ERROR(server.Start("/var/lib/kubelet/pod-resources/kubelet.sock"));
//   ...
//   server.Stop();  // also done by the destructor
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_SERVER_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_SERVER_H_

#include <chrono>
#include <filesystem>
#include <memory>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "podresources/pod_resources_source.h"

// Forward-declared: grpcpp pulls in absl's unprefixed thread annotation
// macros, which must not meet common/thread_annotations.h in our headers.
namespace grpc {
class Server;
}  // namespace grpc

namespace dralloc::podresources {

class PodResourcesServer {
 public:
  // `source` must outlive the server.
  explicit PodResourcesServer(const PodResourcesSource& source);
  ~PodResourcesServer();
  PodResourcesServer(const PodResourcesServer&) = delete;
  PodResourcesServer& operator=(const PodResourcesServer&) = delete;

  // Creates the socket's directory, removes a stale socket left at `socket`
  // by an earlier process, and serves on it. Fails (naming the socket) when
  // the path is too long for a unix socket, is something other than a
  // socket, or cannot be bound; FailedPrecondition if already started.
  Status Start(const std::filesystem::path& socket) EXCLUDES(mu_);

  // Stops serving (calls in flight get `grace` to finish, then are
  // cancelled; a handler already inside the source is waited for, so the
  // source must not block indefinitely) and removes the socket file.
  // Idempotent.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(1))
      EXCLUDES(mu_);

 private:
  class Service;

  Mutex mu_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_ GUARDED_BY(mu_);
  std::filesystem::path socket_ GUARDED_BY(mu_);
};

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_SERVER_H_
