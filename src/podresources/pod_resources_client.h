// PodResourcesClient: calls a PodResources v1 service on a unix socket with
// a deadline, and turns every failure into a Status that names the socket.
// This header brings in grpcpp (and with it absl's unprefixed thread
// annotation macros): include it after common/mutex.h, or in .cc files only.
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_CLIENT_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_CLIENT_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "common/status.h"
#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.grpc.pb.h"

namespace dralloc::podresources {

class PodResourcesClient {
 public:
  // Fails (NotFound) when nothing exists at `socket`; connecting is lazy,
  // so a socket nobody listens on is reported by the first call
  // (Unavailable). Every call waits at most `timeout`.
  static StatusOr<PodResourcesClient> Connect(
      const std::filesystem::path& socket,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  StatusOr<v1::ListPodResourcesResponse> List() const;
  // Errors from the server keep their code: NotFound for a pod that is not
  // there, InvalidArgument for an empty name or namespace.
  StatusOr<v1::GetPodResourcesResponse> Get(const std::string& namespace_,
                                            const std::string& name) const;
  StatusOr<v1::AllocatableResourcesResponse> GetAllocatableResources() const;

 private:
  PodResourcesClient(std::filesystem::path socket,
                     std::chrono::milliseconds timeout,
                     std::shared_ptr<v1::PodResourcesLister::Stub> stub)
      : socket_(std::move(socket)), timeout_(timeout), stub_(std::move(stub)) {}

  // Maps a failed call to a Status naming the socket and the method.
  Status CallError(const char* method, const grpc::Status& status) const;
  void SetDeadline(grpc::ClientContext& context) const;

  std::filesystem::path socket_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<v1::PodResourcesLister::Stub> stub_;
};

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_CLIENT_H_
