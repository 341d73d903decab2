// HttpConnection: one kept-alive HTTP/1.1 connection to the API server,
// plain or TLS as the target says.
//
// A TLS connection does its handshake once, when it connects, and then
// serves every request until the server closes it (as client-go keeps its
// connections), so a run measures requests, not handshakes.
//
// Each call blocks until the whole response has arrived. Internally the
// operations are Asio-asynchronous on a private io_context so that every
// request has a deadline (blocking Asio sockets cannot time out). Not
// thread-safe: give each client thread its own connection.
#ifndef DRALLOC_BENCH_LOAD_HTTP_CONNECTION_H_
#define DRALLOC_BENCH_LOAD_HTTP_CONNECTION_H_

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "load/load_target.h"

namespace dralloc::load {

struct HttpResult {
  int status = 0;
  std::string body;
};

class HttpConnection {
 public:
  HttpConnection(LoadTarget target, std::chrono::milliseconds request_timeout);
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection();

  // Sends `method path` with an optional JSON body (and the target's
  // Authorization header, if any) and returns the status and body, whatever
  // the status. Transport failures (refused, reset, timeout, TLS handshake
  // or verification failure, malformed response) are kUnavailable or
  // kDeadlineExceeded. A GET, PUT or
  // DELETE that fails on a reused connection is retried once on a new one (the
  // server may have closed an idle connection); a POST is never retried, so a
  // create is sent at most once.
  StatusOr<HttpResult> Send(boost::beast::http::verb method,
                            std::string_view path, std::string_view body = {});

  // Largest response body accepted (default 64 MiB); lists of thousands of
  // ResourceSlices need more.
  void set_body_limit(std::uint64_t bytes) { body_limit_ = bytes; }

 private:
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

  Status Connect();
  Status Handshake();
  void Close();
  // The TCP layer of the current connection (under TLS, its next layer).
  boost::beast::tcp_stream& Tcp();
  // Starts `operation(stream, handler)` on the plain or TLS stream with the
  // request deadline, runs it to completion and returns its error.
  template <typename Operation>
  boost::beast::error_code RunWithDeadline(Operation operation);
  StatusOr<HttpResult> SendOnce(boost::beast::http::verb method,
                                std::string_view path, std::string_view body);
  // Runs the io_context until the queued operations finish.
  void RunQueued();

  LoadTarget target_;
  std::chrono::milliseconds request_timeout_;
  std::uint64_t body_limit_ = 64ull << 20;
  boost::asio::io_context io_;
  // Plain HTTP uses stream_; TLS makes a fresh tls_stream_ per connection
  // (an SSL object cannot be reused after its connection ended).
  boost::beast::tcp_stream stream_;
  std::unique_ptr<TlsStream> tls_stream_;
  boost::beast::flat_buffer buffer_;
  bool connected_ = false;
  // Requests answered on the current connection; 0 means freshly connected.
  int requests_on_connection_ = 0;
};

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_HTTP_CONNECTION_H_
