#include "load/http_connection.h"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
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

Status HttpConnection::Connect() {
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(target_.host, error);
  if (error) return TransportError("bad server address", error);
  error = asio::error::would_block;
  stream_.expires_after(request_timeout_);
  stream_.async_connect(asio::ip::tcp::endpoint(address, target_.port),
                        [&error](beast::error_code result) { error = result; });
  RunQueued();
  if (error) {
    stream_.close();
    return TransportError(fmt::format("connect to {}", target_.HostHeader()),
                          error);
  }
  beast::error_code ignored;
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
  buffer_.consume(buffer_.size());
  connected_ = true;
  requests_on_connection_ = 0;
  return OkStatus();
}

void HttpConnection::Close() {
  if (!connected_) return;
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
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
  request.keep_alive(true);
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::string(body);
  }
  request.prepare_payload();

  beast::error_code error = asio::error::would_block;
  stream_.expires_after(request_timeout_);
  http::async_write(
      stream_, request,
      [&error](beast::error_code result, std::size_t) { error = result; });
  RunQueued();
  if (error) return TransportError(fmt::format("send {}", path), error);

  http::response_parser<http::string_body> parser;
  parser.body_limit(body_limit_);
  error = asio::error::would_block;
  stream_.expires_after(request_timeout_);
  http::async_read(
      stream_, buffer_, parser,
      [&error](beast::error_code result, std::size_t) { error = result; });
  RunQueued();
  if (error) return TransportError(fmt::format("response to {}", path), error);

  ++requests_on_connection_;
  http::response<http::string_body> response = parser.release();
  if (!response.keep_alive()) Close();
  return HttpResult{.status = static_cast<int>(response.result_int()),
                    .body = std::move(response.body())};
}

}  // namespace dralloc::load
