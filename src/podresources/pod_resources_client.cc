#include "podresources/pod_resources_client.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include <system_error>
#include <utility>

namespace dralloc::podresources {
namespace {

// Our Status code for a gRPC code (the numbering of both is gRPC's, but
// only the codes a caller acts on are mapped by name).
Status FromGrpc(grpc::StatusCode code, std::string message) {
  switch (code) {
    case grpc::StatusCode::NOT_FOUND:
      return NotFoundError(std::move(message));
    case grpc::StatusCode::INVALID_ARGUMENT:
      return InvalidArgumentError(std::move(message));
    case grpc::StatusCode::FAILED_PRECONDITION:
      return FailedPreconditionError(std::move(message));
    case grpc::StatusCode::UNIMPLEMENTED:
      return UnimplementedError(std::move(message));
    case grpc::StatusCode::UNAVAILABLE:
      return UnavailableError(std::move(message));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::kDeadlineExceeded, std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

}  // namespace

StatusOr<PodResourcesClient> PodResourcesClient::Connect(
    const std::filesystem::path& socket, std::chrono::milliseconds timeout) {
  std::error_code error;
  if (!std::filesystem::exists(socket, error)) {
    return NotFoundError(fmt::format(
        "podresources socket {}: no such file (is the node agent running?)",
        socket.string()));
  }
  // A subchannel of its own: gRPC otherwise shares one per address across
  // channels, so a client made after a refused connection (a server being
  // restarted) would inherit that subchannel's reconnect backoff.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel("unix://" + socket.string(),
                                grpc::InsecureChannelCredentials(), arguments);
  return PodResourcesClient(socket, timeout,
                            v1::PodResourcesLister::NewStub(channel));
}

void PodResourcesClient::SetDeadline(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
}

Status PodResourcesClient::CallError(const char* method,
                                     const grpc::Status& status) const {
  std::string detail = status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    detail = "nothing answers on the socket (" + detail + ")";
  } else if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    detail = fmt::format("no answer within {}ms", timeout_.count());
  }
  return FromGrpc(status.error_code(),
                  fmt::format("podresources socket {}: {}: {}",
                              socket_.string(), method, detail));
}

StatusOr<v1::ListPodResourcesResponse> PodResourcesClient::List() const {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::ListPodResourcesResponse response;
  grpc::Status status =
      stub_->List(&context, v1::ListPodResourcesRequest(), &response);
  if (!status.ok()) return CallError("List", status);
  return response;
}

StatusOr<v1::GetPodResourcesResponse> PodResourcesClient::Get(
    const std::string& namespace_, const std::string& name) const {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::GetPodResourcesRequest request;
  request.set_pod_namespace(namespace_);
  request.set_pod_name(name);
  v1::GetPodResourcesResponse response;
  grpc::Status status = stub_->Get(&context, request, &response);
  if (!status.ok()) return CallError("Get", status);
  return response;
}

StatusOr<v1::AllocatableResourcesResponse>
PodResourcesClient::GetAllocatableResources() const {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::AllocatableResourcesResponse response;
  grpc::Status status = stub_->GetAllocatableResources(
      &context, v1::AllocatableResourcesRequest(), &response);
  if (!status.ok()) return CallError("GetAllocatableResources", status);
  return response;
}

}  // namespace dralloc::podresources
