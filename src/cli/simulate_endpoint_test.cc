// The simulation endpoints of `dralloc serve` against the real API server in
// process on a free port: the cluster is created through the API (over
// HTTP), the endpoints are called over HTTP, and their JSON must equal what
// the offline planners give on the same objects.
#include "cli/simulate_endpoint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"
#include "api/well_known.h"
#include "apiserver/api_server.h"
#include "client/http_api_client.h"
#include "encoding/document_reader.h"
#include "simulator/cluster_simulation.h"
#include "simulator/node_group.h"
#include "simulator/plan_output.h"
#include "simulator/scale_down_planner.h"
#include "simulator/scale_up_planner.h"
#include "store/memory_store.h"

namespace dralloc::cli {
namespace {

namespace asio = boost::asio;
using apiserver::Json;

constexpr char kClusterFile[] = "tests/simulator/serve_cluster.yaml";
constexpr char kNodeGroupsFile[] = "tests/simulator/serve_node_groups.yaml";
constexpr char kScaleUp[] = "/apis/dralloc.io/v1alpha1/simulate/scale-up";
constexpr char kScaleDown[] = "/apis/dralloc.io/v1alpha1/simulate/scale-down";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<api::Object> ClusterObjects() {
  auto objects =
      allocator::DecodeManifests(ReadFile(kClusterFile), kClusterFile);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? std::move(*objects) : std::vector<api::Object>{};
}

struct HttpAnswer {
  int code = 0;
  std::string headers;
  Json body;
};

// One HTTP/1.1 request with Connection: close; the body parsed as JSON.
HttpAnswer Exchange(uint16_t port, const std::string& method,
                    const std::string& target, const std::string& body = "") {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return {};
  const std::string request = fmt::format(
      "{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
      "Content-Type: application/yaml\r\nContent-Length: {}\r\n\r\n{}",
      method, target, body.size(), body);
  asio::write(socket, asio::buffer(request), ec);
  std::string response;
  char buffer[8192];
  while (!ec) {
    const size_t n = socket.read_some(asio::buffer(buffer), ec);
    response.append(buffer, n);
  }
  HttpAnswer answer;
  const size_t end_of_headers = response.find("\r\n\r\n");
  if (end_of_headers == std::string::npos || response.size() < 12) {
    return answer;
  }
  answer.code = std::stoi(response.substr(9, 3));
  answer.headers = response.substr(0, end_of_headers);
  answer.body =
      Json::parse(response.substr(end_of_headers + 4), nullptr, false);
  return answer;
}

class SimulateEndpointTest : public testing::Test {
 protected:
  void SetUp() override {
    apiserver::ApiServerOptions options;
    options.port = 0;
    server_ = std::make_unique<apiserver::ApiServer>(options, store_);
    AddSimulateEndpoint(*server_);
    ASSERT_TRUE(server_->Start().ok());
    client::Kubeconfig config;
    config.server = "http://127.0.0.1:" + std::to_string(server_->port());
    auto api = client::NewHttpApiClient(config);
    ASSERT_TRUE(api.ok()) << api.status();
    api_ = std::move(*api);
    for (api::Object& object : ClusterObjects()) {
      const std::string name = api::DisplayName(object);
      auto created = api_->Create(std::move(object));
      ASSERT_TRUE(created.ok()) << name << ": " << created.status();
    }
  }
  void TearDown() override {
    api_.reset();
    server_->Stop();
  }

  HttpAnswer Call(const std::string& method, const std::string& target,
                  const std::string& body = "") {
    return Exchange(server_->port(), method, target, body);
  }

  store::MemoryStore store_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<client::ApiClient> api_;  // over HTTP
};

std::unique_ptr<simulator::ClusterSimulation> OfflineSimulation() {
  auto simulation = simulator::ClusterSimulation::Create(ClusterObjects());
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  return std::move(*simulation);
}

Json OfflineScaleUp(simulator::Expander expander, uint64_t seed) {
  auto groups =
      simulator::ParseNodeGroups(ReadFile(kNodeGroupsFile), kNodeGroupsFile);
  EXPECT_TRUE(groups.ok()) << groups.status();
  auto simulation = OfflineSimulation();
  simulator::ScaleUpPlanner planner(*simulation, std::move(*groups),
                                    {.expander = expander, .seed = seed});
  return simulator::ScaleUpPlanJson(planner.Plan());
}

Json OfflineScaleDown() {
  auto simulation = OfflineSimulation();
  simulator::ScaleDownPlanner planner(*simulation);
  return simulator::ScaleDownPlanJson(planner.Plan());
}

struct ScaleUpCase {
  std::string query;
  simulator::Expander expander;
  uint64_t seed;
};

TEST_F(SimulateEndpointTest, ScaleUpAnswersAsTheOfflinePlanner) {
  const std::vector<ScaleUpCase> cases = {
      {"", simulator::Expander::kLeastWaste, 1},
      {"?expander=most-pods", simulator::Expander::kMostPods, 1},
      {"?expander=fewest-nodes", simulator::Expander::kFewestNodes, 1},
      {"?expander=random&seed=7", simulator::Expander::kRandom, 7},
  };
  const std::string groups = ReadFile(kNodeGroupsFile);
  for (const ScaleUpCase& c : cases) {
    SCOPED_TRACE(c.query);
    HttpAnswer answer = Call("POST", kScaleUp + c.query, groups);
    EXPECT_EQ(answer.code, 200) << answer.body.dump();
    EXPECT_EQ(answer.body, OfflineScaleUp(c.expander, c.seed));
  }
  // The same plan needs new nodes: the endpoint did not answer from an
  // empty cluster or from no groups.
  EXPECT_FALSE(
      OfflineScaleUp(simulator::Expander::kLeastWaste, 1)["scaleUp"].empty());
}

TEST_F(SimulateEndpointTest, ScaleUpTakesAJsonListOfNodeGroups) {
  auto documents =
      encoding::ReadDocuments(ReadFile(kNodeGroupsFile), kNodeGroupsFile);
  ASSERT_TRUE(documents.ok()) << documents.status();
  Json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", Json::array()}};
  for (const encoding::Document& document : *documents) {
    list["items"].push_back(Json::parse(document.json));
  }
  ASSERT_EQ(list["items"].size(), 2u);
  const Json expected = OfflineScaleUp(simulator::Expander::kLeastWaste, 1);
  for (const Json& body : {list, list["items"]}) {
    HttpAnswer answer = Call("POST", kScaleUp, body.dump());
    EXPECT_EQ(answer.code, 200) << answer.body.dump();
    EXPECT_EQ(answer.body, expected);
  }
}

TEST_F(SimulateEndpointTest, ScaleDownAnswersAsTheOfflinePlannerOnGetAndPost) {
  const Json expected = OfflineScaleDown();
  EXPECT_FALSE(expected["removable"].empty());
  for (const std::string method : {"GET", "POST"}) {
    SCOPED_TRACE(method);
    HttpAnswer answer = Call(method, kScaleDown);
    EXPECT_EQ(answer.code, 200) << answer.body.dump();
    EXPECT_EQ(answer.body, expected);
  }
}

struct ErrorCase {
  std::string method;
  std::string target;
  std::string body;
  int code;
  std::string reason;
  std::string message;  // a part of Status.message
};

TEST_F(SimulateEndpointTest, ErrorsAreStatusObjects) {
  const std::string groups = ReadFile(kNodeGroupsFile);
  const std::vector<ErrorCase> cases = {
      {"POST", kScaleUp,
       "apiVersion: dralloc.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: "
       "bad}\nspec: {maxSize: -1}\n",
       400, "BadRequest", "NodeGroup bad: spec.maxSize: Invalid value: -1"},
      {"POST", kScaleUp,
       "apiVersion: dralloc.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: "
       "empty}\nspec: {maxSize: 1}\n",
       400, "BadRequest", "NodeGroup empty: spec.template.node: Required"},
      {"POST", kScaleUp, "", 400, "BadRequest", "request body: Required value"},
      {"POST", std::string(kScaleUp) + "?expander=cheapest", groups, 400,
       "BadRequest", "expander: Unsupported value: \"cheapest\""},
      {"POST", std::string(kScaleUp) + "?seed=-3", groups, 400, "BadRequest",
       "seed: Invalid value: \"-3\""},
      {"GET", kScaleUp, "", 405, "MethodNotAllowed", "GET is not supported"},
      {"PUT", kScaleDown, "", 405, "MethodNotAllowed", "use GET or POST"},
      {"DELETE", kScaleDown, "", 405, "MethodNotAllowed", "DELETE"},
      {"POST", "/apis/dralloc.io/v1alpha1/simulate/scale-sideways", "", 404,
       "NotFound", ""},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    HttpAnswer answer = Call(c.method, c.target, c.body);
    EXPECT_EQ(answer.code, c.code) << answer.body.dump();
    EXPECT_EQ(answer.body.value("kind", ""), "Status");
    EXPECT_EQ(answer.body.value("status", ""), "Failure");
    EXPECT_EQ(answer.body.value("code", 0), c.code);
    EXPECT_EQ(answer.body.value("reason", ""), c.reason);
    EXPECT_NE(answer.body.value("message", "").find(c.message),
              std::string::npos)
        << answer.body.value("message", "");
  }
}

TEST_F(SimulateEndpointTest, NothingIsWrittenToTheCluster) {
  const std::string groups = ReadFile(kNodeGroupsFile);
  const int64_t before = store_.Revision();
  EXPECT_EQ(Call("POST", kScaleUp, groups).code, 200);
  EXPECT_EQ(Call("GET", kScaleDown).code, 200);
  EXPECT_EQ(store_.Revision(), before);
}

// Objects read from a live store carry the store's uids; the simulation
// keeps them, so a bound pod's claim stays allocated to it (with fresh
// uids the claim controller would take its reservedFor entry for a gone
// pod and free the device).
TEST_F(SimulateEndpointTest, ABoundPodKeepsTheDeviceItsClaimHolds) {
  auto pod = api_->Get(client::PodsResource(), "default", "train-0");
  ASSERT_TRUE(pod.ok()) << pod.status();
  const std::string uid = api::MetaOf(**pod).uid;
  ASSERT_TRUE(api_->Bind("default", "train-0", uid, "node-a").ok());
  auto claim =
      api_->Get(client::ResourceClaimsResource(), "default", "train-0-gpu");
  ASSERT_TRUE(claim.ok()) << claim.status();
  api::Object object = **claim;
  auto& held = std::get<api::ResourceClaim>(object);
  held.metadata.finalizers.emplace_back(api::kDeleteProtectionFinalizer);
  auto allocated = allocator::DecodeManifests(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train-0-gpu, namespace: default}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]
  reservedFor: [{resource: pods, name: train-0, uid: placeholder}]
)",
                                              "allocated");
  ASSERT_TRUE(allocated.ok()) << allocated.status();
  held.status = std::get<api::ResourceClaim>(allocated->front()).status;
  held.status.reserved_for.front().uid = uid;
  auto updated = api_->UpdateWithStatus(std::move(object));
  ASSERT_TRUE(updated.ok()) << updated.status();

  HttpAnswer answer = Call("POST", kScaleUp, ReadFile(kNodeGroupsFile));
  ASSERT_EQ(answer.code, 200) << answer.body.dump();
  for (const Json& placement : answer.body["placements"]) {
    EXPECT_NE(placement["node"], "node-a") << placement.dump();
  }
}

}  // namespace
}  // namespace dralloc::cli
