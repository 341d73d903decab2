#include "load/http_connection.h"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <utility>

namespace dralloc::load {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr std::size_t kReadBufferBytes = 1 << 20;

Status TransportError(std::string_view what, const beast::error_code& error) {
  std::string message = fmt::format("{}: {}", what, error.message());
  if (error == beast::error::timeout) {
    return Status(StatusCode::kDeadlineExceeded, std::move(message));
  }
  return UnavailableError(std::move(message));
}

}  // namespace

HttpConnection::HttpConnection(LoadTarget target,
                               std::chrono::milliseconds request_timeout)
    : target_(std::move(target)),
      request_timeout_(request_timeout),
      stream_(io_) {
  // Beast reads at most the buffer's free capacity (at least 512 bytes) per
  // receive; a small buffer turns a 100 MiB list into ~10^5 reads, each
  // re-arming the timeout, and the client, not the server, sets the pace.
  buffer_.reserve(kReadBufferBytes);
}

HttpConnection::~HttpConnection() { Close(); }

void HttpConnection::RunQueued() {
  io_.restart();
  io_.run();
}

beast::tcp_stream& HttpConnection::Tcp() {
  return tls_stream_ ? tls_stream_->next_layer() : stream_;
}

template <typename Operation>
beast::error_code HttpConnection::RunWithDeadline(Operation operation) {
  beast::error_code error = asio::error::would_block;
  const auto on_done = [&error](beast::error_code result, auto&&...) {
    error = result;
  };
  Tcp().expires_after(request_timeout_);
  if (tls_stream_) {
    operation(*tls_stream_, on_done);
  } else {
    operation(stream_, on_done);
  }
  RunQueued();
  return error;
}

Status HttpConnection::Connect() {
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(target_.host, error);
  if (error) return TransportError("bad server address", error);
  if (target_.tls) {
    if (!target_.tls_context) {
      return FailedPreconditionError("https target without a TLS context");
    }
    tls_stream_ = std::make_unique<TlsStream>(io_, *target_.tls_context);
  }
  error = asio::error::would_block;
  Tcp().expires_after(request_timeout_);
  Tcp().async_connect(asio::ip::tcp::endpoint(address, target_.port),
                      [&error](beast::error_code result) { error = result; });
  RunQueued();
  if (error) {
    Tcp().close();
    tls_stream_.reset();
    return TransportError(fmt::format("connect to {}", target_.HostHeader()),
                          error);
  }
  beast::error_code ignored;
  Tcp().socket().set_option(asio::ip::tcp::no_delay(true), ignored);
  buffer_.consume(buffer_.size());
  connected_ = true;
  requests_on_connection_ = 0;
  if (Status handshake = Handshake(); !handshake.ok()) {
    Close();
    return handshake;
  }
  return OkStatus();
}

Status HttpConnection::Handshake() {
  if (!tls_stream_) return OkStatus();
  beast::error_code error;
  asio::ip::make_address(target_.server_name, error);
  // SNI carries host names only, never addresses (RFC 6066).
  if (error && !SSL_set_tlsext_host_name(tls_stream_->native_handle(),
                                         target_.server_name.c_str())) {
    return UnavailableError("cannot set the TLS server name");
  }
  tls_stream_->set_verify_callback(
      asio::ssl::host_name_verification(target_.server_name));
  error = asio::error::would_block;
  Tcp().expires_after(request_timeout_);
  tls_stream_->async_handshake(
      asio::ssl::stream_base::client,
      [&error](beast::error_code result) { error = result; });
  RunQueued();
  if (error) {
    return TransportError(
        fmt::format("TLS handshake with {}", target_.HostHeader()), error);
  }
  return OkStatus();
}

void HttpConnection::Close() {
  if (!connected_) return;
  // No TLS close_notify: the connection is dropped either way, and waiting
  // for the server's reply would only slow down reconnects.
  beast::error_code ignored;
  Tcp().socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  Tcp().close();
  tls_stream_.reset();
  connected_ = false;
}

StatusOr<HttpResult> HttpConnection::Send(http::verb method,
                                          std::string_view path,
                                          std::string_view body) {
  const bool may_retry = method != http::verb::post;
  for (int attempt = 0;; ++attempt) {
    if (!connected_) RETURN_IF_ERROR(Connect());
    const bool reused = requests_on_connection_ > 0;
    StatusOr<HttpResult> result = SendOnce(method, path, body);
    if (result.ok()) return result;
    Close();
    if (!(may_retry && reused && attempt == 0)) return result.status();
  }
}

StatusOr<HttpResult> HttpConnection::SendOnce(http::verb method,
                                              std::string_view path,
                                              std::string_view body) {
  http::request<http::string_body> request{method, std::string(path), 11};
  request.set(http::field::host, target_.HostHeader());
  request.set(http::field::user_agent, "dralloc-api-load");
  request.set(http::field::accept, "application/json");
  if (!target_.authorization.empty()) {
    request.set(http::field::authorization, target_.authorization);
  }
  request.keep_alive(true);
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::string(body);
  }
  request.prepare_payload();

  beast::error_code error =
      RunWithDeadline([&request](auto& stream, auto on_done) {
        http::async_write(stream, request, on_done);
      });
  if (error) return TransportError(fmt::format("send {}", path), error);

  http::response_parser<http::string_body> parser;
  parser.body_limit(body_limit_);
  error = RunWithDeadline([this, &parser](auto& stream, auto on_done) {
    http::async_read(stream, buffer_, parser, on_done);
  });
  if (error) return TransportError(fmt::format("response to {}", path), error);

  ++requests_on_connection_;
  http::response<http::string_body> response = parser.release();
  if (!response.keep_alive()) Close();
  return HttpResult{.status = static_cast<int>(response.result_int()),
                    .body = std::move(response.body())};
}

}  // namespace dralloc::load
