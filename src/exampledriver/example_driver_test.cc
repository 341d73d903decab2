// ExampleDriver against an in-memory API with a temp CDI and state dir: spec
// content, opaque config, idempotency, UID mismatch, per-claim failures,
// unprepare and checkpoint reload.
#include "exampledriver/example_driver.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cdi/registry.h"
#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;
using kubeletplugin::ClaimRef;
using Json = nlohmann::json;

constexpr char kDriver[] = "gpu.example.com";

class ScopedTempDir {
 public:
  ScopedTempDir() {
    char pattern[] = "/tmp/exdrv-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~ScopedTempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

api::DeviceAllocationConfiguration Config(std::string source,
                                          std::vector<std::string> requests,
                                          std::string parameters) {
  api::DeviceAllocationConfiguration config;
  config.source = std::move(source);
  config.requests = std::move(requests);
  config.opaque = api::OpaqueDeviceConfiguration{kDriver, {parameters, false}};
  return config;
}

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The claim spec file name the driver uses for `uid`.
std::string ExampleDriverTestSpecName(const std::string& uid) {
  return "k8s.gpu.example.com-gpu_" + uid + ".json";
}

Json ReadJson(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

class ExampleDriverTest : public ::testing::Test {
 protected:
  void SetUp() override { driver_ = NewDriver({}); }

  // A driver on the test's directories; the previous driver_ is destroyed
  // first (one driver per state dir at a time).
  std::unique_ptr<ExampleDriver> NewDriver(ExampleDriverOptions options) {
    driver_.reset();
    options.node_name = "node-a";
    options.cdi_dir = dir_.path() / "cdi";
    options.state_dir = dir_.path() / "state";
    auto driver = ExampleDriver::Create(options, &node_api_);
    EXPECT_TRUE(driver.ok()) << driver.status();
    return driver.ok() ? std::move(driver).value() : nullptr;
  }

  // Creates claim `name` allocated `devices` (request "gpu") with `configs`;
  // returns its reference.
  ClaimRef AddClaim(
      const std::string& name, const std::vector<std::string>& devices,
      std::vector<api::DeviceAllocationConfiguration> configs = {}) {
    api::ResourceClaim claim;
    claim.metadata.namespace_ = "default";
    claim.metadata.name = name;
    auto created = api_.Create(claim);
    EXPECT_TRUE(created.ok()) << created.status();
    claim = std::get<api::ResourceClaim>(**created);
    api::AllocationResult allocation;
    for (const std::string& device : devices) {
      allocation.devices.results.push_back({"gpu", kDriver, "node-a", device});
    }
    allocation.devices.results.push_back(
        {"other", "other.example.com", "node-a", "x-0"});
    allocation.devices.config = std::move(configs);
    claim.status.allocation = allocation;
    EXPECT_TRUE(api_.UpdateStatus(claim).ok());
    return {"default", claim.metadata.uid, name};
  }

  void TearDown() override {
    driver_.reset();
    // The driver read only what the Node authorizer lets node-a read.
    EXPECT_EQ(node_api_.refused(), std::vector<std::string>{});
  }

  ScopedTempDir dir_;
  client::MemoryApiClient api_;
  // The driver's client, as system:node:node-a.
  client::testing::NodeIdentityApiClient node_api_{api_, "node-a"};
  std::unique_ptr<ExampleDriver> driver_;
};

TEST_F(ExampleDriverTest, PrepareWritesClaimSpecAndReturnsCdiIds) {
  ASSERT_NE(driver_, nullptr);
  const Json common = ReadJson(driver_->CommonSpecPath());
  EXPECT_EQ(common["kind"], "k8s.gpu.example.com/gpu");
  EXPECT_EQ(common["devices"][0]["name"], "common");
  EXPECT_EQ(common["devices"][0]["containerEdits"]["env"],
            Json({"KUBERNETES_NODE_NAME=node-a",
                  "DRA_RESOURCE_DRIVER_NAME=gpu.example.com"}));

  const ClaimRef claim = AddClaim("two", {"gpu-0", "gpu-3"});
  auto results = driver_->PrepareClaims(std::span(&claim, 1));
  ASSERT_EQ(results.size(), 1u);
  const auto& result = results.at(claim.uid);
  ASSERT_TRUE(result.error.ok()) << result.error;
  ASSERT_EQ(result.devices.size(), 2u);  // other.example.com's is not ours
  EXPECT_EQ(result.devices[1].device_name, "gpu-3");
  EXPECT_EQ(result.devices[1].pool_name, "node-a");
  EXPECT_EQ(result.devices[1].request_names, std::vector<std::string>{"gpu"});
  EXPECT_EQ(result.devices[1].cdi_device_ids,
            (std::vector<std::string>{
                "k8s.gpu.example.com/gpu=common",
                "k8s.gpu.example.com/gpu=" + claim.uid + "-gpu-3"}));

  const fs::path spec_path = driver_->ClaimSpecPath(claim.uid);
  EXPECT_EQ(spec_path.filename(),
            "k8s.gpu.example.com-gpu_" + claim.uid + ".json");
  const Json spec = ReadJson(spec_path);
  EXPECT_EQ(spec["kind"], "k8s.gpu.example.com/gpu");
  ASSERT_EQ(spec["devices"].size(), 2u);
  EXPECT_EQ(spec["devices"][0]["name"], claim.uid + "-gpu-0");
  EXPECT_EQ(spec["devices"][0]["containerEdits"]["env"],
            Json({"GPU_DEVICE_0=gpu-0"}));
  EXPECT_EQ(spec["devices"][1]["containerEdits"]["env"],
            Json({"GPU_DEVICE_3=gpu-3"}));

  // The node's CDI registry loads both specs and resolves the returned IDs.
  const cdi::Registry registry = cdi::Registry::Load({dir_.path() / "cdi"});
  EXPECT_TRUE(registry.errors().empty());
  auto edits = registry.Resolve(result.devices[1].cdi_device_ids);
  ASSERT_TRUE(edits.ok()) << edits.status();
  EXPECT_EQ(edits->env, (std::vector<std::string>{
                            "KUBERNETES_NODE_NAME=node-a",
                            "DRA_RESOURCE_DRIVER_NAME=gpu.example.com",
                            "GPU_DEVICE_3=gpu-3"}));
}

TEST_F(ExampleDriverTest, OpaqueConfigFromClassThenClaim) {
  const ClaimRef claim =
      AddClaim("configured", {"gpu-1-partition-0"},
               {Config("FromClaim", {"gpu"},
                       R"({"sharing":{"strategy":"TimeSlicing",)"
                       R"("timeSlicingConfig":{"interval":"Long"}}})"),
                Config("FromClass", {},
                       R"({"sharing":{"strategy":"SpacePartitioning",)"
                       R"("spacePartitioningConfig":{"partitionCount":2}}})"),
                Config("FromClaim", {"unrelated"},
                       R"({"sharing":{"strategy":"TimeSlicing"}})")});
  auto results = driver_->PrepareClaims(std::span(&claim, 1));
  ASSERT_TRUE(results.at(claim.uid).error.ok()) << results.at(claim.uid).error;
  const Json spec = ReadJson(driver_->ClaimSpecPath(claim.uid));
  EXPECT_EQ(spec["devices"][0]["containerEdits"]["env"],
            Json({"GPU_DEVICE_1_PARTITION_0=gpu-1-partition-0",
                  "GPU_DEVICE_1_PARTITION_0_SHARING_STRATEGY=TimeSlicing",
                  "GPU_DEVICE_1_PARTITION_0_TIMESLICE_INTERVAL=Long"}));
}

TEST_F(ExampleDriverTest, PerClaimErrorsInABatch) {
  std::vector<ClaimRef> claims = {
      AddClaim("good", {"gpu-0"}),
      AddClaim(
          "bad-config", {"gpu-1"},
          {Config("FromClaim", {},
                  R"({"sharing":{"strategy":"TimeSlicing","colour":1}})")}),
      AddClaim("replaced", {"gpu-2"}), AddClaim("unallocated", {})};
  claims[2].uid = "some-older-uid";
  auto unallocated = std::get<api::ResourceClaim>(
      **api_.Get(client::ResourceClaimsResource(), "default", "unallocated"));
  unallocated.status.allocation.reset();
  ASSERT_TRUE(api_.UpdateStatus(unallocated).ok());
  claims.push_back({"default", "missing-uid", "missing"});

  auto results = driver_->PrepareClaims(claims);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results.at(claims[0].uid).error.ok());
  EXPECT_EQ(results.at(claims[1].uid).error.message(),
            "resourceclaim default/bad-config: "
            "status.allocation.devices.config[0].opaque.parameters.sharing."
            "colour: Unsupported field: unknown field \"colour\"");
  EXPECT_NE(
      results.at("some-older-uid")
          .error.message()
          .find("resourceclaim default/replaced: metadata.uid: Invalid value"),
      std::string::npos)
      << results.at("some-older-uid").error;
  EXPECT_NE(results.at(claims[3].uid)
                .error.message()
                .find("status.allocation: Required value"),
            std::string::npos);
  EXPECT_EQ(results.at("missing-uid").error.code(), StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(driver_->ClaimSpecPath(claims[1].uid)));
  EXPECT_TRUE(fs::exists(driver_->ClaimSpecPath(claims[0].uid)));
}

TEST_F(ExampleDriverTest, FailKnobs) {
  const ClaimRef a = AddClaim("a", {"gpu-0"});
  const ClaimRef b = AddClaim("b", {"gpu-1"});
  auto one = NewDriver({.fail_prepare_claim = "b"});
  auto results = one->PrepareClaims(std::vector<ClaimRef>{a, b});
  EXPECT_TRUE(results.at(a.uid).error.ok());
  EXPECT_NE(results.at(b.uid).error.message().find("--fail-prepare-claim"),
            std::string::npos);
  one.reset();
  auto all = NewDriver({.fail_prepare = true});
  EXPECT_NE(all->PrepareClaims(std::span(&a, 1))
                .at(a.uid)
                .error.message()
                .find("resourceclaim default/a: prepare failed"),
            std::string::npos);
}

TEST_F(ExampleDriverTest, IdempotentAcrossRestartsAndUnprepare) {
  const ClaimRef claim = AddClaim("c", {"gpu-5"});
  auto first = driver_->PrepareClaims(std::span(&claim, 1));
  ASSERT_TRUE(first.at(claim.uid).error.ok());
  auto again = driver_->PrepareClaims(std::span(&claim, 1));
  EXPECT_EQ(again.at(claim.uid).devices[0].cdi_device_ids,
            first.at(claim.uid).devices[0].cdi_device_ids);

  // A restarted driver answers from its checkpoint, without the API.
  ASSERT_TRUE(
      api_.Delete(client::ResourceClaimsResource(), "default", "c", "").ok());
  driver_.reset();
  auto restarted = NewDriver({});
  ASSERT_NE(restarted, nullptr);
  auto reloaded = restarted->PrepareClaims(std::span(&claim, 1));
  ASSERT_TRUE(reloaded.at(claim.uid).error.ok())
      << reloaded.at(claim.uid).error;
  EXPECT_EQ(reloaded.at(claim.uid).devices[0].device_name, "gpu-5");
  EXPECT_EQ(reloaded.at(claim.uid).devices[0].cdi_device_ids,
            first.at(claim.uid).devices[0].cdi_device_ids);

  const std::vector<ClaimRef> unprepare = {claim,
                                           {"default", "never-prepared", "n"}};
  auto unprepared = restarted->UnprepareClaims(unprepare);
  ASSERT_EQ(unprepared.size(), 2u);
  EXPECT_TRUE(unprepared.at(claim.uid).ok());
  EXPECT_TRUE(unprepared.at("never-prepared").ok());
  EXPECT_FALSE(fs::exists(restarted->ClaimSpecPath(claim.uid)));
  EXPECT_TRUE(fs::exists(restarted->CommonSpecPath()));
  // Unprepared and gone from the API: a new prepare now fails.
  EXPECT_EQ(
      restarted->PrepareClaims(std::span(&claim, 1)).at(claim.uid).error.code(),
      StatusCode::kNotFound);
  // The state dir records no claim.
  restarted.reset();
  auto store = PreparedClaimsStore::Open({.dir = dir_.path() / "state"});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->Claims().empty());
}

TEST_F(ExampleDriverTest, PrepareDelayEndsOnCancel) {
  const ClaimRef claim = AddClaim("slow", {"gpu-0"});
  auto slow = NewDriver({.prepare_delay = std::chrono::minutes(10)});
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, kubeletplugin::PrepareResult> results;
  std::thread prepare(
      [&] { results = slow->PrepareClaims(std::span(&claim, 1)); });
  slow->CancelDelays();
  prepare.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(1));
  EXPECT_TRUE(results.at(claim.uid).error.ok());
}

TEST_F(ExampleDriverTest, SecondDriverOnTheSameStateDirIsRefused) {
  ExampleDriverOptions options;
  options.node_name = "node-a";
  options.cdi_dir = dir_.path() / "cdi";
  options.state_dir = dir_.path() / "state";
  auto second = ExampleDriver::Create(options, &node_api_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("prepared-claims.journal: in use"),
            std::string::npos)
      << second.status();
  driver_.reset();
  EXPECT_TRUE(ExampleDriver::Create(options, &node_api_).ok());
}

TEST_F(ExampleDriverTest, CorruptCheckpointIsAnError) {
  driver_.reset();
  std::ofstream(dir_.path() / "state" / "prepared-claims.json") << "{oops";
  ExampleDriverOptions options;
  options.node_name = "node-a";
  options.cdi_dir = dir_.path() / "cdi";
  options.state_dir = dir_.path() / "state";
  auto driver = ExampleDriver::Create(options, &node_api_);
  ASSERT_FALSE(driver.ok());
  EXPECT_NE(driver.status().message().find("prepared-claims.json"),
            std::string::npos);
}

TEST_F(ExampleDriverTest, UnprepareDelayEndsOnCancel) {
  const ClaimRef claim = AddClaim("slow", {"gpu-0"});
  auto slow = NewDriver({.unprepare_delay = std::chrono::minutes(10)});
  ASSERT_TRUE(
      slow->PrepareClaims(std::span(&claim, 1)).at(claim.uid).error.ok());
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, Status> results;
  std::thread unprepare(
      [&] { results = slow->UnprepareClaims(std::span(&claim, 1)); });
  slow->CancelDelays();
  unprepare.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(1));
  EXPECT_TRUE(results.at(claim.uid).ok());
  EXPECT_FALSE(fs::exists(slow->ClaimSpecPath(claim.uid)));
}

// After a machine crash the page cache is gone: spec files written without
// fsync may be missing or empty. A restarted driver restores them from its
// records and removes the ones no prepared claim owns.
TEST_F(ExampleDriverTest, RestartRestoresAndCleansSpecFiles) {
  const ClaimRef kept = AddClaim("kept", {"gpu-1"});
  const ClaimRef emptied = AddClaim("emptied", {"gpu-2"});
  ASSERT_TRUE(driver_->PrepareClaims(std::vector<ClaimRef>{kept, emptied})
                  .at(kept.uid)
                  .error.ok());
  const std::string kept_text = ReadText(driver_->ClaimSpecPath(kept.uid));
  const std::string emptied_text =
      ReadText(driver_->ClaimSpecPath(emptied.uid));
  const fs::path orphan = driver_->ClaimSpecPath("orphan-uid");
  const fs::path temporary =
      dir_.path() / "cdi" / ("." + orphan.filename().string() + ".tmp-abc");
  const fs::path foreign = dir_.path() / "cdi" / "vendor.com-thing_x.json";
  driver_.reset();

  fs::remove(dir_.path() / "cdi" / ExampleDriverTestSpecName(kept.uid));
  std::ofstream(dir_.path() / "cdi" / ExampleDriverTestSpecName(emptied.uid),
                std::ios::trunc);
  for (const fs::path& file : {orphan, temporary, foreign}) {
    std::ofstream(file) << "{}";
  }
  driver_ = NewDriver({});
  ASSERT_NE(driver_, nullptr);
  EXPECT_EQ(ReadText(driver_->ClaimSpecPath(kept.uid)), kept_text);
  EXPECT_EQ(ReadText(driver_->ClaimSpecPath(emptied.uid)), emptied_text);
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_TRUE(fs::exists(foreign));  // not this driver's
  EXPECT_TRUE(fs::exists(driver_->CommonSpecPath()));
}

// Claims recorded by the driver before the journal existed (no spec text)
// are answered and unprepared as before.
TEST_F(ExampleDriverTest, EarlierCheckpointIsAnsweredAndUnprepared) {
  driver_.reset();
  std::ofstream(dir_.path() / "state" / "prepared-claims.json") << R"({
  "claims": {
    "old-uid": {
      "devices": [{"cdiDeviceIds": ["k8s.gpu.example.com/gpu=common",
                                    "k8s.gpu.example.com/gpu=old-uid-gpu-4"],
                   "deviceName": "gpu-4", "poolName": "node-a",
                   "requestNames": ["gpu"]}],
      "name": "old", "namespace": "default"
    }
  },
  "version": 1
})";
  std::ofstream(dir_.path() / "cdi" / ExampleDriverTestSpecName("old-uid"))
      << "{}";
  driver_ = NewDriver({});
  ASSERT_NE(driver_, nullptr);
  const ClaimRef old = {"default", "old-uid", "old"};  // not in the API
  auto prepared = driver_->PrepareClaims(std::span(&old, 1));
  ASSERT_TRUE(prepared.at("old-uid").error.ok())
      << prepared.at("old-uid").error;
  EXPECT_EQ(prepared.at("old-uid").devices[0].device_name, "gpu-4");
  EXPECT_TRUE(fs::exists(driver_->ClaimSpecPath("old-uid")));  // kept
  EXPECT_TRUE(driver_->UnprepareClaims(std::span(&old, 1)).at("old-uid").ok());
  EXPECT_FALSE(fs::exists(driver_->ClaimSpecPath("old-uid")));
}

// Eight callers at once: each prepares and unprepares its own claims and
// all of them also prepare one shared claim. Every call succeeds, the shared
// claim gets one answer, and the records match the files.
TEST_F(ExampleDriverTest, ConcurrentCallsOnDifferentAndSameClaims) {
  const ClaimRef shared = AddClaim("shared", {"gpu-7"});
  std::vector<std::vector<ClaimRef>> own(8);
  for (int t = 0; t < 8; ++t) {
    for (int i = 0; i < 10; ++i) {
      own[t].push_back(AddClaim(
          "own-" + std::to_string(t) + "-" + std::to_string(i), {"gpu-1"}));
    }
  }
  std::atomic<int> failures{0};
  std::vector<std::vector<std::string>> shared_ids(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::vector<ClaimRef> batch = {own[t][i], shared};
        auto results = driver_->PrepareClaims(batch);
        for (const auto& [uid, result] : results) {
          if (!result.error.ok()) ++failures;
        }
        shared_ids[t].push_back(
            results.at(shared.uid).devices.at(0).cdi_device_ids.at(1));
        // Keep every second own claim prepared.
        if (i % 2 == 0 && !driver_->UnprepareClaims(std::span(&own[t][i], 1))
                               .at(own[t][i].uid)
                               .ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (const auto& ids : shared_ids) {
    for (const std::string& id : ids) {
      EXPECT_EQ(id, "k8s.gpu.example.com/gpu=" + shared.uid + "-gpu-7");
    }
  }
  driver_.reset();
  auto store = PreparedClaimsStore::Open({.dir = dir_.path() / "state"});
  ASSERT_TRUE(store.ok()) << store.status();
  const PreparedClaims claims = (*store)->Claims();
  EXPECT_EQ(claims.size(), 1u + 8 * 5);
  EXPECT_TRUE(claims.contains(shared.uid));
  size_t spec_files = 0;
  for (const auto& entry : fs::directory_iterator(dir_.path() / "cdi")) {
    (void)entry;
    ++spec_files;
  }
  EXPECT_EQ(spec_files, claims.size() + 1);  // + the common spec
}

}  // namespace
}  // namespace dralloc::exampledriver

namespace dralloc::exampledriver {
namespace {

// Classic DRA (--classic): a resource.k8s.io/v1alpha2 claim is prepared
// from its resource handle of this driver; a handle for another node, or
// one that is not the control-plane driver's JSON, is refused with the path
// of the bad field.
class ClassicExampleDriverTest : public ExampleDriverTest {
 protected:
  void SetUp() override {
    ExampleDriverOptions options;
    options.classic = true;
    options.driver_name = "gpu.classic.example.com";
    driver_ = NewDriver(options);
  }
  ClaimRef AddClassicClaim(const std::string& name, const std::string& data) {
    api::v1alpha2::ResourceClaim claim;
    claim.metadata.namespace_ = "default";
    claim.metadata.name = name;
    claim.spec.resource_class_name = "gpu.classic.example.com";
    auto created = api_.Create(claim);
    EXPECT_TRUE(created.ok()) << created.status();
    claim = std::get<api::v1alpha2::ResourceClaim>(**created);
    claim.status.driver_name = "gpu.classic.example.com";
    claim.status.allocation.emplace();
    claim.status.allocation->resource_handles = {
        {"other.example.com", "{}", std::nullopt},
        {"gpu.classic.example.com", data, std::nullopt}};
    EXPECT_TRUE(api_.UpdateStatus(claim).ok());
    return {"default", claim.metadata.uid, name};
  }
};

TEST_F(ClassicExampleDriverTest, PreparesTheGpusOfItsResourceHandle) {
  ASSERT_NE(driver_, nullptr);
  const ClaimRef claim = AddClassicClaim(
      "classic", R"({"nodeName":"node-a","gpus":["gpu-1","gpu-2"],)"
                 R"("env":{"user_mode":"training","admin_sharing":"none"}})");
  auto results = driver_->PrepareClaims(std::span(&claim, 1));
  const auto& result = results.at(claim.uid);
  ASSERT_TRUE(result.error.ok()) << result.error;
  ASSERT_EQ(result.devices.size(), 2u);
  EXPECT_EQ(result.devices[0].device_name, "gpu-1");
  EXPECT_EQ(result.devices[0].pool_name, "node-a");
  EXPECT_TRUE(result.devices[0].request_names.empty());
  EXPECT_EQ(result.devices[1].cdi_device_ids,
            (std::vector<std::string>{
                "k8s.gpu.classic.example.com/gpu=common",
                "k8s.gpu.classic.example.com/gpu=" + claim.uid + "-gpu-2"}));
  const Json spec = ReadJson(driver_->ClaimSpecPath(claim.uid));
  EXPECT_EQ(
      spec["devices"][0]["containerEdits"]["env"],
      Json({"GPU_DEVICE_1=gpu-1", "admin_sharing=none", "user_mode=training"}));
  // Prepared once: a repeated call answers from the store.
  auto again = driver_->PrepareClaims(std::span(&claim, 1));
  EXPECT_EQ(again.at(claim.uid).devices, result.devices);
  auto unprepared = driver_->UnprepareClaims(std::span(&claim, 1));
  EXPECT_TRUE(unprepared.at(claim.uid).ok());
  EXPECT_FALSE(fs::exists(driver_->ClaimSpecPath(claim.uid)));
}

// 1.30's structured parameters: the scheduler wrote the handle's
// structuredData (node and instance names), no data.
TEST_F(ClassicExampleDriverTest, PreparesTheInstancesOfAStructuredHandle) {
  const ClaimRef claim = AddClassicClaim("structured", "");
  auto got = api_.Get(client::ResourceFor<api::v1alpha2::ResourceClaim>(),
                      "default", "structured");
  ASSERT_TRUE(got.ok());
  auto stored = std::get<api::v1alpha2::ResourceClaim>(**got);
  auto& handle = stored.status.allocation->resource_handles[1];
  handle.structured_data.emplace();
  handle.structured_data->node_name = "node-a";
  handle.structured_data->results.push_back(
      {std::nullopt, api::v1alpha2::NamedResourcesAllocationResult{"gpu-3"}});
  ASSERT_TRUE(api_.UpdateStatus(stored).ok());
  auto results = driver_->PrepareClaims(std::span(&claim, 1));
  const auto& result = results.at(claim.uid);
  ASSERT_TRUE(result.error.ok()) << result.error;
  ASSERT_EQ(result.devices.size(), 1u);
  EXPECT_EQ(result.devices[0].device_name, "gpu-3");
  const Json spec = ReadJson(driver_->ClaimSpecPath(claim.uid));
  EXPECT_EQ(spec["devices"][0]["containerEdits"]["env"],
            Json({"GPU_DEVICE_3=gpu-3"}));
}

TEST_F(ClassicExampleDriverTest, RefusesHandlesForOtherNodesOrMalformed) {
  const std::vector<ClaimRef> claims = {
      AddClassicClaim("elsewhere", R"({"nodeName":"node-b","gpus":["gpu-0"]})"),
      AddClassicClaim("garbled", "not json")};
  auto results = driver_->PrepareClaims(claims);
  EXPECT_EQ(results.at(claims[0].uid).error.message(),
            "resourceclaim default/elsewhere: "
            "status.allocation.resourceHandles[1].data: nodeName: Invalid "
            "value: \"node-b\": this driver serves node node-a");
  EXPECT_EQ(results.at(claims[1].uid).error.message(),
            "resourceclaim default/garbled: "
            "status.allocation.resourceHandles[1].data: resource handle: not "
            "a JSON object");
  EXPECT_FALSE(fs::exists(driver_->ClaimSpecPath(claims[0].uid)));
}

}  // namespace
}  // namespace dralloc::exampledriver
