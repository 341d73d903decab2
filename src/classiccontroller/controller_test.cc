// The classic DRA controller library against the in-memory API with a fake
// driver: Immediate claims are allocated at once; PodSchedulingContexts get
// unsuitable nodes, then an allocation on the selected node reserved for
// the pod; deallocationRequested and deletion deallocate and drop the
// finalizer.
#include "classiccontroller/controller.h"

#include <gtest/gtest.h>

#include <map>

#include "api/codec.h"
#include "client/memory_api_client.h"
#include "encoding/document_reader.h"

namespace dralloc::classiccontroller {
namespace {

namespace v1alpha2 = api::v1alpha2;

// Hands out "node/claim" handles; node-b never suits; counts calls.
class FakeDriver final : public Driver {
 public:
  StatusOr<std::any> GetClassParameters(
      const v1alpha2::ResourceClass&) override {
    return std::any(std::string("class"));
  }
  StatusOr<std::any> GetClaimParameters(
      const v1alpha2::ResourceClaim& claim, const v1alpha2::ResourceClass&,
      const std::any& class_parameters) override {
    EXPECT_EQ(std::any_cast<std::string>(class_parameters), "class");
    if (claim.metadata.name == "broken") {
      return Status(StatusCode::kInvalidArgument, "bad parameters");
    }
    return std::any(claim.metadata.name);
  }
  void Allocate(std::span<ClaimAllocation> claims,
                std::string_view selected_node) override {
    for (ClaimAllocation& claim : claims) {
      const std::string node =
          selected_node.empty() ? "node-a" : std::string(selected_node);
      v1alpha2::AllocationResult result;
      result.resource_handles.push_back(
          {.driver_name = "drv.example.com",
           .data = node + "/" +
                   std::any_cast<std::string>(claim.claim_parameters)});
      claim.allocation = std::move(result);
      ++allocated[claim.claim->metadata.name];
    }
  }
  Status Deallocate(const v1alpha2::ResourceClaim& claim) override {
    ++deallocated[claim.metadata.name];
    return OkStatus();
  }
  Status UnsuitableNodes(const api::Pod&, std::span<ClaimAllocation> claims,
                         const std::vector<std::string>& nodes) override {
    for (ClaimAllocation& claim : claims) {
      for (const std::string& node : nodes) {
        if (node == "node-b") claim.unsuitable_nodes.push_back(node);
      }
    }
    return OkStatus();
  }

  std::map<std::string, int> allocated;
  std::map<std::string, int> deallocated;
};

class ControllerTest : public testing::Test {
 protected:
  ControllerTest()
      : api_({.validate = true}),
        claims_(api_, client::ResourceFor<v1alpha2::ResourceClaim>()),
        classes_(api_, client::ResourceFor<v1alpha2::ResourceClass>()),
        contexts_(api_, client::ResourceFor<v1alpha2::PodSchedulingContext>()),
        pods_(api_, client::PodsResource()),
        controller_(api_, {claims_, classes_, contexts_, pods_}, driver_,
                    {.driver_name = "drv.example.com",
                     .recheck_delay = std::chrono::hours(1)}) {}

  void SetUp() override {
    Create(R"(
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu}
driverName: drv.example.com
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: other}
driverName: other.example.com
)");
  }

  void Create(const std::string& yaml) {
    auto documents = encoding::ReadDocuments(yaml, "test");
    ASSERT_TRUE(documents.ok()) << documents.status();
    for (const auto& document : *documents) {
      auto decoded = api::DecodeDocument(document.json);
      ASSERT_TRUE(decoded.at(0).object) << api::ToString(decoded[0].errors);
      auto created = api_.Create(*decoded[0].object);
      ASSERT_TRUE(created.ok()) << created.status();
    }
  }

  // Pumps the informers and processes keys until nothing changes.
  void Settle() {
    for (int round = 0; round < 20; ++round) {
      size_t changes = 0;
      for (client::Informer* informer :
           {&classes_, &claims_, &contexts_, &pods_}) {
        changes += *informer->Pump(std::chrono::milliseconds(0));
      }
      bool worked = false;
      while (controller_.ProcessOne()) worked = true;
      if (changes == 0 && !worked) return;
    }
  }

  v1alpha2::ResourceClaim Claim(const std::string& name) {
    auto got =
        api_.Get(client::ResourceFor<v1alpha2::ResourceClaim>(), "ns", name);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? std::get<v1alpha2::ResourceClaim>(**got)
                    : v1alpha2::ResourceClaim{};
  }

  client::MemoryApiClient api_;
  client::Informer claims_, classes_, contexts_, pods_;
  FakeDriver driver_;
  Controller controller_;
};

TEST_F(ControllerTest, AllocatesImmediateClaimsOfItsClassesOnly) {
  Create(R"(
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: now, namespace: ns}
spec: {resourceClassName: gpu, allocationMode: Immediate}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: later, namespace: ns}
spec: {resourceClassName: gpu}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: theirs, namespace: ns}
spec: {resourceClassName: other, allocationMode: Immediate}
)");
  Settle();
  const v1alpha2::ResourceClaim now = Claim("now");
  ASSERT_TRUE(now.status.allocation.has_value());
  EXPECT_EQ(now.status.driver_name, "drv.example.com");
  EXPECT_EQ(now.status.allocation->resource_handles.at(0).data, "node-a/now");
  EXPECT_EQ(now.metadata.finalizers,
            std::vector<std::string>{"drv.example.com/deletion-protection"});
  EXPECT_TRUE(now.status.reserved_for.empty());
  EXPECT_FALSE(Claim("later").status.allocation.has_value());
  EXPECT_FALSE(Claim("theirs").status.allocation.has_value());
  EXPECT_EQ(controller_.metrics().allocations, 1u);
}

TEST_F(ControllerTest, AnswersSchedulingContextThenAllocatesOnSelectedNode) {
  Create(R"(
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: gpu-claim, namespace: ns}
spec: {resourceClassName: gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers: [{name: c, image: busybox}]
  resourceClaims: [{name: gpu, resourceClaimName: gpu-claim}]
)");
  auto pod = api_.Get(client::PodsResource(), "ns", "p");
  ASSERT_TRUE(pod.ok());
  v1alpha2::PodSchedulingContext context;
  context.metadata.name = "p";
  context.metadata.namespace_ = "ns";
  context.metadata.owner_references.push_back({.api_version = "v1",
                                               .kind = "Pod",
                                               .name = "p",
                                               .uid = api::MetaOf(**pod).uid,
                                               .controller = true});
  context.spec.potential_nodes = {"node-a", "node-b"};
  ASSERT_TRUE(api_.Create(api::Object(context)).ok());
  Settle();
  auto got = api_.Get(client::ResourceFor<v1alpha2::PodSchedulingContext>(),
                      "ns", "p");
  ASSERT_TRUE(got.ok());
  context = std::get<v1alpha2::PodSchedulingContext>(**got);
  ASSERT_EQ(context.status.resource_claims.size(), 1u);
  EXPECT_EQ(context.status.resource_claims[0].name, "gpu");
  EXPECT_EQ(context.status.resource_claims[0].unsuitable_nodes,
            std::vector<std::string>{"node-b"});
  EXPECT_FALSE(Claim("gpu-claim").status.allocation.has_value());

  // The scheduler selects node-b (unsuitable): no allocation; node-a: done.
  context.spec.selected_node = "node-b";
  got = api_.Update(api::Object(context));
  ASSERT_TRUE(got.ok()) << got.status();
  Settle();
  EXPECT_FALSE(Claim("gpu-claim").status.allocation.has_value());
  context = std::get<v1alpha2::PodSchedulingContext>(**got);
  context.spec.selected_node = "node-a";
  ASSERT_TRUE(api_.Update(api::Object(context)).ok());
  Settle();
  const v1alpha2::ResourceClaim claim = Claim("gpu-claim");
  ASSERT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(claim.status.allocation->resource_handles.at(0).data,
            "node-a/gpu-claim");
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].name, "p");
  EXPECT_EQ(driver_.allocated["gpu-claim"], 1);
}

TEST_F(ControllerTest, DeallocatesOnRequestAndOnDeletion) {
  Create(R"(
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: now, namespace: ns}
spec: {resourceClassName: gpu, allocationMode: Immediate}
)");
  Settle();
  v1alpha2::ResourceClaim claim = Claim("now");
  ASSERT_TRUE(claim.status.allocation.has_value());
  claim.status.deallocation_requested = true;
  ASSERT_TRUE(api_.UpdateStatus(api::Object(claim)).ok());
  Settle();
  // Deallocated, then (an Immediate claim) allocated again.
  EXPECT_EQ(driver_.deallocated["now"], 1);
  claim = Claim("now");
  EXPECT_FALSE(claim.status.deallocation_requested);
  EXPECT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(driver_.allocated["now"], 2);

  ASSERT_TRUE(api_.Delete(client::ResourceFor<v1alpha2::ResourceClaim>(), "ns",
                          "now", "")
                  .ok());
  Settle();
  EXPECT_EQ(driver_.deallocated["now"], 2);
  EXPECT_FALSE(
      api_.Get(client::ResourceFor<v1alpha2::ResourceClaim>(), "ns", "now")
          .ok());
  EXPECT_EQ(controller_.metrics().deallocations, 2u);
}

TEST_F(ControllerTest, ParameterErrorsAreRetriedNotWritten) {
  Create(R"(
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: broken, namespace: ns}
spec: {resourceClassName: gpu, allocationMode: Immediate}
)");
  Settle();
  const v1alpha2::ResourceClaim claim = Claim("broken");
  EXPECT_FALSE(claim.status.allocation.has_value());
  EXPECT_TRUE(claim.metadata.finalizers.empty());
  EXPECT_GE(controller_.metrics().sync_errors, 1u);
}

}  // namespace
}  // namespace dralloc::classiccontroller
