#include "node/container_log_server.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <charconv>
#include <fstream>
#include <list>
#include <map>
#include <optional>

#include "common/log.h"

namespace dralloc::node {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr std::string_view kComponent = "container-logs";
// The most of a file one response reads at once (its end when larger).
constexpr int64_t kMaxReadBytes = 16 << 20;

struct LogRequest {
  std::string namespace_, pod, container;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  bool previous = false;
  bool follow = false;
};

std::string Decode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size()) {
      int value = 0;
      auto [end, error] =
          std::from_chars(in.data() + i + 1, in.data() + i + 3, value, 16);
      if (error == std::errc() && end == in.data() + i + 3) {
        out.push_back(static_cast<char>(value));
        i += 2;
        continue;
      }
    }
    out.push_back(in[i] == '+' ? ' ' : in[i]);
  }
  return out;
}

std::optional<int64_t> Number(const std::string& text) {
  int64_t value = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// The request for `target` ("/containerLogs/ns/pod/c?follow=true"), or an
// error text for a 400/404.
StatusOr<LogRequest> ParseTarget(std::string_view target) {
  const size_t question = target.find('?');
  std::string_view path = target.substr(0, question);
  std::map<std::string, std::string> query;
  if (question != std::string_view::npos) {
    std::string_view rest = target.substr(question + 1);
    while (!rest.empty()) {
      const size_t amp = rest.find('&');
      std::string_view pair = rest.substr(0, amp);
      rest = amp == std::string_view::npos ? "" : rest.substr(amp + 1);
      const size_t eq = pair.find('=');
      query[Decode(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : Decode(pair.substr(eq + 1));
    }
  }
  std::vector<std::string> parts;
  while (!path.empty()) {
    if (path.front() == '/') path.remove_prefix(1);
    const size_t slash = path.find('/');
    parts.push_back(Decode(path.substr(0, slash)));
    path = slash == std::string_view::npos ? "" : path.substr(slash);
  }
  if (parts.size() != 4 || parts[0] != "containerLogs") {
    return NotFoundError(fmt::format("404 page not found: {}", target));
  }
  LogRequest request{parts[1], parts[2], parts[3]};
  request.previous = query["previous"] == "true" || query["previous"] == "1";
  request.follow = query["follow"] == "true" || query["follow"] == "1";
  for (auto [name, target_field] :
       {std::pair{"tailLines", &request.tail_lines},
        std::pair{"limitBytes", &request.limit_bytes}}) {
    auto it = query.find(name);
    if (it == query.end() || it->second.empty()) continue;
    *target_field = Number(it->second);
    if (!*target_field || **target_field < 0) {
      return InvalidArgumentError(fmt::format(
          "{}: Invalid value: \"{}\": must be a non-negative integer", name,
          it->second));
    }
  }
  return request;
}

// Bytes [offset, end of file) of `path`, at most kMaxReadBytes (the last
// ones); `offset` moves to the end read. A missing file reads as empty.
std::string ReadFrom(const std::filesystem::path& path, int64_t& offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const int64_t size = in.tellg();
  if (size <= offset) {
    offset = std::min(offset, size);
    return "";
  }
  const int64_t start = std::max(offset, size - kMaxReadBytes);
  std::string out(size - start, '\0');
  in.seekg(start);
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(in.gcount());
  offset = start + static_cast<int64_t>(out.size());
  return out;
}

// The last `lines` lines of `text` (a final line without '\n' counts).
std::string TailLines(const std::string& text, int64_t lines) {
  if (lines == 0) return "";
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (int64_t seen = 0; pos > 0; --pos) {
    if (text[pos - 1] == '\n' && ++seen == lines) break;
  }
  return text.substr(pos);
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(n);
  }
  return true;
}

bool WriteChunk(int fd, std::string_view data) {
  if (data.empty()) return true;
  return WriteAll(fd, fmt::format("{:x}\r\n", data.size())) &&
         WriteAll(fd, data) && WriteAll(fd, "\r\n");
}

// True when the peer closed its side (checked without blocking).
bool ClientGone(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void SendText(int fd, int code, std::string_view reason,
              std::string_view body) {
  WriteAll(fd, fmt::format("HTTP/1.1 {} {}\r\nContent-Type: text/plain; "
                           "charset=utf-8\r\nContent-Length: {}\r\n"
                           "Connection: close\r\n\r\n{}",
                           code, reason, body.size(), body));
}

}  // namespace

struct ContainerLogServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  struct Connection {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Connection> connections;  // only the acceptor thread touches it
};

ContainerLogServer::ContainerLogServer(const ContainerRuntime& runtime,
                                       ContainerLogServerOptions options)
    : runtime_(runtime),
      options_(std::move(options)),
      impl_(std::make_unique<Impl>()) {}

ContainerLogServer::~ContainerLogServer() { Stop(); }

Status ContainerLogServer::Start() {
  beast::error_code ec;
  const auto address = asio::ip::make_address(options_.host, ec);
  if (ec) {
    return InvalidArgumentError(
        fmt::format("kubelet address {}: {}", options_.host, ec.message()));
  }
  const tcp::endpoint endpoint(address, options_.port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec)
    impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (!ec) impl_->acceptor.non_blocking(true, ec);
  if (ec) {
    return UnavailableError(fmt::format("kubelet port {}:{}: {}", options_.host,
                                        options_.port, ec.message()));
  }
  port_ = impl_->acceptor.local_endpoint().port();
  acceptor_thread_ = std::thread([this] { AcceptLoop(); });
  log::Info(kComponent, "serving container logs on {}:{}", options_.host,
            port_);
  return OkStatus();
}

void ContainerLogServer::AcceptLoop() {
  while (!stopping_) {
    pollfd p{impl_->acceptor.native_handle(), POLLIN, 0};
    ::poll(&p, 1, 50);
    // Threads of finished connections are joined here, so they do not pile
    // up in a long-running agent.
    for (auto it = impl_->connections.begin();
         it != impl_->connections.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = impl_->connections.erase(it);
      } else {
        ++it;
      }
    }
    beast::error_code ec;
    tcp::socket socket(impl_->io);
    impl_->acceptor.accept(socket, ec);
    if (ec) continue;
    const int fd = socket.release(ec);
    if (ec) continue;
    {
      MutexLock lock(mu_);
      open_fds_.insert(fd);
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    impl_->connections.push_back({std::thread([this, fd, done] {
                                    Serve(fd);
                                    {
                                      MutexLock lock(mu_);
                                      open_fds_.erase(fd);
                                    }
                                    ::close(fd);
                                    *done = true;
                                  }),
                                  done});
  }
}

void ContainerLogServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (acceptor_thread_.joinable()) acceptor_thread_.join();
  {
    // Unblocks reads and writes of open connections; the fds are closed by
    // their threads.
    MutexLock lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& connection : impl_->connections) connection.thread.join();
  impl_->connections.clear();
  beast::error_code ec;
  impl_->acceptor.close(ec);
}

void ContainerLogServer::Serve(int fd) {
  // A request must arrive within 10 s.
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  asio::io_context io;
  beast::error_code ec;
  tcp::socket socket(io);
  socket.assign(tcp::v4(), ::dup(fd), ec);
  if (ec) return;
  beast::flat_buffer buffer;
  http::request_parser<http::string_body> parser;
  parser.body_limit(64 << 10);
  http::read(socket, buffer, parser, ec);
  if (ec) return;
  const auto& request = parser.get();
  if (request.method() != http::verb::get) {
    return SendText(fd, 405, "Method Not Allowed", "only GET is served\n");
  }
  auto parsed = ParseTarget(
      std::string_view(request.target().data(), request.target().size()));
  if (!parsed.ok()) {
    const bool missing = parsed.status().code() == StatusCode::kNotFound;
    return SendText(fd, missing ? 404 : 400,
                    missing ? "Not Found" : "Bad Request",
                    parsed.status().message() + "\n");
  }
  const LogRequest& logs = *parsed;
  auto ref =
      runtime_.LogOf(logs.namespace_, logs.pod, logs.container, logs.previous);
  if (!ref.ok()) {
    // As the kubelet: a container that has not started yet is 400.
    const bool missing = ref.status().code() == StatusCode::kNotFound;
    return SendText(fd, missing ? 404 : 400,
                    missing ? "Not Found" : "Bad Request",
                    ref.status().message() + "\n");
  }
  int64_t offset = 0;
  std::string text = ref->path.empty() ? "" : ReadFrom(ref->path, offset);
  if (logs.tail_lines) text = TailLines(text, *logs.tail_lines);
  int64_t budget = logs.limit_bytes.value_or(INT64_MAX);
  if (static_cast<int64_t>(text.size()) > budget) text.resize(budget);
  budget -= static_cast<int64_t>(text.size());
  if (!logs.follow || !ref->running) {
    return SendText(fd, 200, "OK", text);
  }
  if (!WriteAll(fd,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
                "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n") ||
      !WriteChunk(fd, text)) {
    return;
  }
  const std::filesystem::path path = ref->path;
  // Bounded: ends when the run ends, the client leaves, the byte limit is
  // reached or the server stops.
  while (!stopping_ && budget > 0 && !ClientGone(fd)) {
    auto now = runtime_.LogOf(logs.namespace_, logs.pod, logs.container,
                              logs.previous);
    const bool still_running = now.ok() && now->running && now->path == path;
    std::string more = ReadFrom(path, offset);
    if (static_cast<int64_t>(more.size()) > budget) more.resize(budget);
    budget -= static_cast<int64_t>(more.size());
    if (!WriteChunk(fd, more)) return;
    if (!still_running) break;
    std::this_thread::sleep_for(options_.follow_poll);
  }
  WriteAll(fd, "0\r\n\r\n");
}

}  // namespace dralloc::node
