#include "apiserver/in_process_api_client.h"

#include <gtest/gtest.h>

#include "api/resource_registry.h"
#include "apiserver/resource_storage.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kClaimJson = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "NAME", "namespace": "default"},
  "spec": {"devices": {"requests": [{"name": "gpu",
    "exactly": {"deviceClassName": "gpu.example.com"}}]}}})";

class InProcessApiClientCacheTest : public testing::Test {
 protected:
  InProcessApiClientCacheTest() : storage_(store_) {}

  void SetUp() override {
    api::Namespace ns;
    ns.metadata.name = "default";
    ASSERT_TRUE(client_.Create(ns).ok());
    // The namespace, written in process, is cached.
    baseline_ = storage_.decoded_objects();
  }

  // A create as the HTTP handler makes it: the body, no object wanted.
  void CreateOverHttp(std::string_view name) {
    RequestScope scope;
    scope.info = claims_;
    scope.version = "v1";
    scope.namespace_ = "default";
    std::string body(kClaimJson);
    body.replace(body.find("NAME"), 4, name);
    auto created = storage_.Create(scope, body, WriteOptions{});
    ASSERT_TRUE(created.ok()) << created.error().message;
  }

  store::MemoryStore store_;
  ResourceStorage storage_;
  const api::ResourceInfo* claims_ = api::FindResourceByKind("ResourceClaim");
  InProcessApiClient client_{storage_, "test"};
  size_t baseline_ = 0;
};

TEST_F(InProcessApiClientCacheTest,
       HttpWritesAreSharedOnlyWhileAnInProcessWatchIsOpen) {
  CreateOverHttp("before");
  EXPECT_EQ(storage_.decoded_objects(), baseline_);
  {
    auto watch = client_.Watch(*claims_, store_.Revision());
    ASSERT_TRUE(watch.ok()) << watch.status();
    CreateOverHttp("watched");
    EXPECT_EQ(storage_.decoded_objects(), baseline_ + 1);
    auto events = (*watch)->Next(std::chrono::milliseconds(1000));
    ASSERT_TRUE(events.ok()) << events.status();
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ(api::MetaOf(*events->front().object).name, "watched");
    // The watcher found it there.
    EXPECT_EQ(storage_.decoded_objects(), baseline_ + 1);
  }
  CreateOverHttp("after");
  EXPECT_EQ(storage_.decoded_objects(), baseline_ + 1);
}

}  // namespace
}  // namespace dralloc::apiserver
