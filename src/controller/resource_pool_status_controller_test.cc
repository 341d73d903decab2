#include "controller/resource_pool_status_controller.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "client/memory_api_client.h"
#include "encoding/document_reader.h"
#include "golden_case.h"

namespace dralloc::controller {
namespace {

namespace fs = std::filesystem;

// Each case under tests/pool_status is a YAML stream of ResourceSlices,
// ResourceClaims and DeviceTaintRules plus one ResourcePoolStatusRequest
// whose `status` is the expected answer (condition times are ignored).
const char kCaseRoot[] = "tests/pool_status";
const char kNow[] = "2026-09-23T12:00:00Z";

struct PoolStatusCase {
  std::vector<api::Object> objects;
  std::optional<api::ResourcePoolStatusRequest> request;
};

PoolStatusCase ReadCase(const fs::path& path) {
  PoolStatusCase c;
  const std::string text = golden::ReadFile(path);
  auto documents = encoding::ReadDocuments(text, path.string());
  EXPECT_TRUE(documents.ok()) << documents.status().message();
  if (!documents.ok()) return c;
  for (const auto& document : *documents) {
    for (api::DecodeResult& result : api::DecodeDocument(document.json)) {
      EXPECT_TRUE(result.object.has_value())
          << path << ": " << result.DisplayName();
      if (!result.object) continue;
      if (auto* r =
              std::get_if<api::ResourcePoolStatusRequest>(&*result.object)) {
        c.request = *r;
      } else {
        c.objects.push_back(std::move(*result.object));
      }
    }
  }
  return c;
}

PoolStatusInputs InputsOf(const std::vector<api::Object>& objects) {
  PoolStatusInputs inputs;
  for (const api::Object& object : objects) {
    if (const auto* slice = std::get_if<api::ResourceSlice>(&object)) {
      inputs.slices.push_back(slice);
    } else if (const auto* claim = std::get_if<api::ResourceClaim>(&object)) {
      inputs.claims.push_back(claim);
    } else if (const auto* rule = std::get_if<api::DeviceTaintRule>(&object)) {
      inputs.taint_rules.push_back(rule);
    }
  }
  return inputs;
}

std::string Text(const api::ResourcePoolStatusRequestStatus& status) {
  api::ResourcePoolStatusRequest request;
  request.status = status;
  auto text = api::EncodeObjectText(request, api::kResourceV1alpha3);
  return text.ok() ? *text : std::string(text.status().message());
}

class PoolStatusCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(PoolStatusCaseTest, ComputesTheExpectedStatus) {
  const PoolStatusCase c = ReadCase(GetParam());
  ASSERT_TRUE(c.request.has_value()) << "no ResourcePoolStatusRequest";
  ASSERT_TRUE(c.request->status.has_value()) << "no expected status";
  api::ResourcePoolStatusRequestStatus want = *c.request->status;
  for (api::Condition& condition : want.conditions) {
    condition.last_transition_time = kNow;
  }
  const api::ResourcePoolStatusRequestStatus got =
      ResourcePoolStatusController::ComputeStatus(c.request->spec,
                                                  InputsOf(c.objects), kNow);
  EXPECT_EQ(got, want) << "got:  " << Text(got) << "\nwant: " << Text(want);
}

std::vector<fs::path> Cases() {
  return golden::CaseFiles(kCaseRoot, {".yaml"});
}

INSTANTIATE_TEST_SUITE_P(Cases, PoolStatusCaseTest, testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           return golden::TestName(info.param.string());
                         });

TEST(PoolStatusCaseTest, CasesExist) { EXPECT_GE(Cases().size(), 4u); }

api::Object Decode(std::string_view json) {
  std::vector<api::DecodeResult> decoded = api::DecodeDocument(json);
  EXPECT_EQ(decoded.size(), 1u);
  EXPECT_TRUE(decoded[0].object.has_value()) << json;
  return *decoded[0].object;
}

// Through an API: an unanswered request gets its status once; an answered
// one is left alone.
TEST(ResourcePoolStatusControllerTest, AnswersARequestOnce) {
  client::MemoryApiClient api;
  ASSERT_TRUE(api.Create(Decode(R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceSlice","metadata":{"name":"s1"},
      "spec":{"driver":"gpu.example.com","nodeName":"node-1",
      "pool":{"name":"node-1","generation":1,"resourceSliceCount":1},
      "devices":[{"name":"gpu-0"},{"name":"gpu-1"}]}})"))
                  .ok());
  ASSERT_TRUE(api.Create(Decode(R"({"apiVersion":"resource.k8s.io/v1alpha3",
      "kind":"ResourcePoolStatusRequest","metadata":{"name":"gpus"},
      "spec":{"driver":"gpu.example.com"}})"))
                  .ok());
  client::Informer requests(api, client::ResourcePoolStatusRequestsResource());
  client::Informer slices(api, client::ResourceSlicesResource());
  client::Informer claims(api, client::ResourceClaimsResource());
  client::Informer rules(api, client::DeviceTaintRulesResource());
  ResourcePoolStatusController controller(api, requests, slices, claims, rules);
  for (client::Informer* informer : {&slices, &claims, &rules, &requests}) {
    ASSERT_TRUE(informer->Pump(std::chrono::milliseconds(0)).ok());
  }
  ASSERT_TRUE(controller.ProcessOne());
  auto stored =
      api.Get(client::ResourcePoolStatusRequestsResource(), "", "gpus");
  ASSERT_TRUE(stored.ok());
  const auto* request = client::As<api::ResourcePoolStatusRequest>(*stored);
  ASSERT_NE(request, nullptr);
  ASSERT_TRUE(request->status.has_value());
  EXPECT_EQ(request->spec.limit, 100);  // defaulted on create
  EXPECT_EQ(request->status->pool_count, 1);
  ASSERT_EQ(request->status->pools.size(), 1u);
  EXPECT_EQ(request->status->pools[0].available_devices, 2);
  EXPECT_EQ(request->status->pools[0].node_name, "node-1");
  EXPECT_EQ(controller.metrics().status_updates, 1u);

  // The written status comes back through the informer: nothing to do.
  ASSERT_TRUE(requests.Pump(std::chrono::milliseconds(0)).ok());
  EXPECT_FALSE(controller.ProcessOne());
  EXPECT_EQ(controller.metrics().status_updates, 1u);
}

// The server keeps the spec and a written status as they are.
TEST(ResourcePoolStatusControllerTest, SpecAndAnswerAreImmutable) {
  client::MemoryApiClient api(client::MemoryApiOptions{.validate = true});
  auto created = api.Create(Decode(R"({"apiVersion":"resource.k8s.io/v1alpha3",
      "kind":"ResourcePoolStatusRequest","metadata":{"name":"r"},
      "spec":{"driver":"gpu.example.com","limit":5}})"));
  ASSERT_TRUE(created.ok());
  auto request = *client::As<api::ResourcePoolStatusRequest>(*created);
  auto changed = request;
  changed.spec.limit = 6;
  auto update = api.Update(changed);
  ASSERT_FALSE(update.ok());
  EXPECT_NE(update.status().message().find("spec: Invalid value"),
            std::string::npos)
      << update.status().message();

  request.status = api::ResourcePoolStatusRequestStatus{.pool_count = 0};
  auto answered = api.UpdateStatus(request);
  ASSERT_TRUE(answered.ok()) << answered.status().message();
  auto again = *client::As<api::ResourcePoolStatusRequest>(*answered);
  again.status->pool_count = 3;
  auto rewrite = api.UpdateStatus(again);
  ASSERT_FALSE(rewrite.ok());
  EXPECT_NE(rewrite.status().message().find("status: Invalid value"),
            std::string::npos)
      << rewrite.status().message();
}

}  // namespace
}  // namespace dralloc::controller
