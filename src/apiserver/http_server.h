// HttpServer: HTTP/1.1 over TCP with one thread per connection.
//
// A thread per connection keeps long-lived watch streams simple (each blocks
// on its own watcher) and is cheap at the scale of an API server's clients:
// thousands of mostly idle threads. Bodies larger than the limit are refused
// with 413 before they are read.
#ifndef DRALLOC_APISERVER_HTTP_SERVER_H_
#define DRALLOC_APISERVER_HTTP_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
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

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6443;  // 0: pick a free port
  size_t max_body_bytes = 3u << 20;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();

  // Binds and starts accepting in the background.
  Status Start();
  uint16_t port() const { return port_; }
  // Stops accepting, closes every connection and waits (bounded) for their
  // threads to end. `before_close` runs after the acceptor stops (e.g. to
  // cancel watches).
  void Stop(const std::function<void()>& before_close = {});
  size_t open_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
};

// Percent-decodes a URL component ("+" stays "+"); false on bad escapes.
bool DecodeUrlComponent(std::string_view in, std::string& out);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_HTTP_SERVER_H_
