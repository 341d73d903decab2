// NodeRestrictionAdmission called directly: who it restricts and the shape
// of its refusals. The rules themselves are covered by the case files under
// tests/auth/node/ (node_authorizer_test.cc runs them).
#include "apiserver/node_restriction_admission.h"

#include <gtest/gtest.h>

#include "api/resource_registry.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

class NodeRestrictionAdmissionTest : public testing::Test {
 protected:
  NodeRestrictionAdmissionTest() {
    scope_.info = api::FindResourceByKind("ResourceSlice");
    scope_.version = "v1";
    slice_.metadata.name = "b-gpus";
    slice_.spec.node_name = "node-b";
  }

  std::optional<ApiError> CreateAs(const auth::UserInfo* user) {
    const api::Object object = slice_;
    const AdmissionRequest request{
        AdmissionOperation::kCreate, scope_, user, &object, nullptr, false};
    return admission_.Admit(request);
  }

  static auth::UserInfo Node(std::string name) {
    return {.name = std::move(name),
            .uid = "",
            .groups = {"system:nodes", "system:authenticated"},
            .extra = {}};
  }

  store::MemoryStore store_;
  NodeRestrictionAdmission admission_{store_};
  RequestScope scope_;
  api::ResourceSlice slice_;
};

TEST_F(NodeRestrictionAdmissionTest, RefusesAnotherNodesSliceAsUpstream) {
  const auth::UserInfo node_a = Node("system:node:node-a");
  const std::optional<ApiError> refused = CreateAs(&node_a);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->reason, "Forbidden");
  EXPECT_EQ(refused->message,
            "resourceslices.resource.k8s.io \"b-gpus\" is forbidden: can only "
            "create ResourceSlice with the same NodeName as the requesting "
            "node");
  EXPECT_EQ(
      refused->details.dump(),
      R"({"name":"b-gpus","group":"resource.k8s.io","kind":"resourceslices"})");
  EXPECT_EQ(refused->ToStatus()["status"], "Failure");
}

TEST_F(NodeRestrictionAdmissionTest, AdmitsTheNodesOwnSlice) {
  const auth::UserInfo node_b = Node("system:node:node-b");
  EXPECT_FALSE(CreateAs(&node_b).has_value());
}

TEST_F(NodeRestrictionAdmissionTest, LeavesOtherUsersAndTheServerAlone) {
  const auth::UserInfo admin{
      .name = "admin", .uid = "", .groups = {"system:masters"}, .extra = {}};
  EXPECT_FALSE(CreateAs(&admin).has_value());
  EXPECT_FALSE(CreateAs(nullptr).has_value());
  // The node prefix without the group is not a node (upstream's
  // nodeidentifier), so it is not restricted here either.
  const auth::UserInfo pretender{.name = "system:node:node-a",
                                 .uid = "",
                                 .groups = {"system:authenticated"},
                                 .extra = {}};
  EXPECT_FALSE(CreateAs(&pretender).has_value());
}

TEST_F(NodeRestrictionAdmissionTest, RefusesANodeWithoutAName) {
  const auth::UserInfo nameless = Node("system:node:");
  const std::optional<ApiError> refused = CreateAs(&nameless);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->message,
            "resourceslices.resource.k8s.io \"b-gpus\" is forbidden: could not "
            "determine node from user \"system:node:\"");
}

}  // namespace
}  // namespace dralloc::apiserver
