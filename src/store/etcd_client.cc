#include "store/etcd_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "common/log.h"

namespace dralloc::store {
namespace {

// One attempt on one member may take this long before the next member is
// tried (a member stopped mid-call never answers).
constexpr std::chrono::milliseconds kAttemptTimeout{3000};

bool IsRetryable(grpc::StatusCode code, EtcdClient::Retry retry) {
  if (code == grpc::StatusCode::UNAVAILABLE) return true;
  return retry == EtcdClient::Retry::kSafe &&
         code == grpc::StatusCode::DEADLINE_EXCEEDED;
}

std::shared_ptr<grpc::Channel> Dial(const std::string& host_port) {
  grpc::ChannelArguments args;
  // Notice a dead or stopped member within seconds, not at TCP timeout.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // A member that comes back is used again within a second.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1);
  return grpc::CreateCustomChannel(host_port,
                                   grpc::InsecureChannelCredentials(), args);
}

}  // namespace

Status EtcdCallStatus(std::string_view what, const grpc::Status& status,
                      std::string_view endpoint) {
  const std::string message =
      fmt::format("etcd {} at {}: {}", what, endpoint, status.error_message());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return Status(StatusCode::kUnavailable, message);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(StatusCode::kDeadlineExceeded, message);
    case grpc::StatusCode::OUT_OF_RANGE:
      return OutOfRangeError(message);
    case grpc::StatusCode::CANCELLED:
      return Status(StatusCode::kCancelled, message);
    default:
      return Status(StatusCode::kInternal, message);
  }
}

EtcdClient::EtcdClient(std::vector<std::string> endpoints,
                       std::chrono::milliseconds request_timeout)
    : endpoints_(std::move(endpoints)), request_timeout_(request_timeout) {
  for (const std::string& endpoint : endpoints_) {
    Member member;
    member.channel = Dial(endpoint);
    member.kv = etcdserverpb::KV::NewStub(member.channel);
    member.watch = etcdserverpb::Watch::NewStub(member.channel);
    members_.push_back(std::move(member));
  }
}

std::string EtcdClient::endpoints() const {
  return fmt::format("{}", fmt::join(endpoints_, ","));
}

void EtcdClient::FailOver(size_t from) {
  const size_t next = (from + 1) % members_.size();
  if (current_.compare_exchange_strong(from, next) && members_.size() > 1) {
    log::Warn("etcd", "member {} failed; switching to {}", endpoints_[from],
              endpoints_[next]);
  }
}

template <typename Response, typename Call>
StatusOr<Response> EtcdClient::Unary(std::string_view what, Retry retry,
                                     Call call, bool* retried) {
  const auto deadline = std::chrono::system_clock::now() + request_timeout_;
  std::chrono::milliseconds backoff{50};
  for (;;) {
    const size_t member = current_.load();
    grpc::ClientContext context;
    // Wait for a connection (up to the deadline) rather than failing at
    // once while the channel reconnects.
    context.set_wait_for_ready(true);
    context.set_deadline(
        std::min(deadline, std::chrono::system_clock::now() + kAttemptTimeout));
    Response response;
    grpc::Status status = call(members_[member], context, response);
    if (status.ok()) return response;
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
        members_[member].channel->GetState(false) != GRPC_CHANNEL_READY) {
      // Never connected: the request surely did not reach the member.
      status = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "cannot connect to the member");
    }
    const bool retryable = IsRetryable(status.error_code(), retry);
    if (retryable) FailOver(member);
    if (!retryable || std::chrono::system_clock::now() + backoff >= deadline) {
      return EtcdCallStatus(what, status, endpoints_[member]);
    }
    std::this_thread::sleep_for(backoff);
    if (retried != nullptr) *retried = true;
    backoff = std::min(backoff * 2, std::chrono::milliseconds{500});
  }
}

StatusOr<etcdserverpb::RangeResponse> EtcdClient::Range(
    const etcdserverpb::RangeRequest& request) {
  return Unary<etcdserverpb::RangeResponse>(
      "range", Retry::kSafe,
      [&](Member& m, grpc::ClientContext& context, auto& response) {
        return m.kv->Range(&context, request, &response);
      });
}

StatusOr<etcdserverpb::TxnResponse> EtcdClient::Txn(
    const etcdserverpb::TxnRequest& request, Retry retry, bool* retried) {
  return Unary<etcdserverpb::TxnResponse>(
      "txn", retry,
      [&](Member& m, grpc::ClientContext& context, auto& response) {
        return m.kv->Txn(&context, request, &response);
      },
      retried);
}

StatusOr<etcdserverpb::CompactionResponse> EtcdClient::Compact(
    int64_t revision) {
  etcdserverpb::CompactionRequest request;
  request.set_revision(revision);
  return Unary<etcdserverpb::CompactionResponse>(
      "compact", Retry::kSafe,
      [&](Member& m, grpc::ClientContext& context, auto& response) {
        return m.kv->Compact(&context, request, &response);
      });
}

std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest,
                                         etcdserverpb::WatchResponse>>
EtcdClient::OpenWatch(grpc::ClientContext& context) {
  return members_[current_.load()].watch->Watch(&context);
}

}  // namespace dralloc::store
