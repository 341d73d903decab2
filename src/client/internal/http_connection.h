// Connection: one HTTP/1.1 connection of HttpApiClient to the API server
// (plain TCP or TLS), with blocking calls bounded by timeouts; and the server
// URL and TLS settings it is opened with.
#ifndef DRALLOC_CLIENT_INTERNAL_HTTP_CONNECTION_H_
#define DRALLOC_CLIENT_INTERNAL_HTTP_CONNECTION_H_

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "client/kubeconfig.h"
#include "common/status.h"

#ifdef DRALLOC_CLIENT_WITH_TLS
#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#endif

namespace dralloc::client::internal {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using Request = http::request<http::string_body>;
using Parser = http::response_parser<http::string_body>;

#ifdef DRALLOC_CLIENT_WITH_TLS
using TlsContext = net::ssl::context;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
#else
struct TlsContext {};
#endif

// The parts of a server URL.
struct Endpoint {
  bool tls = false;
  std::string host;       // without brackets for IPv6
  std::string port;       // "6443"
  std::string authority;  // the Host header ("127.0.0.1:6443")
  std::string base_path;  // "" or "/prefix" (no trailing slash)
};

// Splits "http[s]://host[:port][/prefix]"; InvalidArgument when malformed.
StatusOr<Endpoint> ParseServerUrl(const std::string& server);

// The TLS context for `config` (CA, client certificate, skip-verify);
// InvalidArgument for unusable settings, Unimplemented in builds without TLS.
StatusOr<std::unique_ptr<TlsContext>> MakeTlsContext(const Kubeconfig& config);

inline Status TransportError(std::string_view what,
                             const beast::error_code& ec) {
  return UnavailableError(std::string(what) + ": " + ec.message());
}

// Runs `body`, turning an exception of Boost or the standard library into
// kInternal: no exception leaves this module.
template <class F>
auto Guarded(std::string_view what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    return InternalError(std::string(what) + ": " + e.what());
  }
}

// One connection to the server, used by one thread at a time (except
// Interrupt). Blocking calls run the connection's own io_context, so each
// is bounded by a timeout and a watch can be woken from another thread.
class Connection {
 public:
  ~Connection() { Close(); }

  static StatusOr<std::unique_ptr<Connection>> Open(const Endpoint& endpoint,
                                                    TlsContext* tls,
                                                    milliseconds timeout) {
    return Guarded(
        "connecting", [&]() -> StatusOr<std::unique_ptr<Connection>> {
          std::unique_ptr<Connection> connection(new Connection(endpoint, tls));
          RETURN_IF_ERROR(connection->Connect(timeout));
          return connection;
        });
  }

  // Sends `request` and reads the whole response into `parser`.
  // `received_nothing` tells whether no byte of a response had arrived when
  // it failed (so a request on a stale keep-alive connection may be
  // retried).
  Status RoundTrip(const Request& request, Parser& parser, milliseconds timeout,
                   bool& received_nothing) {
    received_nothing = true;
    RETURN_IF_ERROR(Write(request, timeout));
    beast::error_code ec = Run(timeout, [&](auto handler) {
      WithStream([&](auto& stream) {
        http::async_read(stream, buffer_, parser, std::move(handler));
      });
    });
    received_nothing = !parser.got_some();
    if (ec) return TransportError("reading the response", ec);
    return OkStatus();
  }

  Status Write(const Request& request, milliseconds timeout) {
    beast::error_code ec = Run(timeout, [&](auto handler) {
      WithStream([&](auto& stream) {
        http::async_write(stream, request, std::move(handler));
      });
    });
    if (ec) return TransportError("sending the request", ec);
    return OkStatus();
  }

  Status ReadHeader(Parser& parser, milliseconds timeout) {
    beast::error_code ec = Run(timeout, [&](auto handler) {
      WithStream([&](auto& stream) {
        http::async_read_header(stream, buffer_, parser, std::move(handler));
      });
    });
    if (ec) return TransportError("reading the response", ec);
    return OkStatus();
  }

  Status ReadRest(Parser& parser, milliseconds timeout) {
    beast::error_code ec = Run(timeout, [&](auto handler) {
      WithStream([&](auto& stream) {
        http::async_read(stream, buffer_, parser, std::move(handler));
      });
    });
    if (ec) return TransportError("reading the response", ec);
    return OkStatus();
  }

  // Starts reading more of the body into `parser` with no time limit;
  // `on_read` runs inside a later RunOneUntil.
  template <class Handler>
  void StartReadSome(Parser& parser, Handler on_read) {
    Tcp().expires_never();
    WithStream([&](auto& stream) {
      http::async_read_some(stream, buffer_, parser, std::move(on_read));
    });
  }

  // Runs at most one ready handler, waiting until `deadline`. False when
  // none ran (deadline passed or Interrupt()).
  bool RunOneUntil(Clock::time_point deadline) {
    if (ioc_.poll_one() > 0) return true;  // also when the deadline passed
    return ioc_.run_one_until(deadline) > 0;
  }

  // Thread-safe: makes the current or next RunOneUntil return, until
  // ClearInterrupt().
  void Interrupt() { ioc_.stop(); }
  void ClearInterrupt() { ioc_.restart(); }

 private:
  Connection(const Endpoint& endpoint, TlsContext* tls) : endpoint_(endpoint) {
#ifdef DRALLOC_CLIENT_WITH_TLS
    if (tls != nullptr) {
      tls_ = std::make_unique<TlsStream>(ioc_, *tls);
      return;
    }
#else
    (void)tls;
#endif
    tcp_ = std::make_unique<beast::tcp_stream>(ioc_);
  }

  beast::tcp_stream& Tcp() {
#ifdef DRALLOC_CLIENT_WITH_TLS
    if (tls_) return beast::get_lowest_layer(*tls_);
#endif
    return *tcp_;
  }

  template <class F>
  void WithStream(F&& use) {
#ifdef DRALLOC_CLIENT_WITH_TLS
    if (tls_) return use(*tls_);
#endif
    use(*tcp_);
  }

  // Starts one asynchronous operation and runs the io_context until it
  // completes (or `timeout` makes it fail).
  template <class Start>
  beast::error_code Run(milliseconds timeout, Start&& start) {
    Tcp().expires_after(timeout);
    beast::error_code result = net::error::operation_aborted;
    bool done = false;
    start([&result, &done](beast::error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    ioc_.restart();
    while (!done && ioc_.run_one() > 0) {
    }
    if (!done) {  // interrupted: abandon the operation before returning
      Close();
      ioc_.restart();
      while (!done && ioc_.run_one() > 0) {
      }
    }
    return result;
  }

  Status Connect(milliseconds timeout) {
    tcp::resolver resolver(ioc_);
    beast::error_code ec;
    auto addresses = resolver.resolve(endpoint_.host, endpoint_.port, ec);
    const std::string where = endpoint_.host + ":" + endpoint_.port;
    if (ec) return TransportError("resolving " + where, ec);
    ec = Run(timeout, [&](auto handler) {
      Tcp().async_connect(addresses, std::move(handler));
    });
    if (ec) return TransportError("connecting to " + where, ec);
    return Handshake(timeout);
  }

  Status Handshake(milliseconds timeout) {
#ifdef DRALLOC_CLIENT_WITH_TLS
    if (!tls_) return OkStatus();
    beast::error_code address_ec;
    net::ip::make_address(endpoint_.host, address_ec);
    if (address_ec &&  // SNI takes host names only
        !SSL_set_tlsext_host_name(tls_->native_handle(),
                                  endpoint_.host.c_str())) {
      return UnavailableError("cannot set the TLS server name");
    }
    tls_->set_verify_callback(net::ssl::host_name_verification(endpoint_.host));
    beast::error_code ec = Run(timeout, [&](auto handler) {
      tls_->async_handshake(net::ssl::stream_base::client, std::move(handler));
    });
    if (ec) return TransportError("TLS handshake", ec);
#else
    (void)timeout;
#endif
    return OkStatus();
  }

  void Close() {
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Tcp().socket().close(ignored);
  }

  Endpoint endpoint_;
  net::io_context ioc_;  // declared before the streams that use it
  beast::flat_buffer buffer_;
  std::unique_ptr<beast::tcp_stream> tcp_;
#ifdef DRALLOC_CLIENT_WITH_TLS
  std::unique_ptr<TlsStream> tls_;
#endif
};

}  // namespace dralloc::client::internal

#endif  // DRALLOC_CLIENT_INTERNAL_HTTP_CONNECTION_H_
