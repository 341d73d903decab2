#include "apiserver/http_connection.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <cctype>

#include "apiserver/tls_server_context.h"

namespace dralloc::apiserver {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

constexpr unsigned char kTlsHandshakeRecord = 0x16;
constexpr size_t kFirstReadBytes = 4096;

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

// Query string "a=1&b=x%20y" → multimap; keys and values are decoded, and
// "+" means a space as in HTML forms (Go's url.ParseQuery does the same).
void ParseQuery(std::string_view text,
                std::multimap<std::string, std::string>& out) {
  while (!text.empty()) {
    const size_t amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view()
                                         : text.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key_raw(pair.substr(0, eq));
    std::string value_raw(eq == std::string_view::npos ? std::string_view()
                                                       : pair.substr(eq + 1));
    for (std::string* s : {&key_raw, &value_raw}) {
      for (char& c : *s) {
        if (c == '+') c = ' ';
      }
    }
    std::string key, value;
    if (!DecodeUrlComponent(key_raw, key) ||
        !DecodeUrlComponent(value_raw, value)) {
      continue;
    }
    out.emplace(std::move(key), std::move(value));
  }
}

// A whole response that closes the connection, for errors found while
// reading (the handler never sees those requests).
std::string ClosingResponse(int status, std::string_view reason,
                            std::string_view message) {
  const std::string body = fmt::format(
      R"({{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{}","reason":"{}","code":{}}})",
      message, reason, status);
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\n"
      "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
      status, ReasonPhrase(status), body.size(), body);
}

}  // namespace

// Writes one response synchronously on the worker thread that runs the
// handler (no async operation is pending on the connection meanwhile).
class ConnectionResponseWriter : public ResponseWriter {
 public:
  ConnectionResponseWriter(HttpConnection& connection, bool keep_alive)
      : connection_(connection), keep_alive_(keep_alive) {}

  void AddHeader(std::string name, std::string value) override {
    headers_ += name;
    headers_ += ": ";
    headers_ += value;
    headers_ += "\r\n";
  }

  void Send(int status, std::string content_type, std::string body) override {
    if (started_) return;
    started_ = true;
    const std::string head = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
        "Cache-Control: no-cache, private\r\n{}{}\r\n",
        status, ReasonPhrase(status), content_type, body.size(), headers_,
        keep_alive_ ? "" : "Connection: close\r\n");
    const std::array<asio::const_buffer, 2> buffers = {asio::buffer(head),
                                                       asio::buffer(body)};
    ok_ = connection_.WriteAll(buffers);
  }

  bool StartStream(std::string content_type) override {
    if (started_) return false;
    started_ = true;
    streaming_ = true;
    const std::string head = fmt::format(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nTransfer-Encoding: chunked\r\n"
        "Cache-Control: no-cache, private\r\n{}\r\n",
        content_type, headers_);
    const std::array<asio::const_buffer, 1> buffers = {asio::buffer(head)};
    ok_ = connection_.WriteAll(buffers);
    return ok_;
  }

  bool WriteChunk(std::string_view data) override {
    if (!streaming_ || !ok_ || data.empty()) return ok_;
    const std::string size = fmt::format("{:x}\r\n", data.size());
    const std::array<asio::const_buffer, 3> buffers = {
        asio::buffer(size), asio::buffer(data.data(), data.size()),
        asio::buffer("\r\n", 2)};
    ok_ = connection_.WriteAll(buffers);
    return ok_;
  }

  bool ClientGone() override { return connection_.PeerClosed(); }

  // Ends the response; true when the connection can serve another request.
  bool Finish() {
    if (!started_) Send(500, "text/plain", "no response");
    if (streaming_ && ok_) {
      const std::array<asio::const_buffer, 1> buffers = {
          asio::buffer("0\r\n\r\n", 5)};
      ok_ = connection_.WriteAll(buffers);
    }
    return ok_ && keep_alive_;
  }

 private:
  HttpConnection& connection_;
  bool keep_alive_;
  std::string headers_;
  bool started_ = false;
  bool streaming_ = false;
  bool ok_ = true;
};

HttpConnection::HttpConnection(tcp::socket socket,
                               const HttpConnectionContext& context)
    : context_(context),
      strand_(socket.get_executor()),
      plain_(std::move(socket)),
      deadline_(plain_.get_executor()) {
  error_code ec;
  plain_.set_option(tcp::no_delay(true), ec);
  const tcp::endpoint peer = plain_.remote_endpoint(ec);
  if (!ec) {
    remote_address_ =
        peer.address().is_v6()
            ? fmt::format("[{}]:{}", peer.address().to_string(), peer.port())
            : fmt::format("{}:{}", peer.address().to_string(), peer.port());
  }
}

template <typename Operation>
void HttpConnection::WithStream(Operation&& operation) {
  if (tls_) {
    operation(*tls_);
  } else {
    operation(plain_);
  }
}

tcp::socket& HttpConnection::socket() {
  return tls_ ? tls_->next_layer() : plain_;
}

void HttpConnection::Start() {
  asio::post(strand_, [self = shared_from_this()] {
    self->ArmDeadline(self->context_.options->read_header_timeout);
    if (self->context_.tls != nullptr) {
      self->SniffTlsRecord();
    } else {
      self->ReadHeader();
    }
  });
}

void HttpConnection::Shutdown() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->closed_) return;
    ::shutdown(self->socket().native_handle(), SHUT_RDWR);
  });
}

// Reads the first bytes before the handshake, to answer a plain HTTP client
// the way Go's server does instead of failing its handshake silently.
void HttpConnection::SniffTlsRecord() {
  plain_.async_read_some(
      buffer_.prepare(kFirstReadBytes),
      [self = shared_from_this()](const error_code& ec, size_t bytes) {
        self->OnSniffed(ec, bytes);
      });
}

void HttpConnection::OnSniffed(const error_code& ec, size_t bytes) {
  if (ec) return Close();
  buffer_.commit(bytes);
  const auto first = static_cast<const unsigned char*>(buffer_.data().data());
  if (first[0] != kTlsHandshakeRecord) {
    if (first[0] >= 'A' && first[0] <= 'Z') {
      return RespondAndClose(
          "HTTP/1.0 400 Bad Request\r\n\r\n"
          "Client sent an HTTP request to an HTTPS server.\n");
    }
    return Close();  // garbage
  }
  tls_ = std::make_unique<asio::ssl::stream<tcp::socket>>(std::move(plain_),
                                                          *context_.tls);
  tls_->async_handshake(
      asio::ssl::stream_base::server, buffer_.data(),
      [self = shared_from_this()](const error_code& ec, size_t used) {
        self->OnHandshake(ec, used);
      });
}

void HttpConnection::OnHandshake(const error_code& ec, size_t /*used*/) {
  if (ec) return Close();
  // TLS 1.2 and 1.3 clients send no application data before the handshake
  // completes, so the sniffed bytes were all handshake.
  buffer_.consume(buffer_.size());
  peer_certificates_der_ = PeerCertificatesDer(*tls_);
  ReadHeader();
}

void HttpConnection::WaitForNextRequest() {
  if (buffer_.size() > 0) {  // pipelined
    ArmDeadline(context_.options->read_header_timeout);
    return ReadHeader();
  }
  ArmDeadline(context_.options->idle_timeout);
  WithStream([this](auto& stream) {
    stream.async_read_some(
        buffer_.prepare(kFirstReadBytes),
        [self = shared_from_this()](const error_code& ec, size_t bytes) {
          if (ec) return self->Close();
          self->buffer_.commit(bytes);
          self->ArmDeadline(self->context_.options->read_header_timeout);
          self->ReadHeader();
        });
  });
}

void HttpConnection::ReadHeader() {
  parser_.emplace();
  parser_->header_limit(
      static_cast<uint32_t>(context_.options->max_header_bytes));
  parser_->body_limit(context_.options->max_body_bytes);
  WithStream([this](auto& stream) {
    http::async_read_header(
        stream, buffer_, *parser_,
        [self = shared_from_this()](const error_code& ec, size_t) {
          self->OnHeader(ec);
        });
  });
}

void HttpConnection::OnHeader(const error_code& ec) {
  if (ec == http::error::body_limit) return OnBody(ec);
  if (ec == http::error::header_limit) {
    return RespondAndClose(ClosingResponse(
        431, "RequestHeaderFieldsTooLarge",
        fmt::format("the request header is larger than {} bytes",
                    context_.options->max_header_bytes)));
  }
  if (ec) return Close();
  if (parser_->is_done()) return Dispatch();
  ArmDeadline(context_.options->body_read_timeout);
  WithStream([this](auto& stream) {
    http::async_read(stream, buffer_, *parser_,
                     [self = shared_from_this()](const error_code& ec, size_t) {
                       self->OnBody(ec);
                     });
  });
}

void HttpConnection::OnBody(const error_code& ec) {
  if (ec == http::error::body_limit) {
    return RespondAndClose(
        ClosingResponse(413, "RequestEntityTooLarge",
                        fmt::format("the request body is larger than {} bytes",
                                    context_.options->max_body_bytes)));
  }
  if (ec) return Close();
  Dispatch();
}

void HttpConnection::Dispatch() {
  CancelDeadline();
  if (*context_.stopping ||
      !context_.workers->Submit(
          [self = shared_from_this()] { self->Serve(); })) {
    Close();
  }
}

HttpRequest HttpConnection::BuildRequest() {
  auto& message = parser_->get();
  HttpRequest request;
  request.method = std::string(message.method_string());
  const std::string_view target(message.target().data(),
                                message.target().size());
  const size_t question = target.find('?');
  if (!DecodeUrlComponent(target.substr(0, question), request.path)) {
    request.path = std::string(target.substr(0, question));
  }
  if (question != std::string_view::npos) {
    ParseQuery(target.substr(question + 1), request.query);
  }
  request.content_type = std::string(message[http::field::content_type]);
  request.accept = std::string(message[http::field::accept]);
  request.user_agent = std::string(message[http::field::user_agent]);
  if (auto it = message.find(http::field::authorization); it != message.end()) {
    request.authorization = std::string(it->value());
    request.has_authorization = true;
  }
  for (const auto& field : message) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    if (name.starts_with("impersonate-")) {
      request.impersonation_headers.emplace_back(std::move(name),
                                                 std::string(field.value()));
    }
  }
  request.tls = tls_ != nullptr;
  request.peer_certificates_der = peer_certificates_der_;
  request.remote_address = remote_address_;
  request.body = std::move(message.body());
  return request;
}

void HttpConnection::Serve() {
  const HttpRequest request = BuildRequest();
  ConnectionResponseWriter writer(*this, parser_->get().keep_alive());
  (*context_.handler)(request, writer);
  const bool again = writer.Finish() && !*context_.stopping;
  asio::post(strand_, [self = shared_from_this(), again] {
    self->parser_.reset();
    if (again && !self->closed_) {
      self->WaitForNextRequest();
    } else {
      self->Close();
    }
  });
}

void HttpConnection::RespondAndClose(std::string response) {
  ArmDeadline(context_.options->read_header_timeout);
  auto text = std::make_shared<std::string>(std::move(response));
  auto done = [self = shared_from_this(), text](const error_code&, size_t) {
    self->Close();
  };
  if (tls_) {
    asio::async_write(*tls_, asio::buffer(*text), std::move(done));
  } else {
    asio::async_write(plain_, asio::buffer(*text), std::move(done));
  }
}

void HttpConnection::ArmDeadline(std::chrono::milliseconds timeout) {
  const uint64_t generation = ++deadline_generation_;
  deadline_.expires_after(timeout);
  deadline_.async_wait(
      [self = shared_from_this(), generation](const error_code& ec) {
        if (ec || generation != self->deadline_generation_) return;
        // Closing cancels the pending operation, whose handler calls Close.
        error_code ignored;
        self->socket().close(ignored);
      });
}

void HttpConnection::CancelDeadline() {
  ++deadline_generation_;
  deadline_.cancel();
}

void HttpConnection::Close() {
  if (closed_) return;
  closed_ = true;
  CancelDeadline();
  error_code ignored;
  socket().shutdown(tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
  if (context_.on_closed) context_.on_closed(this);
}

namespace {

int64_t SteadyNanos(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             t.time_since_epoch())
      .count();
}

}  // namespace

void HttpConnection::ShutdownIfWriteStalled(
    std::chrono::steady_clock::time_point now) {
  const int64_t limit =
      SteadyNanos(now) - std::chrono::duration_cast<std::chrono::nanoseconds>(
                             context_.options->write_timeout)
                             .count();
  const int64_t started = write_started_ns_.load();
  if (started == 0 || started > limit) return;
  // On the strand, which alone closes the socket: the descriptor is still
  // this connection's.
  asio::post(strand_, [self = shared_from_this(), started] {
    if (self->closed_ || self->write_started_ns_.load() != started) return;
    ::shutdown(self->socket().native_handle(), SHUT_RDWR);
  });
}

bool HttpConnection::WriteAll(std::span<const asio::const_buffer> buffers) {
  write_started_ns_ = SteadyNanos(std::chrono::steady_clock::now());
  struct WriteDone {
    std::atomic<int64_t>& started;
    ~WriteDone() { started = 0; }
  } write_done{write_started_ns_};
  error_code ec;
  if (tls_) {
    // One TLS record per response piece, not one per buffer.
    std::string joined;
    for (const asio::const_buffer& b : buffers) {
      joined.append(static_cast<const char*>(b.data()), b.size());
    }
    asio::write(*tls_, asio::buffer(joined), ec);
  } else {
    asio::write(plain_, buffers, ec);
  }
  return !ec;
}

bool HttpConnection::PeerClosed() {
  // POLLRDHUP: the peer shut its side, whether or not unread bytes (a TLS
  // close_notify) precede the end.
  pollfd fd{socket().native_handle(), POLLRDHUP, 0};
  if (::poll(&fd, 1, 0) <= 0) return false;
  return (fd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

}  // namespace dralloc::apiserver
