#include "controller/resource_pool_status_controller.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/codec.h"
#include "client/memory_api_client.h"
#include "common/clock.h"
#include "common/text_escape.h"
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

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

// A MemoryApiClient whose next `status_failures` status writes fail.
class FlakyStatusClient : public client::MemoryApiClient {
 public:
  StatusOr<client::ObjectPtr> UpdateStatus(api::Object object) override {
    if (status_failures > 0) {
      --status_failures;
      return UnavailableError("the store is unavailable");
    }
    return client::MemoryApiClient::UpdateStatus(std::move(object));
  }
  int status_failures = 0;
};

// The controller over an in-memory API, driven by hand: informers are
// pumped explicitly and the controller's clock only moves when the test
// advances `now`.
class Harness {
 public:
  explicit Harness(ResourcePoolStatusControllerOptions options = {})
      : controller(api, requests, slices, claims, rules, Clocked(options)) {}

  void Pump() {
    for (client::Informer* informer : {&slices, &claims, &rules, &requests}) {
      ASSERT_TRUE(informer->Pump(milliseconds(0)).ok());
    }
  }
  void Create(std::string_view json) {
    auto created = api.Create(Decode(json));
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  // The request as the API has it now; nullopt when it does not exist.
  std::optional<api::ResourcePoolStatusRequest> Stored(
      const std::string& name) {
    auto stored =
        api.Get(client::ResourcePoolStatusRequestsResource(), "", name);
    if (!stored.ok()) return std::nullopt;
    const auto* request = client::As<api::ResourcePoolStatusRequest>(*stored);
    if (request == nullptr) return std::nullopt;
    return *request;
  }
  SystemTime CreatedAt(const std::string& name) {
    auto request = Stored(name);
    EXPECT_TRUE(request.has_value()) << name;
    if (!request) return {};
    auto created =
        ParseUtcTime(request->metadata.creation_timestamp.value_or(""));
    EXPECT_TRUE(created.has_value()) << name;
    return created.value_or(SystemTime());
  }

  FlakyStatusClient api;
  SystemTime now = *ParseUtcTime("2026-09-23T12:00:00Z");
  client::Informer requests{api, client::ResourcePoolStatusRequestsResource()};
  client::Informer slices{api, client::ResourceSlicesResource()};
  client::Informer claims{api, client::ResourceClaimsResource()};
  client::Informer rules{api, client::DeviceTaintRulesResource()};
  ResourcePoolStatusController controller;

 private:
  ResourcePoolStatusControllerOptions Clocked(
      ResourcePoolStatusControllerOptions options) {
    options.clock = [this] { return now; };
    return options;
  }
};

// Generation 1 of pool "rolling" has two slices; this is the first.
constexpr char kFirstOfTwoSlices[] = R"({"apiVersion":"resource.k8s.io/v1",
    "kind":"ResourceSlice","metadata":{"name":"rolling-a"},
    "spec":{"driver":"gpu.example.com","nodeName":"node-1",
    "pool":{"name":"rolling","generation":1,"resourceSliceCount":2},
    "devices":[{"name":"gpu-0"}]}})";
constexpr char kSecondOfTwoSlices[] = R"({"apiVersion":"resource.k8s.io/v1",
    "kind":"ResourceSlice","metadata":{"name":"rolling-b"},
    "spec":{"driver":"gpu.example.com","nodeName":"node-1",
    "pool":{"name":"rolling","generation":1,"resourceSliceCount":2},
    "devices":[{"name":"gpu-1"}]}})";
constexpr char kCompleteSlice[] = R"({"apiVersion":"resource.k8s.io/v1",
    "kind":"ResourceSlice","metadata":{"name":"s1"},
    "spec":{"driver":"gpu.example.com","nodeName":"node-1",
    "pool":{"name":"node-1","generation":1,"resourceSliceCount":1},
    "devices":[{"name":"gpu-0"},{"name":"gpu-1"}]}})";

std::string RequestJson(std::string_view name) {
  return fmt::format(R"({{"apiVersion":"resource.k8s.io/v1alpha3",
      "kind":"ResourcePoolStatusRequest","metadata":{{"name":"{}"}},
      "spec":{{"driver":"gpu.example.com"}}}})",
                     name);
}

// While a pool is incomplete nothing is written; the request is retried
// after 5, 10, 20, 40 and 80 ms, then dropped.
TEST(ResourcePoolStatusControllerTest,
     IncompletePoolIsRetriedWithBackoffThenDropped) {
  Harness h;
  h.Create(kFirstOfTwoSlices);
  h.Create(RequestJson("rolling"));
  h.Pump();
  ASSERT_TRUE(h.controller.ProcessOne());
  for (const milliseconds delay :
       {milliseconds(5), milliseconds(10), milliseconds(20), milliseconds(40),
        milliseconds(80)}) {
    EXPECT_EQ(h.controller.PendingRetries(), 1u);
    EXPECT_FALSE(h.controller.Idle());
    h.now += delay - milliseconds(1);
    EXPECT_FALSE(h.controller.ProcessOne()) << "early, before " << delay;
    h.now += milliseconds(1);
    EXPECT_TRUE(h.controller.ProcessOne()) << "due after " << delay;
  }
  EXPECT_EQ(h.controller.PendingRetries(), 0u);
  EXPECT_TRUE(h.controller.Idle());
  h.now += hours(1);
  EXPECT_FALSE(h.controller.ProcessOne());

  const ResourcePoolStatusControllerMetrics metrics = h.controller.metrics();
  EXPECT_EQ(metrics.syncs, 6u);
  EXPECT_EQ(metrics.incomplete_syncs, 6u);
  EXPECT_EQ(metrics.sync_errors, 6u);
  EXPECT_EQ(metrics.requeues, 5u);
  EXPECT_EQ(metrics.dropped, 1u);
  EXPECT_EQ(metrics.status_updates, 0u);
  auto stored = h.Stored("rolling");
  ASSERT_TRUE(stored.has_value());
  EXPECT_FALSE(stored->status.has_value());
}

// Slice changes queue nothing; an update of the pending request itself
// (here a label) queues it again, and then the completed pool is answered.
TEST(ResourcePoolStatusControllerTest, UpdateQueuesADroppedRequestAgain) {
  Harness h({.max_retries = 0});
  h.Create(kFirstOfTwoSlices);
  h.Create(RequestJson("rolling"));
  h.Pump();
  ASSERT_TRUE(h.controller.ProcessOne());
  EXPECT_EQ(h.controller.metrics().dropped, 1u);
  EXPECT_EQ(h.controller.PendingRetries(), 0u);

  h.Create(kSecondOfTwoSlices);
  h.Pump();
  EXPECT_FALSE(h.controller.ProcessOne());
  EXPECT_FALSE(h.Stored("rolling")->status.has_value());

  api::ResourcePoolStatusRequest labelled = *h.Stored("rolling");
  labelled.metadata.labels["retry"] = "1";
  auto updated = h.api.Update(labelled);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  h.Pump();
  ASSERT_TRUE(h.controller.ProcessOne());
  auto answered = h.Stored("rolling");
  ASSERT_TRUE(answered.has_value());
  ASSERT_TRUE(answered->status.has_value());
  ASSERT_EQ(answered->status->pools.size(), 1u);
  EXPECT_EQ(answered->status->pools[0].validation_error, std::nullopt);
  EXPECT_EQ(answered->status->pools[0].total_devices, 2);
  ASSERT_EQ(answered->status->conditions.size(), 1u);
  const api::Condition& complete = answered->status->conditions[0];
  EXPECT_EQ(complete.type, api::kPoolStatusConditionComplete);
  EXPECT_EQ(complete.status, "True");
  EXPECT_EQ(complete.reason, "CalculationComplete");
  EXPECT_EQ(complete.message, "Calculated status for 1 pools");
  EXPECT_EQ(complete.last_transition_time, "2026-09-23T12:00:00Z");
}

// A failed status write is retried with the same backoff.
TEST(ResourcePoolStatusControllerTest, FailedWriteIsRetriedWithBackoff) {
  Harness h;
  h.api.status_failures = 2;
  h.Create(kCompleteSlice);
  h.Create(RequestJson("gpus"));
  h.Pump();
  ASSERT_TRUE(h.controller.ProcessOne());  // fails
  EXPECT_FALSE(h.controller.ProcessOne());
  h.now += milliseconds(5);
  ASSERT_TRUE(h.controller.ProcessOne());  // fails
  h.now += milliseconds(9);
  EXPECT_FALSE(h.controller.ProcessOne());
  h.now += milliseconds(1);
  ASSERT_TRUE(h.controller.ProcessOne());  // written
  EXPECT_TRUE(h.controller.Idle());

  const ResourcePoolStatusControllerMetrics metrics = h.controller.metrics();
  EXPECT_EQ(metrics.status_updates, 1u);
  EXPECT_EQ(metrics.sync_errors, 2u);
  EXPECT_EQ(metrics.incomplete_syncs, 0u);
  EXPECT_EQ(metrics.requeues, 2u);
  EXPECT_EQ(metrics.dropped, 0u);
  auto stored = h.Stored("gpus");
  ASSERT_TRUE(stored.has_value());
  ASSERT_TRUE(stored->status.has_value());
  EXPECT_EQ(stored->status->pool_count, 1);
}

api::ResourcePoolStatusRequestStatus AnsweredAt(std::string type,
                                                std::string time) {
  return {.pool_count = 0,
          .conditions = {{.type = std::move(type),
                          .status = "True",
                          .last_transition_time = std::move(time),
                          .reason = "Reason",
                          .message = "message"}}};
}

// Pending requests expire 24 h after creation; answered ones 1 h after
// their first Complete or Failed condition (after creation without one).
TEST(ResourcePoolStatusControllerTest, RequestExpiryFollowsTheAnswerTime) {
  const ResourcePoolStatusControllerOptions options;
  const SystemTime created = *ParseUtcTime("2026-09-23T12:00:00Z");
  const auto expired = [&](const api::ResourcePoolStatusRequest& request,
                           SystemTime at) {
    return ResourcePoolStatusController::RequestExpired(request, at, options);
  };
  api::ResourcePoolStatusRequest pending;
  pending.metadata.creation_timestamp = "2026-09-23T12:00:00Z";
  EXPECT_FALSE(expired(pending, created + hours(24)));
  EXPECT_TRUE(expired(pending, created + hours(24) + seconds(1)));

  api::ResourcePoolStatusRequest complete = pending;
  complete.status = AnsweredAt("Complete", "2026-09-23T13:00:00Z");
  complete.status->conditions.insert(
      complete.status->conditions.begin(),
      {.type = "Example",
       .status = "True",
       .last_transition_time = "2026-09-01T00:00:00Z"});
  EXPECT_FALSE(expired(complete, created + hours(2)));
  EXPECT_TRUE(expired(complete, created + hours(2) + seconds(1)));

  api::ResourcePoolStatusRequest failed = pending;
  failed.status = AnsweredAt("Failed", "2026-09-23T12:30:00Z");
  EXPECT_FALSE(expired(failed, created + minutes(90)));
  EXPECT_TRUE(expired(failed, created + minutes(90) + seconds(1)));

  api::ResourcePoolStatusRequest unconditioned = pending;
  unconditioned.status = api::ResourcePoolStatusRequestStatus{};
  EXPECT_FALSE(expired(unconditioned, created + hours(1)));
  EXPECT_TRUE(expired(unconditioned, created + hours(1) + seconds(1)));

  // Without a readable time nothing expires.
  api::ResourcePoolStatusRequest undated;
  EXPECT_FALSE(expired(undated, created + hours(1000)));
  api::ResourcePoolStatusRequest unreadable = pending;
  unreadable.status = AnsweredAt("Complete", "yesterday");
  EXPECT_FALSE(expired(unreadable, created + hours(1000)));

  const ResourcePoolStatusControllerOptions short_lived{
      .finished_request_ttl = minutes(1), .pending_request_ttl = minutes(2)};
  EXPECT_TRUE(ResourcePoolStatusController::RequestExpired(
      pending, created + minutes(2) + seconds(1), short_lived));
  EXPECT_TRUE(ResourcePoolStatusController::RequestExpired(
      failed, created + minutes(31) + seconds(1), short_lived));
}

// The sweeper deletes what its cache shows as expired, sending the cached
// uid: a request recreated under the same name survives, and one deleted
// already is skipped.
TEST(ResourcePoolStatusControllerTest, SweeperDeletesExpiredRequestsByUid) {
  Harness h;
  h.Create(RequestJson("pending"));
  h.Create(RequestJson("answered"));
  h.Create(RequestJson("replaced"));
  const SystemTime created = h.CreatedAt("pending");
  api::ResourcePoolStatusRequest answered = *h.Stored("answered");
  answered.status =
      AnsweredAt("Complete", *h.Stored("pending")->metadata.creation_timestamp);
  ASSERT_TRUE(h.api.UpdateStatus(answered).ok());
  h.Pump();
  const SystemTime latest_creation =
      std::max({created, h.CreatedAt("answered"), h.CreatedAt("replaced")});

  // 1 h after the answer: only the answered request expires.
  h.now = created + hours(1) + seconds(1);
  EXPECT_EQ(h.controller.SweepExpired(), 1u);
  EXPECT_FALSE(h.Stored("answered").has_value());
  EXPECT_TRUE(h.Stored("pending").has_value());

  // "replaced" is recreated; the cache still has the old one (and the
  // deleted "answered").
  const std::string old_uid = h.Stored("replaced")->metadata.uid;
  ASSERT_TRUE(h.api
                  .Delete(client::ResourcePoolStatusRequestsResource(), "",
                          "replaced", "")
                  .ok());
  h.Create(RequestJson("replaced"));
  ASSERT_NE(h.Stored("replaced")->metadata.uid, old_uid);

  // 24 h after creation the pending requests expire.
  h.now = latest_creation + hours(24) + seconds(1);
  EXPECT_EQ(h.controller.SweepExpired(), 1u);
  EXPECT_FALSE(h.Stored("pending").has_value());
  auto survivor = h.Stored("replaced");
  ASSERT_TRUE(survivor.has_value());
  EXPECT_NE(survivor->metadata.uid, old_uid);

  const ResourcePoolStatusControllerMetrics metrics = h.controller.metrics();
  EXPECT_EQ(metrics.sweeps, 2u);
  EXPECT_EQ(metrics.requests_deleted, 2u);
}

// One slice of pool "pool-a" with `devices` (JSON array elements).
PoolStatusInputs OneSlice(std::vector<api::Object>& storage,
                          const std::string& devices,
                          const std::string& extra_spec = "") {
  storage.push_back(Decode(fmt::format(
      R"({{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{{"name":"s"}},"spec":{{"driver":"gpu.example.com",
      "nodeName":"node-1",
      "pool":{{"name":"pool-a","generation":1,"resourceSliceCount":1}},
      {}"devices":[{}]}}}})",
      extra_spec, devices)));
  return InputsOf(storage);
}

// `count` partitions of distinct types drawing from one counter set.
std::string Partitions(int count) {
  std::string devices;
  for (int i = 0; i < count; ++i) {
    if (!devices.empty()) devices += ",";
    devices += fmt::format(
        R"({{"name":"part-{0}","attributes":{{"profile":{{"string":"type-{0}"}}}},
        "consumesCounters":[{{"counterSet":"gpu-0",
        "counters":{{"memory":{{"value":"1"}}}}}}]}})",
        i);
  }
  return devices;
}

constexpr char kPartitionedSpec[] =
    R"("partitionTypeAttribute":"gpu.example.com/profile",
    "sharedCounters":[{"name":"gpu-0","counters":{"memory":{"value":"100"}}}],)";

// A shareable device with `count` capacities.
std::string ShareableDevice(int count) {
  std::string capacity;
  for (int i = 0; i < count; ++i) {
    if (!capacity.empty()) capacity += ",";
    capacity += fmt::format(R"("c{:02}":{{"value":"1"}})", i);
  }
  return fmt::format(
      R"({{"name":"shared","allowMultipleAllocations":true,"capacity":{{{}}}}})",
      capacity);
}

api::PoolStatus OnlyPool(const PoolStatusInputs& inputs) {
  const api::ResourcePoolStatusRequestSpec spec{.driver = "gpu.example.com"};
  api::ResourcePoolStatusRequestStatus status =
      ResourcePoolStatusController::ComputeStatus(spec, inputs, kNow);
  EXPECT_EQ(status.pools.size(), 1u);
  return status.pools.empty() ? api::PoolStatus{} : status.pools[0];
}

// At most 32 partition types: more is an error, not a cut list; the counts
// stay, and the shareable summary stays too.
TEST(ResourcePoolStatusControllerTest, PartitionSummaryOverCapIsAnError) {
  std::vector<api::Object> at_cap_objects;
  const api::PoolStatus at_cap =
      OnlyPool(OneSlice(at_cap_objects, Partitions(32), kPartitionedSpec));
  EXPECT_EQ(at_cap.validation_error, std::nullopt);
  EXPECT_EQ(at_cap.partition_summary.size(), 32u);

  std::vector<api::Object> over_cap_objects;
  const api::PoolStatus over_cap = OnlyPool(
      OneSlice(over_cap_objects, Partitions(33) + "," + ShareableDevice(1),
               kPartitionedSpec));
  EXPECT_EQ(over_cap.validation_error,
            "PartitionSummaryOverCap: pool gpu.example.com/pool-a has 33 "
            "partition types, exceeding the maximum of 32");
  EXPECT_TRUE(over_cap.partition_summary.empty());
  EXPECT_EQ(over_cap.total_devices, 34);
  ASSERT_TRUE(over_cap.shareable_summary.has_value());
  EXPECT_EQ(over_cap.shareable_summary->capacity.size(), 1u);
}

// At most 32 shareable capacity names; the error also drops a valid
// partition summary.
TEST(ResourcePoolStatusControllerTest, ShareableSummaryOverCapIsAnError) {
  std::vector<api::Object> at_cap_objects;
  const api::PoolStatus at_cap =
      OnlyPool(OneSlice(at_cap_objects, ShareableDevice(32)));
  EXPECT_EQ(at_cap.validation_error, std::nullopt);
  ASSERT_TRUE(at_cap.shareable_summary.has_value());
  EXPECT_EQ(at_cap.shareable_summary->capacity.size(), 32u);

  std::vector<api::Object> over_cap_objects;
  const api::PoolStatus over_cap = OnlyPool(
      OneSlice(over_cap_objects, Partitions(2) + "," + ShareableDevice(33),
               kPartitionedSpec));
  EXPECT_EQ(over_cap.validation_error,
            "ShareableSummaryOverCap: pool gpu.example.com/pool-a has 33 "
            "shareable capacity keys, exceeding the maximum of 32");
  EXPECT_FALSE(over_cap.shareable_summary.has_value());
  EXPECT_TRUE(over_cap.partition_summary.empty());
  EXPECT_EQ(over_cap.total_devices, 3);
}

// A slice `name` of generation 1 of pool "pool-a", stating `count` slices.
api::Object Slice(const std::string& name, int count,
                  const std::string& extra_spec, const std::string& devices) {
  return Decode(fmt::format(
      R"({{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{{"name":"{}"}},"spec":{{"driver":"gpu.example.com",
      "nodeName":"node-1",
      "pool":{{"name":"pool-a","generation":1,"resourceSliceCount":{}}},
      {}"devices":[{}]}}}})",
      name, count, extra_spec, devices));
}

// A partition `name` of type `type` drawing `memory` from counter set
// `set`.
std::string Partition(const std::string& name, const std::string& type,
                      const std::string& set, const std::string& memory) {
  return fmt::format(
      R"({{"name":"{}","attributes":{{"profile":{{"string":{}}}}},
      "consumesCounters":[{{"counterSet":"{}",
      "counters":{{"memory":{{"value":"{}"}}}}}}]}})",
      name, GoQuote(type), set, memory);
}

constexpr char kTwoSetsSpec[] =
    R"("partitionTypeAttribute":"gpu.example.com/profile",
    "sharedCounters":[{"name":"gpu-0","counters":{"memory":{"value":"80Gi"}}},
    {"name":"gpu-1","counters":{"memory":{"value":"80Gi"}}}],)";

api::PoolStatus OnlyPoolOf(const std::vector<api::Object>& objects) {
  return OnlyPool(InputsOf(objects));
}

// Partition types, attributes and device names in the error texts are
// quoted as Go's %q does.
TEST(ResourcePoolStatusControllerTest, PartitionErrorsQuoteAsGo) {
  const api::PoolStatus mismatch = OnlyPoolOf(
      {Slice("s", 1, kTwoSetsSpec,
             Partition("half-0", R"(Half "b")", "gpu-0", "40Gi") + "," +
                 Partition("half-1", R"(Half "b")", "gpu-0", "30Gi"))});
  EXPECT_EQ(mismatch.validation_error,
            R"(PartitionCostMismatch: devices of partition type "Half \"b\"" )"
            R"(in pool gpu.example.com/pool-a consume different counters)");
  EXPECT_TRUE(mismatch.partition_summary.empty());
  EXPECT_EQ(mismatch.total_devices, 2);

  const api::PoolStatus missing = OnlyPoolOf(
      {Slice("s", 1, kTwoSetsSpec,
             Partition("full-0", "Full", "gpu-0", "80Gi") +
                 R"(,{"name":"odd","consumesCounters":[{"counterSet":"gpu-1",
          "counters":{"memory":{"value":"80Gi"}}}]})")});
  EXPECT_EQ(missing.validation_error,
            R"(PartitionTypeMissing: device "odd" in pool )"
            R"(gpu.example.com/pool-a does not carry partition type )"
            R"(attribute "gpu.example.com/profile")");
}

// Costs compare as "set/counter=amount" terms: the counter set counts, and
// amounts compare as their canonical text (1000m and 1 are both "1"; 80Gi
// and 85899345920 are not the same text), as upstream.
TEST(ResourcePoolStatusControllerTest, PartitionCostsCompareSetsAndText) {
  const api::PoolStatus two_sets =
      OnlyPoolOf({Slice("s", 1, kTwoSetsSpec,
                        Partition("gpu-0-full", "Full", "gpu-0", "80Gi") + "," +
                            Partition("gpu-1-full", "Full", "gpu-1", "80Gi"))});
  EXPECT_EQ(two_sets.validation_error,
            R"(PartitionCostMismatch: devices of partition type "Full" in )"
            R"(pool gpu.example.com/pool-a consume different counters)");

  const api::PoolStatus same_text =
      OnlyPoolOf({Slice("s", 1, kTwoSetsSpec,
                        Partition("tiny-0", "Tiny", "gpu-0", "1000m") + "," +
                            Partition("tiny-1", "Tiny", "gpu-0", "1"))});
  EXPECT_EQ(same_text.validation_error, std::nullopt);
  ASSERT_EQ(same_text.partition_summary.size(), 1u);
  EXPECT_EQ(same_text.partition_summary[0].total, 2);
  EXPECT_EQ(same_text.partition_summary[0].allocatable, 2);

  const api::PoolStatus other_text = OnlyPoolOf(
      {Slice("s", 1, kTwoSetsSpec,
             Partition("full-0", "Full", "gpu-0", "80Gi") + "," +
                 Partition("full-1", "Full", "gpu-0", "85899345920"))});
  EXPECT_EQ(other_text.validation_error,
            R"(PartitionCostMismatch: devices of partition type "Full" in )"
            R"(pool gpu.example.com/pool-a consume different counters)");
}

// Slices are taken in name order whatever order the cache lists them in:
// the first slice states the expected count (s-1: 2, so the pool is
// complete), and the first error in pool order is the one reported (s-1's
// untyped device, not the cost mismatch of s-2's halves on two sets).
TEST(ResourcePoolStatusControllerTest, SliceOrderDoesNotChangeTheAnswer) {
  const api::Object first =
      Slice("s-1", 2, kTwoSetsSpec,
            R"({"name":"odd","consumesCounters":[{"counterSet":"gpu-0",
            "counters":{"memory":{"value":"10Gi"}}}]})");
  const api::Object second =
      Slice("s-2", 3, R"("partitionTypeAttribute":"gpu.example.com/profile",)",
            Partition("half-0", "Half", "gpu-0", "40Gi") + "," +
                Partition("half-1", "Half", "gpu-1", "40Gi"));
  const std::string want_error =
      R"(PartitionTypeMissing: device "odd" in pool gpu.example.com/pool-a )"
      R"(does not carry partition type attribute "gpu.example.com/profile")";
  for (const std::vector<api::Object>& objects :
       {std::vector<api::Object>{first, second},
        std::vector<api::Object>{second, first}}) {
    const api::PoolStatus pool = OnlyPoolOf(objects);
    EXPECT_EQ(pool.resource_slice_count, 2);
    EXPECT_EQ(pool.total_devices, 3);
    EXPECT_EQ(pool.validation_error, want_error);
  }
}

// A counter the shared sets lack never fits, not even at zero cost; one
// they have fits at zero cost.
TEST(ResourcePoolStatusControllerTest, AbsentCountersDoNotFit) {
  const api::PoolStatus pool = OnlyPoolOf(
      {Slice("s", 1, kTwoSetsSpec,
             Partition("zero", "Zero", "gpu-0", "0") + "," +
                 Partition("ghost", "Ghost", "gpu-7", "0") + "," +
                 R"({"name":"probe","attributes":{"profile":{"string":"Probe"}},
          "consumesCounters":[{"counterSet":"gpu-0",
          "counters":{"memory":{"value":"0"},"cores":{"value":"0"}}}]})")});
  EXPECT_EQ(pool.validation_error, std::nullopt);
  ASSERT_EQ(pool.partition_summary.size(), 3u);
  EXPECT_EQ(pool.partition_summary[0].type, "Ghost");
  EXPECT_EQ(pool.partition_summary[0].allocatable, 0);
  EXPECT_EQ(pool.partition_summary[1].type, "Probe");
  EXPECT_EQ(pool.partition_summary[1].allocatable, 0);
  EXPECT_EQ(pool.partition_summary[2].type, "Zero");
  EXPECT_EQ(pool.partition_summary[2].allocatable, 1);
}

}  // namespace
}  // namespace dralloc::controller
