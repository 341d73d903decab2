// HttpConnection: one client connection of HttpServer, plain or TLS.
//
// The waiting phases run asynchronously on the server's io_context (on this
// connection's strand), so an idle, slow or stalled client holds no thread:
//   TLS handshake ─┐
//                  ├─> request header ─> request body ─> handler (worker
//   idle keep-alive┘   (header timeout)  (body timeout)   thread, blocking)
// Only a complete request is handed to a worker thread, which runs the
// handler and writes the response synchronously (chunked streams, watches);
// a keep-alive connection then goes back to the idle phase.
//
// Deadlines: the TLS handshake and the first request header share
// `read_header_timeout` from accept (as Go's ReadHeaderTimeout does); a
// keep-alive connection may idle `idle_timeout` for the first byte of its
// next request, which then must complete its header within
// `read_header_timeout`; a body must arrive within `body_read_timeout` of
// its header. Expiry closes the connection.
#ifndef DRALLOC_APISERVER_HTTP_CONNECTION_H_
#define DRALLOC_APISERVER_HTTP_CONNECTION_H_

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apiserver/http_server.h"
#include "apiserver/http_worker_pool.h"

namespace dralloc::apiserver {

class HttpConnection;

// What connections share; owned by the server, which outlives them.
struct HttpConnectionContext {
  const HttpServerOptions* options = nullptr;
  const HttpHandler* handler = nullptr;
  boost::asio::ssl::context* tls = nullptr;  // nullptr: plain HTTP
  HttpWorkerPool* workers = nullptr;
  const std::atomic<bool>* stopping = nullptr;
  // Called once, on the connection's strand, when it has closed.
  std::function<void(HttpConnection*)> on_closed;
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // `socket` must be bound to a strand of its own.
  HttpConnection(boost::asio::ip::tcp::socket socket,
                 const HttpConnectionContext& context);

  // Begins the handshake or the first request (posts to the strand).
  void Start();
  // Shuts the socket down (from any thread): pending reads end, blocked
  // writes fail, and the connection closes.
  void Shutdown();
  // From any thread: shuts the connection down when a response write has
  // been blocked since before `now - write_timeout`.
  void ShutdownIfWriteStalled(std::chrono::steady_clock::time_point now);

 private:
  friend class ConnectionResponseWriter;
  using Parser =
      boost::beast::http::request_parser<boost::beast::http::string_body>;

  template <typename Operation>
  void WithStream(Operation&& operation);
  boost::asio::ip::tcp::socket& socket();

  void SniffTlsRecord();
  void OnSniffed(const boost::system::error_code& ec, size_t bytes);
  void OnHandshake(const boost::system::error_code& ec, size_t used);
  void WaitForNextRequest();
  void ReadHeader();
  void OnHeader(const boost::system::error_code& ec);
  void OnBody(const boost::system::error_code& ec);
  void Dispatch();
  void Serve();  // on a worker thread
  HttpRequest BuildRequest();
  void RespondAndClose(std::string response);
  void ArmDeadline(std::chrono::milliseconds timeout);
  void CancelDeadline();
  void Close();

  // Synchronous writes and the hang-up check of a worker thread's response.
  bool WriteAll(std::span<const boost::asio::const_buffer> buffers);
  bool PeerClosed();

  HttpConnectionContext context_;
  boost::asio::any_io_executor strand_;  // the socket's; fixed for life
  boost::asio::ip::tcp::socket plain_;   // moved into tls_ when serving TLS
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
  boost::asio::steady_timer deadline_;
  uint64_t deadline_generation_ = 0;
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  std::vector<std::string> peer_certificates_der_;
  std::string remote_address_;
  bool closed_ = false;
  // When the pending response write began (steady clock, ns); 0: none.
  std::atomic<int64_t> write_started_ns_{0};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_HTTP_CONNECTION_H_
