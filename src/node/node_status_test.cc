#include "node/node_status.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/memory_api_client.h"
#include "node/node_test_util.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {
namespace {

using namespace std::chrono_literals;

api::Node GetNode(client::ApiClient& api, const std::string& name) {
  return std::get<api::Node>(**api.Get(client::NodesResource(), "", name));
}

nlohmann::json Field(const api::Node& node, std::string_view name) {
  const api::RawJson* raw = FindUnknownField(node.status.unknown_fields, name);
  return raw ? nlohmann::json::parse(raw->json) : nlohmann::json();
}

TEST(NodeStatusReporter, RegistersReadyNodeAndHeartbeats) {
  client::MemoryApiClient api;
  NodeStatusOptions options;
  options.node_name = "node-a";
  options.host_ip = "192.0.2.7";
  options.update_frequency = 20ms;
  NodeStatusReporter reporter(api, options);
  ASSERT_TRUE(reporter.Register().ok());

  api::Node node = GetNode(api, "node-a");
  EXPECT_EQ(node.metadata.labels.at("kubernetes.io/hostname"), "node-a");
  EXPECT_EQ(node.metadata.labels.at("kubernetes.io/os"), "linux");
  EXPECT_FALSE(node.metadata.labels.at("kubernetes.io/arch").empty());
  EXPECT_EQ(node.status.capacity.count("cpu"), 1u);
  EXPECT_EQ(node.status.capacity.count("memory"), 1u);
  EXPECT_EQ(node.status.allocatable.at("pods").ToString(), "110");
  EXPECT_EQ(Field(node, "nodeInfo")["kubeletVersion"], "v1.33.0-dralloc");
  EXPECT_EQ(Field(node, "addresses")[0]["address"], "192.0.2.7");
  std::map<std::string, std::string> conditions;
  for (const auto& c : Field(node, "conditions")) {
    conditions[c["type"]] =
        c["status"].get<std::string>() + "/" + c["reason"].get<std::string>();
  }
  EXPECT_EQ(conditions,
            (std::map<std::string, std::string>{
                {"DiskPressure", "False/KubeletHasNoDiskPressure"},
                {"MemoryPressure", "False/KubeletHasSufficientMemory"},
                {"PIDPressure", "False/KubeletHasSufficientPID"},
                {"Ready", "True/KubeletReady"}}));

  // Registering again (a restart) updates the same Node.
  ASSERT_TRUE(reporter.Register().ok());
  const std::string version = GetNode(api, "node-a").metadata.resource_version;
  reporter.Start();
  EXPECT_TRUE(testing::WaitFor([&] {
    return GetNode(api, "node-a").metadata.resource_version != version;
  }));
  reporter.Stop();
}

}  // namespace
}  // namespace dralloc::node
