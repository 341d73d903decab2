#include "apiserver/http_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <optional>
#include <thread>
#include <unordered_map>

#include "apiserver/http_connection.h"
#include "apiserver/http_worker_pool.h"
#include "apiserver/tls_server_context.h"
#include "common/mutex.h"

namespace dralloc::apiserver {

namespace asio = boost::asio;
namespace beast = boost::beast;
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

// Accept errors that end with time (out of descriptors or memory): retry
// after a pause instead of spinning.
constexpr auto kAcceptRetryPause = std::chrono::milliseconds(50);
constexpr auto kStopTimeout = std::chrono::seconds(10);

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
  std::unique_ptr<asio::ssl::context> tls;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>>
      work;
  tcp::acceptor acceptor{asio::make_strand(io)};
  asio::steady_timer accept_retry{acceptor.get_executor()};
  asio::steady_timer write_watchdog{asio::make_strand(io)};
  std::vector<std::thread> io_threads;
  HttpWorkerPool workers;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> refused{0};

  mutable Mutex mutex;
  CondVar all_closed;  // signalled when `connections` becomes empty
  std::unordered_map<HttpConnection*, std::shared_ptr<HttpConnection>>
      connections GUARDED_BY(mutex);

  HttpConnectionContext ConnectionContext() {
    HttpConnectionContext context;
    context.options = &options;
    context.handler = &handler;
    context.tls = tls.get();
    context.workers = &workers;
    context.stopping = &stopping;
    context.on_closed = [this](HttpConnection* connection) {
      Forget(connection);
    };
    return context;
  }

  void Accept() {
    acceptor.async_accept(
        asio::make_strand(io),
        [this](const beast::error_code& ec, tcp::socket socket) {
          OnAccept(ec, std::move(socket));
        });
  }

  void OnAccept(const beast::error_code& ec, tcp::socket socket)
      EXCLUDES(mutex) {
    if (stopping || ec == asio::error::operation_aborted) return;
    if (ec) {
      accept_retry.expires_after(kAcceptRetryPause);
      accept_retry.async_wait([this](const beast::error_code& wait_ec) {
        if (!wait_ec && !stopping) Accept();
      });
      return;
    }
    Accept();
    std::shared_ptr<HttpConnection> connection;
    {
      MutexLock lock(mutex);
      // Checked under the lock: Stop shuts down every connection registered
      // before it took the lock after setting `stopping`.
      if (stopping) return;
      if (connections.size() >= options.max_connections) {
        ++refused;
        beast::error_code ignored;
        socket.close(ignored);
        return;
      }
      connection = std::make_shared<HttpConnection>(std::move(socket),
                                                    ConnectionContext());
      connections.emplace(connection.get(), connection);
    }
    connection->Start();
  }

  void Forget(HttpConnection* connection) EXCLUDES(mutex) {
    MutexLock lock(mutex);
    connections.erase(connection);
    if (connections.empty()) all_closed.SignalAll();
  }

  // Every quarter of write_timeout (at most a second) shuts down the
  // connections whose response write has been blocked too long.
  void WatchWrites() EXCLUDES(mutex) {
    write_watchdog.expires_after(std::clamp<std::chrono::milliseconds>(
        options.write_timeout / 4, std::chrono::milliseconds(1),
        std::chrono::seconds(1)));
    write_watchdog.async_wait([this](const beast::error_code& ec) {
      if (ec || stopping) return;
      const auto now = std::chrono::steady_clock::now();
      {
        MutexLock lock(mutex);
        for (const auto& [_, connection] : connections) {
          connection->ShutdownIfWriteStalled(now);
        }
      }
      WatchWrites();
    });
  }

  void ShutdownConnections() EXCLUDES(mutex) {
    std::vector<std::shared_ptr<HttpConnection>> open;
    {
      MutexLock lock(mutex);
      for (const auto& [_, connection] : connections) {
        open.push_back(connection);
      }
    }
    for (const auto& connection : open) connection->Shutdown();
  }
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  Impl& impl = *impl_;
  const HttpServerOptions& options = impl.options;
  if (!options.tls_cert_file.empty() || !options.tls_private_key_file.empty() ||
      !options.client_ca_file.empty()) {
    ASSIGN_OR_RETURN(impl.tls,
                     NewTlsServerContext({options.tls_cert_file,
                                          options.tls_private_key_file,
                                          options.client_ca_file}));
  }
  beast::error_code ec;
  const auto address = asio::ip::make_address(options.host, ec);
  if (ec) {
    return InvalidArgumentError(
        fmt::format("--listen: bad address \"{}\"", options.host));
  }
  tcp::endpoint endpoint(address, options.port);
  impl.acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl.acceptor.bind(endpoint, ec);
  if (!ec) impl.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("listen on {}:{}: {}", options.host, options.port,
                              ec.message()));
  }
  port_ = impl.acceptor.local_endpoint().port();
  impl.work.emplace(impl.io.get_executor());
  impl.Accept();
  impl.WatchWrites();
  for (int i = 0; i < std::max(1, options.io_threads); ++i) {
    impl.io_threads.emplace_back([&impl] { impl.io.run(); });
  }
  return OkStatus();
}

bool HttpServer::serving_tls() const { return impl_->tls != nullptr; }

void HttpServer::Stop(const std::function<void()>& before_close) {
  Impl& impl = *impl_;
  if (impl.io_threads.empty()) return;
  impl.stopping = true;
  asio::post(impl.acceptor.get_executor(), [&impl] {
    beast::error_code ignored;
    impl.acceptor.close(ignored);
    impl.accept_retry.cancel();
  });
  asio::post(impl.write_watchdog.get_executor(),
             [&impl] { impl.write_watchdog.cancel(); });
  if (before_close) before_close();
  impl.ShutdownConnections();
  {
    MutexLock lock(impl.mutex);
    impl.all_closed.WaitFor(
        impl.mutex, kStopTimeout,
        [&]() REQUIRES(impl.mutex) { return impl.connections.empty(); });
  }
  impl.workers.Stop(kStopTimeout);
  impl.work.reset();
  impl.io.stop();
  for (std::thread& thread : impl.io_threads) thread.join();
  impl.io_threads.clear();
}

size_t HttpServer::open_connections() const {
  MutexLock lock(impl_->mutex);
  return impl_->connections.size();
}

uint64_t HttpServer::refused_connections() const { return impl_->refused; }

}  // namespace dralloc::apiserver
