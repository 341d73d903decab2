// EtcdClient: unary calls to an etcd cluster over its v3 gRPC API, with
// failover between members.
//
// One channel per member. A call goes to the current member; when that
// member cannot be reached or does not answer in time, the next member
// becomes current. Unary calls that are safe to repeat (reads, and writes
// whose retry cannot apply twice: the caller decides) are retried on the
// next member within the call's deadline.
#ifndef DRALLOC_STORE_ETCD_CLIENT_H_
#define DRALLOC_STORE_ETCD_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

namespace dralloc::store {

class EtcdClient {
 public:
  // `endpoints`: "HOST:PORT" each, at least one; `request_timeout`: the
  // deadline of one call, over all the members it tries.
  EtcdClient(std::vector<std::string> endpoints,
             std::chrono::milliseconds request_timeout);

  // How a failed call is retried on the next member.
  enum class Retry {
    kSafe,         // the request may run twice (reads, compare-and-swap
                   // writes whose caller recognises its own earlier write)
    kUnreachable,  // only when it surely did not reach a member
  };

  StatusOr<etcdserverpb::RangeResponse> Range(
      const etcdserverpb::RangeRequest& request);
  // `retried` (optional) tells whether the request was sent more than
  // once: an earlier attempt may have been applied.
  StatusOr<etcdserverpb::TxnResponse> Txn(
      const etcdserverpb::TxnRequest& request, Retry retry,
      bool* retried = nullptr);
  StatusOr<etcdserverpb::CompactionResponse> Compact(int64_t revision);

  // A watch stream on the current member; the caller owns `context`.
  std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest,
                                           etcdserverpb::WatchResponse>>
  OpenWatch(grpc::ClientContext& context);

  // Makes the next member current (the watch found the current one dead).
  void FailOver(size_t from);
  size_t current() const { return current_.load(); }
  const std::string& endpoint(size_t member) const {
    return endpoints_[member];
  }
  std::string endpoints() const;
  std::chrono::milliseconds request_timeout() const { return request_timeout_; }

 private:
  struct Member {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  };

  // Runs `call(member, context)` on the current member, failing over and
  // retrying as `retry` allows until the deadline.
  template <typename Response, typename Call>
  StatusOr<Response> Unary(std::string_view what, Retry retry, Call call,
                           bool* retried = nullptr);

  const std::vector<std::string> endpoints_;
  const std::chrono::milliseconds request_timeout_;
  std::vector<Member> members_;
  std::atomic<size_t> current_{0};
};

// A Status for a failed etcd call: kUnavailable (no member reachable),
// kDeadlineExceeded (no answer in time: a write may or may not have been
// applied), kOutOfRange (revision compacted), kInternal otherwise.
Status EtcdCallStatus(std::string_view what, const grpc::Status& status,
                      std::string_view endpoint);

}  // namespace dralloc::store

#endif  // DRALLOC_STORE_ETCD_CLIENT_H_
