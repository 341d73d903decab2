// ApiServer: a Kubernetes-compatible API server for the resources dralloc
// serves, over a Store.
#ifndef DRALLOC_APISERVER_API_SERVER_H_
#define DRALLOC_APISERVER_API_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/access_control.h"
#include "apiserver/access_reviews.h"
#include "apiserver/audit_log.h"
#include "apiserver/garbage_collector.h"
#include "apiserver/http_server.h"
#include "apiserver/metrics.h"
#include "apiserver/namespace_finalizer.h"
#include "apiserver/resource_storage.h"
#include "apiserver/timed_store.h"
#include "serviceaccount/token_request_handler.h"
#include "store/store.h"

namespace dralloc::apiserver {

struct ApiServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6443;  // 0: a free port
  // The minor version /version reports (kubectl's dispatcher picks the
  // kubectl binary by it).
  std::string version_minor = "33";
  // Upper bound of a watch that asks for no timeout.
  int max_watch_seconds = 1800;
  // How long a list waits for the store to reach a resourceVersion newer
  // than its revision before it fails with 504 (upstream: 3 s).
  std::chrono::milliseconds too_large_resource_version_wait{3000};
  // Who requests are from; nullptr: every request is auth::LoopbackUser()
  // (the plain-HTTP development mode).
  std::shared_ptr<const auth::Authenticator> authenticator;
  // What they may do; nullptr: everything.
  std::shared_ptr<const auth::Authorizer> authorizer;
  // Serve HTTPS with this certificate and key (PEM files; empty: plain
  // HTTP); ask clients for certificates signed by client_ca_file.
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string client_ca_file;
  // Serves POST serviceaccounts/<name>/token (TokenRequest) when set; must
  // outlive the server.
  const serviceaccount::TokenRequestHandler* token_requests = nullptr;
  // One audit event per request is appended here ("-": stdout; "": none).
  std::string audit_log_path;
};

class ApiServer {
 public:
  ApiServer(ApiServerOptions options, store::Store& store);
  ~ApiServer();

  // Creates the default namespaces, starts the garbage collector and the
  // namespace finalizer, and listens.
  Status Start();
  void Stop();
  uint16_t port() const { return http_ ? http_->port() : 0; }
  ResourceStorage& storage() { return storage_; }

  // Adds text (Prometheus exposition format) that /metrics appends, e.g.
  // counters of controllers running in this process. Register before
  // Start(); `source` is called from request threads.
  void AddMetricsSource(std::function<std::string()> source) {
    metrics_sources_.push_back(std::move(source));
  }

  // Serves requests whose path starts with `prefix` (e.g. "/dralloc/") with
  // `handler`, for endpoints of components running in this process (the
  // simulation endpoint of `dralloc serve`). Register before Start();
  // `handler` is called from request threads.
  using EndpointHandler =
      std::function<void(const HttpRequest& request, ResponseWriter& writer)>;
  void AddEndpoint(std::string prefix, EndpointHandler handler) {
    endpoints_.emplace_back(std::move(prefix), std::move(handler));
  }

  // Serves one request (exposed for tests that bypass the network).
  void Handle(const HttpRequest& request, ResponseWriter& writer);

 private:
  struct Route;
  struct WatchRequest;
  class WatchLines;

  // Resource requests: `verb` is set to the verb the metrics record.
  void ServeResource(const HttpRequest& request, const Route& route,
                     ResponseWriter& writer, std::string& verb);
  // Requests on a collection: list, watch, create, deletecollection.
  void ServeCollection(const HttpRequest& request, const Route& route,
                       const WriteOptions& write, ResponseWriter& writer,
                       std::string& verb);
  void ServeList(const HttpRequest& request, const RequestScope& scope,
                 ListOptions list, ResponseWriter& writer);
  void DeleteCollection(const RequestScope& scope, const ListOptions& list,
                        const WriteOptions& write, ResponseWriter& writer);
  // Requests on one object or its subresources.
  void ServeObject(const HttpRequest& request, const RequestScope& scope,
                   const WriteOptions& write, ResponseWriter& writer,
                   std::string& verb);

  // A watch: its options, the initial events (a snapshot, when asked for or
  // implied), then the store's events until the deadline or a closed stream.
  void ServeWatch(const HttpRequest& request, const RequestScope& scope,
                  const ListOptions& list, ResponseWriter& writer);
  ApiOr<WatchRequest> ParseWatchRequest(const HttpRequest& request,
                                        const api::ResourceInfo& info) const;
  // False if the client went away.
  bool WriteInitialEvents(const RequestScope& scope, const ListOptions& list,
                          const WatchRequest& watch,
                          const std::vector<store::KeyValue>& initial,
                          const WatchLines& lines, ResponseWriter& writer);
  void StreamWatchEvents(const RequestScope& scope, const ListOptions& list,
                         const WatchRequest& watch, store::Watcher& watcher,
                         const WatchLines& lines,
                         std::chrono::steady_clock::time_point deadline,
                         ResponseWriter& writer);
  bool ServeNonResource(const HttpRequest& request, ResponseWriter& writer);
  // POST serviceaccounts/<name>/token.
  void ServeTokenRequest(const HttpRequest& request, const RequestScope& scope,
                         ResponseWriter& writer, std::string& verb);
  // Routes an authorized request; `verb` and `resource` are set for the
  // metrics.
  void Dispatch(const HttpRequest& request, const auth::UserInfo& user,
                ResponseWriter& writer, std::string& verb,
                std::string& resource);
  void Audit(const HttpRequest& request,
             const auth::RequestAttributes* attributes, int code,
             std::chrono::system_clock::time_point received,
             const auth::AuthorizationResult* decision,
             const auth::UserInfo* impersonator = nullptr);
  void EnsureNamespace(const std::string& name);

  ApiServerOptions options_;
  Metrics metrics_;
  TimedStore store_;  // the backend, with latency metrics
  ResourceStorage storage_;
  GarbageCollector garbage_collector_;
  NamespaceFinalizer namespace_finalizer_;
  AccessControl access_;
  AccessReviews reviews_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<HttpServer> http_;
  std::vector<std::function<std::string()>> metrics_sources_;
  std::vector<std::pair<std::string, EndpointHandler>> endpoints_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_API_SERVER_H_
