// PodGcController against the in-memory API: which pods it force-deletes,
// decided by the node's existence and Ready condition, and by whether the
// pod is terminating.
#include "controller/pod_gc_controller.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/codec.h"
#include "client/memory_api_client.h"

namespace dralloc::controller {
namespace {

using client::DeleteOptions;
using client::PodsResource;

// The Node in each case: absent, or with these status.conditions (JSON).
constexpr std::string_view kNoNode = "absent";

api::Object Decode(const std::string& json) {
  std::vector<api::DecodeResult> decoded = api::DecodeDocument(json);
  EXPECT_EQ(decoded.size(), 1u);
  EXPECT_TRUE(decoded[0].object.has_value()) << json;
  return *decoded[0].object;
}

api::Object NodeWith(std::string_view conditions) {
  return Decode(fmt::format(
      R"({{"apiVersion":"v1","kind":"Node","metadata":{{"name":"node"}},)"
      R"("status":{{"conditions":{}}}}})",
      conditions));
}

api::Object PodOn(std::string_view node) {
  return Decode(fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"pod",)"
      R"("namespace":"ns"}},"spec":{{"nodeName":"{}",)"
      R"("containers":[{{"name":"c","image":"i"}}]}}}})",
      node));
}

class PodGcControllerTest : public ::testing::Test {
 protected:
  // A fresh cluster with a new controller.
  void Start(PodGcOptions options) {
    gc_.reset();
    pods_.reset();
    nodes_.reset();
    api_ = std::make_unique<client::MemoryApiClient>();
    pods_ = std::make_unique<client::Informer>(*api_, PodsResource());
    nodes_ = std::make_unique<client::Informer>(*api_, client::NodesResource());
    gc_ = std::make_unique<PodGcController>(*api_, *pods_, *nodes_, options);
  }
  // Pumps and processes until nothing changes (bounded).
  void Settle() {
    for (int round = 0; round < 100; ++round) {
      size_t changes = *pods_->Pump(std::chrono::milliseconds(0)) +
                       *nodes_->Pump(std::chrono::milliseconds(0));
      bool worked = false;
      while (gc_->ProcessOne()) worked = true;
      if (changes == 0 && !worked) return;
    }
    ADD_FAILURE() << "no quiescence";
  }
  // "gone", "terminating" or "running".
  std::string PodState() {
    auto pod = api_->Get(PodsResource(), "ns", "pod");
    if (!pod.ok()) return "gone";
    return api::MetaOf(**pod).deletion_timestamp ? "terminating" : "running";
  }

  std::unique_ptr<client::MemoryApiClient> api_;
  std::unique_ptr<client::Informer> pods_, nodes_;
  std::unique_ptr<PodGcController> gc_;
};

struct Case {
  std::string_view name;
  std::string_view node_conditions;  // kNoNode: no Node object
  bool delete_pod;                   // a graceful DELETE (no grace period)
  std::chrono::milliseconds quarantine;
  std::string_view expected;  // PodState() after settling
};

constexpr auto kLong = std::chrono::milliseconds(3'600'000);
constexpr auto kNone = std::chrono::milliseconds(0);
constexpr std::string_view kReady = R"([{"type":"Ready","status":"True"}])";
constexpr std::string_view kNotReady = R"([{"type":"Ready","status":"False"}])";
constexpr std::string_view kUnknown =
    R"([{"type":"Ready","status":"Unknown"}])";
constexpr std::string_view kNoConditions = "[]";

const Case kCases[] = {
    {"terminating on a manifest-built node", kNoConditions, true, kLong,
     "gone"},
    {"terminating on a NotReady node", kNotReady, true, kLong, "gone"},
    {"terminating on an Unknown node", kUnknown, true, kLong, "gone"},
    {"terminating on a missing node", kNoNode, true, kLong, "gone"},
    {"terminating on a Ready node is the agent's", kReady, true, kLong,
     "terminating"},
    {"running on a manifest-built node stays", kNoConditions, false, kNone,
     "running"},
    {"orphan within its quarantine stays", kNoNode, false, kLong, "running"},
    {"orphan after its quarantine goes", kNoNode, false, kNone, "gone"},
};

TEST_F(PodGcControllerTest, DecidesByNodeAndPodState) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Start({.orphan_quarantine = c.quarantine});
    if (c.node_conditions != kNoNode) {
      ASSERT_TRUE(api_->Create(NodeWith(c.node_conditions)).ok());
    }
    ASSERT_TRUE(api_->Create(PodOn("node")).ok());
    Settle();
    if (c.delete_pod) {
      ASSERT_TRUE(
          api_->Delete(PodsResource(), "ns", "pod", DeleteOptions{}).ok());
      if (c.node_conditions != kNoNode || c.quarantine != kNone) {
        // Still there right after the DELETE: it is bound and running.
        EXPECT_EQ(PodState(), "terminating");
      }
    }
    Settle();
    EXPECT_EQ(PodState(), c.expected);
  }
}

TEST_F(PodGcControllerTest, NodeThatStopsBeingReadyReleasesItsTerminatingPods) {
  Start({.orphan_quarantine = kLong});
  ASSERT_TRUE(api_->Create(NodeWith(kReady)).ok());
  ASSERT_TRUE(api_->Create(PodOn("node")).ok());
  ASSERT_TRUE(api_->Delete(PodsResource(), "ns", "pod", "").ok());
  Settle();
  ASSERT_EQ(PodState(), "terminating");
  api::Object not_ready = NodeWith(kNotReady);
  ASSERT_TRUE(api_->UpdateStatus(not_ready).ok());
  Settle();
  EXPECT_EQ(PodState(), "gone");
  EXPECT_EQ(gc_->metrics().terminating_deleted, 1u);
}

TEST_F(PodGcControllerTest, DeletedNodeReleasesItsTerminatingPods) {
  Start({.orphan_quarantine = kLong});
  ASSERT_TRUE(api_->Create(NodeWith(kReady)).ok());
  ASSERT_TRUE(api_->Create(PodOn("node")).ok());
  ASSERT_TRUE(api_->Delete(PodsResource(), "ns", "pod", "").ok());
  Settle();
  ASSERT_EQ(PodState(), "terminating");
  ASSERT_TRUE(api_->Delete(client::NodesResource(), "", "node", "").ok());
  Settle();
  EXPECT_EQ(PodState(), "gone");
}

TEST(NodeIsReadyTest, ReadsTheReadyCondition) {
  EXPECT_TRUE(NodeIsReady(std::get<api::Node>(NodeWith(kReady))));
  EXPECT_FALSE(NodeIsReady(std::get<api::Node>(NodeWith(kNotReady))));
  EXPECT_FALSE(NodeIsReady(std::get<api::Node>(NodeWith(kNoConditions))));
}

}  // namespace
}  // namespace dralloc::controller
