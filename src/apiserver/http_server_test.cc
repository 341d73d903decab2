#include "apiserver/http_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>

#include "common/mutex.h"

namespace dralloc::apiserver {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// ---- certificates made for the test (nothing committed) ----

struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct X509Deleter {
  void operator()(X509* cert) const { X509_free(cert); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

struct Identity {
  KeyPtr key;
  X509Ptr cert;
};

// A P-256 key and a certificate for `common_name`, signed by `issuer` (self-
// signed without one).
Identity MakeIdentity(const std::string& common_name, const Identity* issuer,
                      bool is_ca) {
  static std::atomic<long> serial{1};
  Identity identity{KeyPtr(EVP_EC_gen("P-256")), X509Ptr(X509_new())};
  X509* cert = identity.cert.get();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(
      cert, issuer ? X509_get_subject_name(issuer->cert.get()) : name);
  X509_set_pubkey(cert, identity.key.get());
  if (is_ca) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(
        nullptr, nullptr, NID_basic_constraints, "critical,CA:TRUE");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert, issuer ? issuer->key.get() : identity.key.get(),
            EVP_sha256());
  return identity;
}

std::string CertPem(const Identity& identity) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, identity.cert.get());
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

std::string KeyPem(const Identity& identity) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, identity.key.get(), nullptr, nullptr, 0,
                           nullptr, nullptr);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

std::string CertDer(const Identity& identity) {
  const int size = i2d_X509(identity.cert.get(), nullptr);
  std::string der(static_cast<size_t>(size), '\0');
  auto* cursor = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(identity.cert.get(), &cursor);
  return der;
}

// A CA, a server certificate and a client certificate in a temporary
// directory.
class TestPki {
 public:
  TestPki()
      : ca_(MakeIdentity("test-ca", nullptr, true)),
        server_(MakeIdentity("apiserver", &ca_, false)),
        client_(MakeIdentity("alice", &ca_, false)) {
    char pattern[] = "/tmp/http_server_test.XXXXXX";
    dir_ = ::mkdtemp(pattern);
    Write("ca.crt", CertPem(ca_));
    Write("server.crt", CertPem(server_));
    Write("server.key", KeyPem(server_));
    Write("client.key", KeyPem(client_));
    Write("other.key", KeyPem(MakeIdentity("other", nullptr, false)));
    Write("garbage.pem", "not a certificate\n");
  }
  ~TestPki() { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  const Identity& ca() const { return ca_; }
  const Identity& client() const { return client_; }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
  }

 private:
  Identity ca_, server_, client_;
  std::string dir_;
};

// ---- clients ----

// Runs `io` until `done` or the deadline; false on timeout.
bool RunUntil(asio::io_context& io, const bool& done,
              std::chrono::milliseconds timeout = 10s) {
  io.restart();
  const auto deadline = Clock::now() + timeout;
  while (!done && Clock::now() < deadline) {
    io.run_one_for(deadline - Clock::now());
  }
  return done;
}

// A TLS client with a deadline on every step (no verification of the
// server: these tests are about the transport).
class TlsClient {
 public:
  explicit TlsClient(const Identity* identity = nullptr,
                     const Identity* chain_ca = nullptr)
      : context_(ssl::context::tls_client) {
    context_.set_verify_mode(ssl::verify_none);
    if (identity != nullptr) {
      SSL_CTX_use_certificate(context_.native_handle(), identity->cert.get());
      if (chain_ca != nullptr) {
        SSL_CTX_add1_chain_cert(context_.native_handle(), chain_ca->cert.get());
      }
      SSL_CTX_use_PrivateKey(context_.native_handle(), identity->key.get());
    }
    stream_ = std::make_unique<ssl::stream<tcp::socket>>(io_, context_);
  }

  bool Connect(uint16_t port) {
    boost::system::error_code ec;
    stream_->next_layer().connect({asio::ip::make_address("127.0.0.1"), port},
                                  ec);
    if (ec) return false;
    bool done = false;
    stream_->async_handshake(ssl::stream_base::client,
                             [&](const boost::system::error_code& e) {
                               ec = e;
                               done = true;
                             });
    return RunUntil(io_, done) && !ec;
  }

  bool Send(const std::string& data) {
    bool done = false;
    boost::system::error_code ec;
    asio::async_write(*stream_, asio::buffer(data),
                      [&](const boost::system::error_code& e, size_t) {
                        ec = e;
                        done = true;
                      });
    return RunUntil(io_, done) && !ec;
  }

  std::optional<http::response<http::string_body>> ReadResponse() {
    http::response<http::string_body> response;
    bool done = false;
    boost::system::error_code ec;
    http::async_read(*stream_, buffer_, response,
                     [&](const boost::system::error_code& e, size_t) {
                       ec = e;
                       done = true;
                     });
    if (!RunUntil(io_, done) || ec) return std::nullopt;
    return response;
  }

  std::string negotiated_alpn() {
    const unsigned char* data = nullptr;
    unsigned int size = 0;
    SSL_get0_alpn_selected(stream_->native_handle(), &data, &size);
    return std::string(reinterpret_cast<const char*>(data), size);
  }

  void OfferAlpn() {
    static constexpr unsigned char kProtocols[] = {
        2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_set_alpn_protos(stream_->native_handle(), kProtocols,
                        sizeof(kProtocols));
  }

  void Close() {
    boost::system::error_code ignored;
    stream_->next_layer().close(ignored);
  }

 private:
  asio::io_context io_;
  ssl::context context_;
  std::unique_ptr<ssl::stream<tcp::socket>> stream_;
  beast::flat_buffer buffer_;
};

// A blocking TCP socket for raw bytes; closed on destruction.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address),
                           sizeof(address)) == 0;
  }
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawSocket(RawSocket&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), connected_(other.connected_) {}

  bool connected() const { return connected_; }
  bool Send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads until the server closes the connection or `timeout` passes;
  // `closed` says which.
  std::string ReadUntilClosed(bool& closed,
                              std::chrono::milliseconds timeout = 10s) {
    std::string received;
    closed = false;
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      pollfd fd{fd_, POLLIN, 0};
      if (::poll(&fd, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        closed = true;
        break;
      }
      received.append(buffer, static_cast<size_t>(n));
    }
    return received;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// Polls `condition` until it holds or 10 s pass.
template <typename Condition>
bool Eventually(Condition condition, std::chrono::milliseconds timeout = 10s) {
  const auto deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

long ProcStatusField(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::stol(line.substr(field.size() + 1));
    }
  }
  return -1;
}

// Sends raw bytes and reads until the server closes the connection.
std::string Exchange(uint16_t port, const std::string& request) {
  RawSocket socket(port);
  if (!socket.connected()) return "connect failed";
  socket.Send(request);
  bool closed = false;
  return socket.ReadUntilClosed(closed);
}

// ---- the server under test ----

class HttpServerTest : public testing::Test {
 protected:
  void StartServer(HttpServerOptions options) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<HttpServer>(
        std::move(options),
        [this](const HttpRequest& request, ResponseWriter& writer) {
          Handle(request, writer);
        });
    const Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }
  void StartPlain() {
    HttpServerOptions options;
    options.max_body_bytes = 1024;
    StartServer(options);
  }
  HttpServerOptions TlsOptions() const {
    HttpServerOptions options;
    options.tls_cert_file = pki_.Path("server.crt");
    options.tls_private_key_file = pki_.Path("server.key");
    options.client_ca_file = pki_.Path("ca.crt");
    return options;
  }

  void Handle(const HttpRequest& request, ResponseWriter& writer) {
    ++handled_;
    {
      MutexLock lock(mu_);
      last_request_ = request;
    }
    if (request.path == "/stream") {
      writer.StartStream("application/json");
      writer.WriteChunk("{\"a\":1}\n");
      writer.WriteChunk("{\"b\":2}\n");
      return;
    }
    if (request.path == "/huge") {
      writer.Send(200, "text/plain", std::string(64u << 20, 'x'));
      return;
    }
    if (request.path == "/until-gone") {
      writer.StartStream("application/json");
      writer.WriteChunk("{}\n");
      const bool gone = Eventually([&] { return writer.ClientGone(); });
      stream_saw_client_gone_ = gone;
      return;
    }
    writer.AddHeader("X-Query", request.Query("q"));
    writer.Send(200, "text/plain",
                fmt::format("{} {} {} tls={} certs={}", request.method,
                            request.path, request.body.size(), request.tls,
                            request.peer_certificates_der.size()));
  }

  HttpRequest LastRequest() {
    MutexLock lock(mu_);
    return last_request_;
  }

  TestPki pki_;
  std::unique_ptr<HttpServer> server_;
  std::atomic<int> handled_{0};
  std::atomic<bool> stream_saw_client_gone_{false};
  Mutex mu_;
  HttpRequest last_request_ GUARDED_BY(mu_);
};

// ---- plain HTTP ----

TEST_F(HttpServerTest, ServesKeepAliveRequestsAndDecodesQueries) {
  StartPlain();
  const std::string response =
      Exchange(server_->port(),
               "GET /a%2Fb?q=x%3Dy+z&q=last HTTP/1.1\r\nHost: h\r\n\r\n"
               "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
               "Connection: close\r\n\r\nabc");
  EXPECT_NE(response.find("GET /a/b 0 tls=false"), std::string::npos)
      << response;
  EXPECT_NE(response.find("X-Query: last"), std::string::npos) << response;
  EXPECT_NE(response.find("POST /p 3"), std::string::npos) << response;
  EXPECT_EQ(LastRequest().remote_address.rfind("127.0.0.1:", 0), 0u);
}

TEST_F(HttpServerTest, StreamsChunks) {
  StartPlain();
  const std::string response =
      Exchange(server_->port(),
               "GET /stream HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_NE(response.find("8\r\n{\"a\":1}\n\r\n"), std::string::npos)
      << response;
  EXPECT_NE(response.find("0\r\n\r\n"), std::string::npos);
}

TEST_F(HttpServerTest, RefusesOversizedBodiesWith413) {
  StartPlain();
  const std::string response =
      Exchange(server_->port(),
               "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n" +
                   std::string(5000, 'x'));
  EXPECT_NE(response.find("HTTP/1.1 413"), std::string::npos) << response;
  EXPECT_NE(response.find("RequestEntityTooLarge"), std::string::npos);
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerTest, RefusesOversizedHeadersWith431) {
  HttpServerOptions options;
  options.max_header_bytes = 2048;
  StartServer(options);
  const std::string response =
      Exchange(server_->port(), "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " +
                                    std::string(4096, 'x') + "\r\n\r\n");
  EXPECT_NE(response.find("HTTP/1.1 431"), std::string::npos) << response;
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerTest, SurvivesGarbage) {
  StartPlain();
  Exchange(server_->port(), std::string("\x01\x02 not http\r\n\r\n"));
  Exchange(server_->port(), "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n");
  const std::string response =
      Exchange(server_->port(),
               "GET /ok HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("GET /ok 0"), std::string::npos) << response;
}

TEST_F(HttpServerTest, StreamHandlerSeesTheClientGo) {
  StartPlain();
  {
    RawSocket socket(server_->port());
    socket.Send("GET /until-gone HTTP/1.1\r\nHost: h\r\n\r\n");
    ASSERT_TRUE(Eventually([&] { return handled_ == 1; }));
  }
  EXPECT_TRUE(Eventually([&] { return server_->open_connections() == 0; }));
  EXPECT_TRUE(stream_saw_client_gone_);
}

// ---- TLS ----

TEST_F(HttpServerTest, TlsRoundTripWithoutClientCertificate) {
  StartServer(TlsOptions());
  EXPECT_TRUE(server_->serving_tls());
  TlsClient client;
  client.OfferAlpn();
  ASSERT_TRUE(client.Connect(server_->port()));
  EXPECT_EQ(client.negotiated_alpn(), "http/1.1");
  ASSERT_TRUE(client.Send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body(), "GET /x 0 tls=true certs=0");
}

TEST_F(HttpServerTest, TlsDeliversThePeerChainLeafFirst) {
  StartServer(TlsOptions());
  TlsClient client(&pki_.client(), &pki_.ca());
  ASSERT_TRUE(client.Connect(server_->port()));
  ASSERT_TRUE(
      client.Send("POST /p HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer t\r\n"
                  "Content-Length: 2\r\n\r\nok"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body(), "POST /p 2 tls=true certs=2");
  const HttpRequest request = LastRequest();
  ASSERT_EQ(request.peer_certificates_der.size(), 2u);
  EXPECT_EQ(request.peer_certificates_der[0], CertDer(pki_.client()));
  EXPECT_EQ(request.peer_certificates_der[1], CertDer(pki_.ca()));
  EXPECT_EQ(request.authorization, "Bearer t");
  EXPECT_EQ(request.remote_address.rfind("127.0.0.1:", 0), 0u);
}

TEST_F(HttpServerTest, TlsAcceptsCertificatesItCannotVerify) {
  StartServer(TlsOptions());
  const Identity stranger = MakeIdentity("mallory", nullptr, false);
  TlsClient client(&stranger);
  ASSERT_TRUE(client.Connect(server_->port()));
  ASSERT_TRUE(client.Send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body(), "GET /x 0 tls=true certs=1");
}

TEST_F(HttpServerTest, TlsKeepAliveReusesTheConnectionAndStreams) {
  StartServer(TlsOptions());
  TlsClient client;
  ASSERT_TRUE(client.Connect(server_->port()));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client.Send("GET /again HTTP/1.1\r\nHost: h\r\n\r\n"));
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value()) << i;
    EXPECT_EQ(response->body(), "GET /again 0 tls=true certs=0");
  }
  ASSERT_TRUE(client.Send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  auto stream = client.ReadResponse();
  ASSERT_TRUE(stream.has_value());
  EXPECT_EQ(stream->body(), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_EQ(server_->open_connections(), 1u);
}

TEST_F(HttpServerTest, PlainHttpToTheTlsPortGets400) {
  StartServer(TlsOptions());
  const std::string response =
      Exchange(server_->port(),
               "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.0 400 Bad Request", 0), 0u) << response;
  EXPECT_NE(response.find("Client sent an HTTP request to an HTTPS server"),
            std::string::npos);
}

TEST_F(HttpServerTest, GarbageHandshakesAreDroppedWithoutHarm) {
  StartServer(TlsOptions());
  for (const std::string& garbage :
       {std::string("\x16\x03\x01\x00\x10 garbage garbage", 21),
        std::string("\x00\xff\x13\x37", 4), std::string(2000, '\x16')}) {
    RawSocket socket(server_->port());
    socket.Send(garbage);
    bool closed = false;
    socket.ReadUntilClosed(closed);
    EXPECT_TRUE(closed);
  }
  TlsClient client;
  ASSERT_TRUE(client.Connect(server_->port()));
  ASSERT_TRUE(client.Send("GET /ok HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_TRUE(client.ReadResponse().has_value());
  EXPECT_TRUE(Eventually([&] { return server_->open_connections() == 1; }));
}

// ---- slow and stalled clients ----

TEST_F(HttpServerTest, StalledHandshakeAndHeaderAreCutOffOthersServed) {
  HttpServerOptions options = TlsOptions();
  options.read_header_timeout = 300ms;
  StartServer(options);
  RawSocket silent(server_->port());
  RawSocket half_handshake(server_->port());
  half_handshake.Send(std::string("\x16\x03\x01\x02\x00\x01", 6));
  TlsClient half_header;
  ASSERT_TRUE(half_header.Connect(server_->port()));
  ASSERT_TRUE(half_header.Send("GET / HTTP/1.1\r\nHost: h\r\n"));
  // Meanwhile a normal client is served.
  TlsClient normal;
  ASSERT_TRUE(normal.Connect(server_->port()));
  ASSERT_TRUE(normal.Send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_TRUE(normal.ReadResponse().has_value());
  for (RawSocket* socket : {&silent, &half_handshake}) {
    bool closed = false;
    socket->ReadUntilClosed(closed);
    EXPECT_TRUE(closed);
  }
  EXPECT_FALSE(half_header.ReadResponse().has_value());
  EXPECT_EQ(handled_, 1);
}

TEST_F(HttpServerTest, IdleKeepAliveConnectionsAreClosed) {
  HttpServerOptions options;
  options.idle_timeout = 200ms;
  StartServer(options);
  RawSocket socket(server_->port());
  socket.Send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
  bool closed = false;
  const std::string response = socket.ReadUntilClosed(closed);
  EXPECT_TRUE(closed);
  EXPECT_NE(response.find("GET /x 0"), std::string::npos) << response;
}

TEST_F(HttpServerTest, SlowBodyIsCutOff) {
  HttpServerOptions options;
  options.body_read_timeout = 300ms;
  StartServer(options);
  RawSocket socket(server_->port());
  socket.Send("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc");
  bool closed = false;
  socket.ReadUntilClosed(closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(handled_, 0);
  EXPECT_TRUE(Eventually([&] { return server_->open_connections() == 0; }));
}

TEST_F(HttpServerTest, ClientThatStopsReadingIsCutOff) {
  HttpServerOptions options;
  options.write_timeout = 300ms;
  StartServer(options);
  RawSocket socket(server_->port());
  socket.Send("GET /huge HTTP/1.1\r\nHost: h\r\n\r\n");
  ASSERT_TRUE(Eventually([&] { return handled_ == 1; }));
  // The handler's write blocks on the unread 64 MiB, then fails.
  EXPECT_TRUE(Eventually([&] { return server_->open_connections() == 0; }));
}

TEST_F(HttpServerTest, MaxConnectionsIsEnforced) {
  HttpServerOptions options;
  options.max_connections = 3;
  StartServer(options);
  std::vector<RawSocket> held;
  for (int i = 0; i < 3; ++i) held.emplace_back(server_->port());
  ASSERT_TRUE(Eventually([&] { return server_->open_connections() == 3; }));
  RawSocket refused(server_->port());
  refused.Send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
  bool closed = false;
  EXPECT_EQ(refused.ReadUntilClosed(closed), "");
  EXPECT_TRUE(closed);
  EXPECT_EQ(server_->refused_connections(), 1u);
  held.pop_back();
  ASSERT_TRUE(Eventually([&] { return server_->open_connections() == 2; }));
  const std::string response =
      Exchange(server_->port(),
               "GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("GET /x 0"), std::string::npos) << response;
}

TEST_F(HttpServerTest, ThreeThousandStalledHalfHeadersHoldNoThreads) {
  StartPlain();
  const long threads_before = ProcStatusField("Threads");
  const long rss_before_kib = ProcStatusField("VmRSS");
  constexpr int kStalled = 3000;
  std::vector<RawSocket> stalled;
  stalled.reserve(kStalled);
  for (int i = 0; i < kStalled; ++i) {
    stalled.emplace_back(server_->port());
    ASSERT_TRUE(stalled.back().connected()) << i;
    ASSERT_TRUE(stalled.back().Send("GET /x HTTP/1.1\r\nHost: h\r\nX-Hal"));
  }
  ASSERT_TRUE(Eventually(
      [&] { return server_->open_connections() == size_t{kStalled}; }, 60s))
      << server_->open_connections();
  const long threads = ProcStatusField("Threads");
  const long rss_kib = ProcStatusField("VmRSS");
  std::printf(
      "%d stalled connections: threads %ld -> %ld, RSS %ld -> %ld KiB\n",
      kStalled, threads_before, threads, rss_before_kib, rss_kib);
  EXPECT_LT(threads - threads_before, 50);
  const std::string response =
      Exchange(server_->port(),
               "GET /ok HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("GET /ok 0"), std::string::npos) << response;
  stalled.clear();
  EXPECT_TRUE(Eventually([&] { return server_->open_connections() == 0; }));
}

TEST_F(HttpServerTest, StopClosesStalledConnectionsPromptly) {
  StartServer(TlsOptions());
  RawSocket silent(server_->port());
  TlsClient idle;
  ASSERT_TRUE(idle.Connect(server_->port()));
  ASSERT_TRUE(Eventually([&] { return server_->open_connections() == 2; }));
  const auto start = Clock::now();
  server_->Stop();
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_EQ(server_->open_connections(), 0u);
}

// ---- TLS files ----

TEST_F(HttpServerTest, TlsLoadErrorsNameTheFileAndTheProblem) {
  struct Case {
    std::string cert, key, ca, want;
  };
  const std::vector<Case> cases = {
      {pki_.Path("missing.crt"), pki_.Path("server.key"), "",
       "--tls-cert-file \"" + pki_.Path("missing.crt") + "\": cannot read"},
      {pki_.Path("garbage.pem"), pki_.Path("server.key"), "",
       "no PEM certificate found"},
      {pki_.Path("server.crt"), pki_.Path("garbage.pem"), "",
       "--tls-private-key-file \"" + pki_.Path("garbage.pem") +
           "\": no PEM private key found"},
      {pki_.Path("server.crt"), pki_.Path("other.key"), "",
       "private key does not match the certificate in \"" +
           pki_.Path("server.crt") + "\""},
      {pki_.Path("server.crt"), pki_.Path("server.key"),
       pki_.Path("garbage.pem"), "--client-ca-file"},
      {pki_.Path("server.crt"), "", "", "must be given together"},
      {"", "", pki_.Path("ca.crt"), "--client-ca-file needs"},
  };
  for (const Case& c : cases) {
    HttpServerOptions options;
    options.port = 0;
    options.tls_cert_file = c.cert;
    options.tls_private_key_file = c.key;
    options.client_ca_file = c.ca;
    HttpServer server(options, [](const HttpRequest&, ResponseWriter&) {});
    const Status status = server.Start();
    EXPECT_FALSE(status.ok()) << c.want;
    EXPECT_NE(status.message().find(c.want), std::string::npos)
        << status.message();
  }
}

TEST(UrlDecodingTest, DecodesAndRejects) {
  std::string out;
  EXPECT_TRUE(DecodeUrlComponent("a%2Cb%3d", out));
  EXPECT_EQ(out, "a,b=");
  EXPECT_FALSE(DecodeUrlComponent("%2", out));
  EXPECT_FALSE(DecodeUrlComponent("%zz", out));
}

}  // namespace
}  // namespace dralloc::apiserver
