#include "apiserver/http_server.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace dralloc::apiserver {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Sends raw bytes and reads until the server closes the connection.
std::string Exchange(uint16_t port, const std::string& request) {
  asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return "connect failed";
  asio::write(socket, asio::buffer(request), ec);
  std::string response;
  char buffer[4096];
  for (int i = 0; i < 10000; ++i) {
    const size_t n = socket.read_some(asio::buffer(buffer), ec);
    response.append(buffer, n);
    if (ec) break;
  }
  return response;
}

class HttpServerTest : public testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<HttpServer>(
        HttpServerOptions{"127.0.0.1", 0, 1024},
        [](const HttpRequest& request, ResponseWriter& writer) {
          if (request.path == "/stream") {
            writer.StartStream("application/json");
            writer.WriteChunk("{\"a\":1}\n");
            writer.WriteChunk("{\"b\":2}\n");
            return;
          }
          writer.AddHeader("X-Query", request.Query("q"));
          writer.Send(200, "text/plain",
                      request.method + " " + request.path + " " +
                          std::to_string(request.body.size()));
        });
    ASSERT_TRUE(server_->Start().ok());
  }
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, ServesKeepAliveRequestsAndDecodesQueries) {
  const std::string response =
      Exchange(server_->port(),
               "GET /a%2Fb?q=x%3Dy+z&q=last HTTP/1.1\r\nHost: h\r\n\r\n"
               "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
               "Connection: close\r\n\r\nabc");
  EXPECT_NE(response.find("GET /a/b 0"), std::string::npos) << response;
  EXPECT_NE(response.find("X-Query: last"), std::string::npos) << response;
  EXPECT_NE(response.find("POST /p 3"), std::string::npos) << response;
}

TEST_F(HttpServerTest, StreamsChunks) {
  const std::string response =
      Exchange(server_->port(),
               "GET /stream HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_NE(response.find("8\r\n{\"a\":1}\n\r\n"), std::string::npos)
      << response;
  EXPECT_NE(response.find("0\r\n\r\n"), std::string::npos);
}

TEST_F(HttpServerTest, RefusesOversizedBodiesWith413) {
  const std::string response =
      Exchange(server_->port(),
               "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n" +
                   std::string(5000, 'x'));
  EXPECT_NE(response.find("HTTP/1.1 413"), std::string::npos) << response;
  EXPECT_NE(response.find("RequestEntityTooLarge"), std::string::npos);
}

TEST_F(HttpServerTest, SurvivesGarbage) {
  Exchange(server_->port(), std::string("\x01\x02 not http\r\n\r\n"));
  Exchange(server_->port(), "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n");
  const std::string response =
      Exchange(server_->port(),
               "GET /ok HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response.find("GET /ok 0"), std::string::npos) << response;
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
