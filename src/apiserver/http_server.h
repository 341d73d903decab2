// HttpServer: HTTP/1.1 over TCP, plain or TLS, that slow or hostile clients
// cannot exhaust.
//
// Accepting, the TLS handshake, waiting for a request and reading it run
// asynchronously on a small io_context thread pool: an idle, slow or stalled
// connection holds a socket and a few KiB, never a thread. A complete request
// is handed to a worker thread (HttpWorkerPool) that runs the handler and
// writes the response synchronously, so long-lived watch streams stay simple
// (each blocks on its own watcher); a keep-alive connection then goes back
// to waiting asynchronously. See http_connection.h for the phases and their
// deadlines.
//
// Limits (HttpServerOptions): header read timeout (covers the TLS handshake),
// idle keep-alive timeout, body read timeout, response write timeout (a
// client that stops reading), header size (431), body size (413, refused
// before it is read when Content-Length says so) and the number of open
// connections (beyond it a new connection is closed at once, before any byte
// is read: cheaper than a 429, which would need a TLS handshake, and what a
// client retries the same way). Memory per connection is thus bounded by
// max_header_bytes + max_body_bytes + the TLS buffers (released when idle).
#ifndef DRALLOC_APISERVER_HTTP_SERVER_H_
#define DRALLOC_APISERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace dralloc::apiserver {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // decoded path, without the query
  std::multimap<std::string, std::string> query;  // decoded
  std::string content_type;
  std::string accept;
  std::string user_agent;
  // The Authorization header as sent ("" without one).
  std::string authorization;
  bool has_authorization = false;
  // Served over TLS; the client's certificate chain (DER, leaf first) when
  // it sent one. Not verified here: authentication verifies it.
  bool tls = false;
  std::vector<std::string> peer_certificates_der;
  // The client's address ("127.0.0.1:53412"), for the audit log.
  std::string remote_address;
  // The Impersonate-* headers (kubectl --as, --as-group, --as-uid), names
  // lowercased, in the order sent; a header sent twice appears twice.
  std::vector<std::pair<std::string, std::string>> impersonation_headers;
  std::string body;

  // The last value of a query parameter, or "".
  std::string Query(std::string_view name) const;
  bool HasQuery(std::string_view name) const;
};

// Writes one response: either whole (Send) or as a chunked stream.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  virtual void AddHeader(std::string name, std::string value) = 0;
  virtual void Send(int status, std::string content_type, std::string body) = 0;
  // Starts a chunked 200 response; then WriteChunk/Flush until done.
  virtual bool StartStream(std::string content_type) = 0;
  // False once the client has gone away.
  virtual bool WriteChunk(std::string_view data) = 0;
  // True when the client has closed the connection (checked without
  // blocking; used by idle streams).
  virtual bool ClientGone() { return false; }
};

using HttpHandler = std::function<void(const HttpRequest&, ResponseWriter&)>;

// Defaults follow kube-apiserver's Go http.Server (secure_serving.go).
struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6443;  // 0: pick a free port
  size_t max_body_bytes = 3u << 20;
  // PEM files; an empty cert file serves plain HTTP.
  std::string tls_cert_file;
  std::string tls_private_key_file;
  // CAs whose names are advertised when requesting a client certificate.
  std::string client_ca_file;
  // From accept (TLS handshake included) or from the first byte of a
  // keep-alive connection's next request to the end of its header.
  std::chrono::milliseconds read_header_timeout = std::chrono::seconds(32);
  // How long a keep-alive connection may wait for its next request.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(90);
  // From the end of a header to the end of its body (upstream has no server
  // read timeout; its 60 s --request-timeout bounds a request).
  std::chrono::milliseconds body_read_timeout = std::chrono::seconds(60);
  // How long one write of a response may block (a client that stops
  // reading); then the connection is shut down and the handler's writes
  // fail. Go has none (its handler timeout covers short requests only); this
  // frees the handler thread a non-reading client would hold.
  std::chrono::milliseconds write_timeout = std::chrono::seconds(60);
  // Go's MaxHeaderBytes.
  size_t max_header_bytes = 1u << 20;
  // Open connections, idle ones included. Go serves unbounded; 4096 is
  // well above what a control plane's components and nodes keep open.
  size_t max_connections = 4096;
  // Threads of the io_context that runs the waiting phases and handshakes.
  int io_threads = 2;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();

  // Loads the TLS files (errors name the file and what is wrong), binds and
  // starts accepting in the background.
  Status Start();
  bool serving_tls() const;
  uint16_t port() const { return port_; }
  // Stops accepting, closes every connection and waits (bounded, 10 s) for
  // handlers to return. `before_close` runs after the acceptor stops (e.g.
  // to cancel watches). A handler still running after the bound outlives
  // the server: handlers must end once their client is gone.
  void Stop(const std::function<void()>& before_close = {});
  // Open connections, whatever their phase.
  size_t open_connections() const;
  // Connections closed at accept because max_connections were open.
  uint64_t refused_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
};

// Percent-decodes a URL component ("+" stays "+"); false on bad escapes.
bool DecodeUrlComponent(std::string_view in, std::string& out);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_HTTP_SERVER_H_
