// GET pods/{name}/log through the API server, relayed from a fake kubelet
// on a real TCP port: container choice and upstream's errors, the node's
// kubelet endpoint, kubelet errors, and a streamed (follow) answer.
#include "apiserver/pod_log_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "apiserver/api_server.h"
#include "common/mutex.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

class Recorder : public ResponseWriter {
 public:
  void AddHeader(std::string, std::string) override {}
  void Send(int status, std::string, std::string b) override {
    code = status;
    body = std::move(b);
  }
  bool StartStream(std::string) override {
    code = 200;
    streamed = true;
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    body += data;
    ++chunks;
    return true;
  }
  int code = 0;
  bool streamed = false;
  int chunks = 0;
  std::string body;
};

// A kubelet stand-in: answers every connection with `response` (raw
// HTTP), in the pieces given (sent 50 ms apart), and records the request
// lines.
class FakeKubelet {
 public:
  explicit FakeKubelet(std::vector<std::string> pieces)
      : pieces_(std::move(pieces)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeKubelet() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  std::string last_request() {
    MutexLock lock(mu_);
    return last_request_;
  }

 private:
  void Serve() {
    for (;;) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string request;
      char buffer[1024];
      ssize_t n;
      while (request.find("\r\n\r\n") == std::string::npos &&
             (n = ::read(client, buffer, sizeof buffer)) > 0) {
        request.append(buffer, n);
      }
      {
        MutexLock lock(mu_);
        last_request_ = request.substr(0, request.find("\r\n"));
      }
      for (const std::string& piece : pieces_) {
        (void)!::write(client, piece.data(), piece.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      ::close(client);
    }
  }
  std::vector<std::string> pieces_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  Mutex mu_;
  std::string last_request_ GUARDED_BY(mu_);
};

class PodLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.port = 0;
    server_ = std::make_unique<ApiServer>(options, store_);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override { server_->Stop(); }

  Recorder Call(std::string method, std::string path, std::string body = "") {
    HttpRequest request;
    request.method = std::move(method);
    const size_t question = path.find('?');
    request.path = path.substr(0, question);
    if (question != std::string::npos) {
      std::string query = path.substr(question + 1);
      size_t start = 0;
      while (start < query.size()) {
        size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        const std::string pair = query.substr(start, amp - start);
        const size_t eq = pair.find('=');
        request.query.emplace(pair.substr(0, eq), eq == std::string::npos
                                                      ? ""
                                                      : pair.substr(eq + 1));
        start = amp + 1;
      }
    }
    request.content_type = request.method == "PATCH"
                               ? "application/merge-patch+json"
                               : "application/json";
    request.accept = "application/json";
    request.body = std::move(body);
    Recorder recorder;
    server_->Handle(request, recorder);
    return recorder;
  }
  void CreatePod(const std::string& name, const std::string& node,
                 const std::string& containers,
                 const std::string& init = "[]") {
    Recorder r =
        Call("POST", "/api/v1/namespaces/default/pods",
             R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                 R"("},"spec":{"nodeName":")" + node + R"(","containers":)" +
                 containers + R"(,"initContainers":)" + init + "}}");
    ASSERT_EQ(r.code, 201) << r.body;
  }
  void CreateNode(const std::string& name, int port) {
    Recorder r =
        Call("POST", "/api/v1/nodes",
             R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                 R"("}})");
    ASSERT_EQ(r.code, 201) << r.body;
    r = Call(
        "PATCH", "/api/v1/nodes/" + name + "/status",
        R"({"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"},{"type":"Hostname","address":")" +
            name + R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":)" +
            std::to_string(port) + "}}}}");
    ASSERT_EQ(r.code, 200) << r.body;
  }

  store::MemoryStore store_;
  std::unique_ptr<ApiServer> server_;
};

constexpr char kOne[] = R"([{"name":"main","image":"busybox"}])";
constexpr char kTwo[] =
    R"([{"name":"a","image":"busybox"},{"name":"b","image":"busybox"}])";

TEST_F(PodLogTest, RelaysTheKubeletsLog) {
  FakeKubelet kubelet({"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n"});
  CreateNode("n1", kubelet.port());
  CreatePod("p", "n1", kOne);
  Recorder r = Call("GET", "/api/v1/namespaces/default/pods/p/log?tailLines=3");
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "hello\n");
  EXPECT_EQ(kubelet.last_request(),
            "GET /containerLogs/default/p/main?tailLines=3 HTTP/1.1");
}

TEST_F(PodLogTest, FollowStreamsChunks) {
  FakeKubelet kubelet({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                       "6\r\nfirst\n\r\n", "7\r\nsecond\n\r\n", "0\r\n\r\n"});
  CreateNode("n1", kubelet.port());
  CreatePod("p", "n1", kTwo);
  Recorder r = Call("GET",
                    "/api/v1/namespaces/default/pods/p/"
                    "log?container=b&follow=true&previous=false");
  EXPECT_EQ(r.code, 200);
  EXPECT_TRUE(r.streamed);
  EXPECT_GE(r.chunks, 2);
  EXPECT_EQ(r.body, "first\nsecond\n");
  EXPECT_EQ(kubelet.last_request(),
            "GET /containerLogs/default/p/b?follow=true&previous=false "
            "HTTP/1.1");
}

TEST_F(PodLogTest, KubeletErrorsBecomeApiErrors) {
  FakeKubelet kubelet(
      {"HTTP/1.1 404 Not Found\r\nContent-Length: 32\r\n\r\n"
       "container \"main\" in pod \"p\" ...\n"});
  CreateNode("n1", kubelet.port());
  CreatePod("p", "n1", kOne);
  Recorder r = Call("GET", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(r.code, 404);
  EXPECT_NE(r.body.find(R"(container \"main\" in pod \"p\" ...)"),
            std::string::npos)
      << r.body;
}

TEST_F(PodLogTest, ContainerChoiceErrorsAsUpstream) {
  CreateNode("n1", 1);
  CreatePod("p", "n1", kTwo, R"([{"name":"init","image":"busybox"}])");
  Recorder none = Call("GET", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(none.code, 400);
  EXPECT_NE(none.body.find("a container name must be specified for pod p, "
                           "choose one of: [a b] or one of the init "
                           "containers: [init]"),
            std::string::npos)
      << none.body;
  Recorder wrong =
      Call("GET", "/api/v1/namespaces/default/pods/p/log?container=x");
  EXPECT_EQ(wrong.code, 400);
  EXPECT_NE(wrong.body.find("container x is not valid for pod p"),
            std::string::npos);
}

TEST_F(PodLogTest, MissingPodUnboundPodAndNodeWithoutKubelet) {
  Recorder missing = Call("GET", "/api/v1/namespaces/default/pods/nope/log");
  EXPECT_EQ(missing.code, 404);
  EXPECT_NE(missing.body.find(R"(pods \"nope\" not found)"), std::string::npos)
      << missing.body;
  CreatePod("unbound", "", kOne);
  Recorder unbound = Call("GET", "/api/v1/namespaces/default/pods/unbound/log");
  EXPECT_EQ(unbound.code, 400);
  EXPECT_NE(unbound.body.find("pod unbound does not have a host assigned"),
            std::string::npos);
  Recorder created =
      Call("POST", "/api/v1/nodes",
           R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"bare"}})");
  ASSERT_EQ(created.code, 201);
  CreatePod("p", "bare", kOne);
  Recorder bare = Call("GET", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(bare.code, 503);
  EXPECT_NE(bare.body.find("node bare: the node reports no kubelet endpoint"),
            std::string::npos)
      << bare.body;
  Recorder post = Call("POST", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(post.code, 405);
}

TEST_F(PodLogTest, KubeletDown) {
  int port;
  {
    FakeKubelet gone({});
    port = gone.port();
  }
  CreateNode("n1", port);
  CreatePod("p", "n1", kOne);
  Recorder r = Call("GET", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(r.code, 503);
  EXPECT_NE(r.body.find("cannot reach the kubelet at 127.0.0.1"),
            std::string::npos)
      << r.body;
}

TEST(PodLogDiscovery, ListsPodsLog) {
  store::MemoryStore store;
  ApiServer server(ApiServerOptions{}, store);
  HttpRequest request;
  request.method = "GET";
  request.path = "/api/v1";
  Recorder r;
  server.Handle(request, r);
  EXPECT_NE(r.body.find(R"("name":"pods/log")"), std::string::npos);
}

}  // namespace
}  // namespace dralloc::apiserver
