#include "apiserver/http_server.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>

#include "common/mutex.h"

namespace dralloc::apiserver {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string HttpRequest::Query(std::string_view name) const {
  auto range = query.equal_range(std::string(name));
  if (range.first == range.second) return {};
  return std::prev(range.second)->second;
}

bool HttpRequest::HasQuery(std::string_view name) const {
  return query.contains(std::string(name));
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

class SocketWriter : public ResponseWriter {
 public:
  SocketWriter(tcp::socket& socket, bool keep_alive)
      : socket_(socket), keep_alive_(keep_alive) {}

  void AddHeader(std::string name, std::string value) override {
    headers_ += name;
    headers_ += ": ";
    headers_ += value;
    headers_ += "\r\n";
  }

  void Send(int status, std::string content_type, std::string body) override {
    if (started_) return;
    started_ = true;
    std::string head = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
        "Cache-Control: no-cache, private\r\n{}{}\r\n",
        status, ReasonPhrase(status), content_type, body.size(), headers_,
        keep_alive_ ? "" : "Connection: close\r\n");
    std::array<asio::const_buffer, 2> buffers = {asio::buffer(head),
                                                 asio::buffer(body)};
    beast::error_code ec;
    asio::write(socket_, buffers, ec);
    ok_ = !ec;
  }

  bool StartStream(std::string content_type) override {
    if (started_) return false;
    started_ = true;
    streaming_ = true;
    std::string head = fmt::format(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nTransfer-Encoding: chunked\r\n"
        "Cache-Control: no-cache, private\r\n{}\r\n",
        content_type, headers_);
    beast::error_code ec;
    asio::write(socket_, asio::buffer(head), ec);
    ok_ = !ec;
    return ok_;
  }

  bool WriteChunk(std::string_view data) override {
    if (!streaming_ || !ok_ || data.empty()) return ok_;
    const std::string size = fmt::format("{:x}\r\n", data.size());
    std::array<asio::const_buffer, 3> buffers = {
        asio::buffer(size), asio::buffer(data.data(), data.size()),
        asio::buffer("\r\n", 2)};
    beast::error_code ec;
    asio::write(socket_, buffers, ec);
    ok_ = !ec;
    return ok_;
  }

  bool ClientGone() override {
    pollfd fd{socket_.native_handle(), POLLIN, 0};
    if (::poll(&fd, 1, 0) <= 0) return false;
    if ((fd.revents & (POLLHUP | POLLERR)) != 0) return true;
    char byte;
    return ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT) ==
           0;
  }

  // Ends a stream; true when the connection can serve another request.
  bool Finish() {
    if (!started_) Send(500, "text/plain", "no response");
    if (streaming_ && ok_) {
      beast::error_code ec;
      asio::write(socket_, asio::buffer("0\r\n\r\n", 5), ec);
      ok_ = !ec;
    }
    return ok_ && keep_alive_;
  }

 private:
  tcp::socket& socket_;
  bool keep_alive_;
  std::string headers_;
  bool started_ = false;
  bool streaming_ = false;
  bool ok_ = true;
};

}  // namespace

bool DecodeUrlComponent(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexValue(in[i + 1]);
    const int lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread accept_thread;
  std::atomic<bool> stopping{false};

  mutable Mutex mutex;
  CondVar all_closed;  // signalled when `threads` drops to 0
  std::set<tcp::socket*> sockets GUARDED_BY(mutex);
  size_t threads GUARDED_BY(mutex) = 0;  // connections being served

  void AcceptLoop() EXCLUDES(mutex) {
    while (!stopping) {
      auto socket = std::make_unique<tcp::socket>(io);
      beast::error_code ec;
      acceptor.accept(*socket, ec);
      if (ec) {
        if (stopping) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      socket->set_option(tcp::no_delay(true), ec);
      MutexLock lock(mutex);
      if (stopping) break;
      sockets.insert(socket.get());
      ++threads;
      std::thread([this, s = socket.release()] { Serve(s); }).detach();
    }
  }

  void Serve(tcp::socket* socket) EXCLUDES(mutex) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options.max_body_bytes);
      parser.header_limit(64 * 1024);
      beast::error_code ec;
      http::read(*socket, buffer, parser, ec);
      if (ec == http::error::body_limit) {
        SocketWriter writer(*socket, false);
        writer.Send(
            413, "application/json",
            fmt::format(
                R"({{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"the request body is larger than {} bytes","reason":"RequestEntityTooLarge","code":413}})",
                options.max_body_bytes));
        break;
      }
      if (ec) break;
      auto& message = parser.get();
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
      if (auto it = message.find(http::field::authorization);
          it != message.end()) {
        request.authorization = std::string(it->value());
        request.has_authorization = true;
      }
      request.body = std::move(message.body());
      SocketWriter writer(*socket, message.keep_alive());
      handler(request, writer);
      if (!writer.Finish() || stopping) break;
    }
    beast::error_code ignored;
    socket->shutdown(tcp::socket::shutdown_both, ignored);
    socket->close(ignored);
    MutexLock lock(mutex);
    sockets.erase(socket);
    delete socket;
    if (--threads == 0) all_closed.SignalAll();
  }
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  beast::error_code ec;
  const auto address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) {
    return InvalidArgumentError(
        fmt::format("--listen: bad address \"{}\"", impl_->options.host));
  }
  tcp::endpoint endpoint(address, impl_->options.port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec)
    impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("listen on {}:{}: {}", impl_->options.host,
                              impl_->options.port, ec.message()));
  }
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->accept_thread = std::thread([this] { impl_->AcceptLoop(); });
  return OkStatus();
}

void HttpServer::Stop(const std::function<void()>& before_close) {
  if (!impl_->accept_thread.joinable()) return;
  impl_->stopping = true;
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->accept_thread.join();
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  if (before_close) before_close();
  Impl& impl = *impl_;
  MutexLock lock(impl.mutex);
  for (tcp::socket* socket : impl.sockets) {
    ::shutdown(socket->native_handle(), SHUT_RDWR);
  }
  impl.all_closed.WaitFor(
      impl.mutex, std::chrono::seconds(10),
      [&]() REQUIRES(impl.mutex) { return impl.threads == 0; });
}

size_t HttpServer::open_connections() const {
  MutexLock lock(impl_->mutex);
  return impl_->threads;
}

}  // namespace dralloc::apiserver
