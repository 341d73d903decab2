// HttpConnection over TLS against a small in-test HTTPS server that demands
// a client certificate signed by testdata/tls/ca.crt and answers every
// request with the client certificate's CN and the Authorization header.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "load/http_connection.h"
#include "load/target_flags.h"

namespace dralloc::load {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

const std::string kDir = "bench/load/testdata/tls/";

std::string PeerCommonName(SSL* ssl) {
  X509* certificate = SSL_get1_peer_certificate(ssl);
  if (certificate == nullptr) return "";
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName,
                            name, sizeof(name));
  X509_free(certificate);
  return name;
}

// Serves exactly `connections` connections, one after the other, on its own
// thread; each ends when the client closes it or its handshake fails.
class TlsEchoServer {
 public:
  explicit TlsEchoServer(int connections)
      : context_(asio::ssl::context::tls_server),
        acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    context_.use_certificate_chain_file(kDir + "server.crt");
    context_.use_private_key_file(kDir + "server.key", asio::ssl::context::pem);
    context_.load_verify_file(kDir + "ca.crt");
    context_.set_verify_mode(asio::ssl::verify_peer |
                             asio::ssl::verify_fail_if_no_peer_cert);
    thread_ = std::thread([this, connections] {
      for (int i = 0; i < connections; ++i) ServeOne();
    });
  }
  ~TlsEchoServer() { Join(); }

  // Waits until every connection was served (the clients must have closed
  // theirs); the counts are final afterwards.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  int handshakes() const { return handshakes_; }
  int failed_handshakes() const { return failed_handshakes_; }

 private:
  void ServeOne() {
    asio::ssl::stream<tcp::socket> stream(acceptor_.accept(), context_);
    boost::system::error_code error;
    stream.handshake(asio::ssl::stream_base::server, error);
    if (error) {
      ++failed_handshakes_;
      return;
    }
    ++handshakes_;
    const std::string common_name = PeerCommonName(stream.native_handle());
    boost::beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      http::read(stream, buffer, request, error);
      if (error) return;
      http::response<http::string_body> response{http::status::ok, 11};
      response.body() = "cn=" + common_name + " authorization=" +
                        std::string(request[http::field::authorization]) +
                        " body=" + request.body();
      response.keep_alive(true);
      response.prepare_payload();
      http::write(stream, response, error);
      if (error) return;
    }
  }

  asio::io_context io_;
  asio::ssl::context context_;
  tcp::acceptor acceptor_;
  std::atomic<int> handshakes_ = 0;
  std::atomic<int> failed_handshakes_ = 0;
  std::thread thread_;
};

TargetFlags ClientFlags(const std::string& server) {
  return TargetFlags{.server = server,
                     .ca_file = kDir + "ca.crt",
                     .cert_file = kDir + "client.crt",
                     .key_file = kDir + "client.key",
                     .token = "bench-token"};
}

TEST(TlsRoundTripTest, KeepsOneHandshakeForManyRequests) {
  TlsEchoServer server(/*connections=*/1);
  StatusOr<LoadTarget> target = ResolveLoadTarget(
      ClientFlags("https://127.0.0.1:" + std::to_string(server.port())));
  ASSERT_TRUE(target.ok()) << target.status();
  {
    HttpConnection connection(*target, std::chrono::seconds(10));
    for (int i = 0; i < 3; ++i) {
      StatusOr<HttpResult> result =
          connection.Send(http::verb::post, "/api/v1/namespaces", "{}");
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->status, 200);
      EXPECT_EQ(result->body,
                "cn=bench-user authorization=Bearer bench-token body={}");
    }
  }
  server.Join();
  EXPECT_EQ(server.handshakes(), 1);
}

TEST(TlsRoundTripTest, VerifiesTheDnsNameOfLocalhost) {
  TlsEchoServer server(/*connections=*/1);
  StatusOr<LoadTarget> target = ResolveLoadTarget(
      ClientFlags("https://localhost:" + std::to_string(server.port())));
  ASSERT_TRUE(target.ok()) << target.status();
  {
    HttpConnection connection(*target, std::chrono::seconds(10));
    StatusOr<HttpResult> result = connection.Send(http::verb::get, "/version");
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->status, 200);
  }
  server.Join();
  EXPECT_EQ(server.handshakes(), 1);
}

TEST(TlsRoundTripTest, RejectsServerSignedByAnotherCa) {
  TlsEchoServer server(/*connections=*/1);
  TargetFlags flags =
      ClientFlags("https://127.0.0.1:" + std::to_string(server.port()));
  flags.ca_file = kDir + "other-ca.crt";
  StatusOr<LoadTarget> target = ResolveLoadTarget(flags);
  ASSERT_TRUE(target.ok()) << target.status();
  {
    HttpConnection connection(*target, std::chrono::seconds(10));
    StatusOr<HttpResult> result = connection.Send(http::verb::get, "/version");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(result.status().message().find("TLS handshake"),
              std::string::npos)
        << result.status();
  }
  server.Join();
  EXPECT_EQ(server.failed_handshakes(), 1);
}

}  // namespace
}  // namespace dralloc::load
