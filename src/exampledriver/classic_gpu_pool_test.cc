#include "exampledriver/classic_gpu_pool.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "allocator/node_info.h"

namespace dralloc::exampledriver {
namespace {

ClassicGpuPool Pool(int gpus = 2) {
  StatusOr<ClassicGpuPool> pool =
      ClassicGpuPool::Create({"worker-0", "worker-1"}, gpus);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return *std::move(pool);
}

TEST(ClassicGpuPoolTest, RefusesBadOptions) {
  EXPECT_FALSE(ClassicGpuPool::Create({}, 2).ok());
  EXPECT_FALSE(ClassicGpuPool::Create({"a", "a"}, 2).ok());
  EXPECT_FALSE(ClassicGpuPool::Create({"a"}, 0).ok());
  EXPECT_FALSE(ClassicGpuPool::Create({""}, 1).ok());
}

TEST(ClassicGpuPoolTest, AllocatesOnTheSelectedNodeUntilItRunsOut) {
  ClassicGpuPool pool = Pool();
  StatusOr<ClassicHandle> first = pool.Allocate("uid-1", 1, "worker-1");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->node_name, "worker-1");
  EXPECT_EQ(first->gpus, std::vector<std::string>{"gpu-0"});
  // Idempotent per claim.
  EXPECT_EQ(*pool.Allocate("uid-1", 1, "worker-1"), *first);
  EXPECT_EQ(pool.Allocate("uid-2", 1, "worker-1")->gpus,
            std::vector<std::string>{"gpu-1"});
  StatusOr<ClassicHandle> full = pool.Allocate("uid-3", 1, "worker-1");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().message(),
            "resources exhausted on node \"worker-1\": 1 GPUs asked, 0 free");
  EXPECT_EQ(pool.UnsuitableNodes({"worker-0", "worker-1", "worker-9"}, 1),
            (std::vector<std::string>{"worker-1", "worker-9"}));
  pool.Deallocate("uid-1");
  pool.Deallocate("uid-1");  // idempotent
  EXPECT_EQ(pool.Allocate("uid-3", 1, "worker-1")->gpus,
            std::vector<std::string>{"gpu-0"});
}

TEST(ClassicGpuPoolTest, ImmediateClaimsGoWhereMostGpusAreFree) {
  ClassicGpuPool pool = Pool(4);
  ASSERT_TRUE(pool.Allocate("a", 3, "worker-0").ok());
  StatusOr<ClassicHandle> immediate = pool.Allocate("b", 2, "");
  ASSERT_TRUE(immediate.ok());
  EXPECT_EQ(immediate->node_name, "worker-1");
  EXPECT_FALSE(pool.Allocate("c", 4, "").ok());
}

TEST(ClassicGpuPoolTest, HandlesRoundTripAndRestore) {
  ClassicHandle handle{"worker-0", {"gpu-1"}, {{"user_mode", "fast"}}};
  const std::string json = handle.ToJson();
  EXPECT_EQ(
      json,
      R"({"env":{"user_mode":"fast"},"gpus":["gpu-1"],"nodeName":"worker-0"})");
  StatusOr<ClassicHandle> parsed = ClassicHandle::FromJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, handle);
  EXPECT_FALSE(ClassicHandle::FromJson("{}").ok());
  EXPECT_FALSE(ClassicHandle::FromJson(R"({"nodeName":"a","gpus":[1]})").ok());

  ClassicGpuPool pool = Pool();
  ASSERT_TRUE(pool.Restore("uid-1", handle).ok());
  EXPECT_EQ(pool.FreeOn("worker-0"), 1);
  EXPECT_FALSE(pool.Restore("uid-2", handle).ok());  // gpu-1 is taken
  EXPECT_FALSE(
      pool.Restore("uid-3", ClassicHandle{"worker-7", {"gpu-0"}, {}}).ok());
  EXPECT_EQ(pool.Allocate("uid-4", 1, "worker-0")->gpus,
            std::vector<std::string>{"gpu-0"});
}

TEST(ClassicGpuPoolTest, AvailableOnTheAllocatedNodeOnly) {
  const api::NodeSelector selector = ClassicGpuPool::OnNode("worker-0");
  allocator::NodeInfo node;
  node.name = "worker-0";
  EXPECT_TRUE(allocator::NodeSelectorMatches(selector, node));
  node.name = "worker-1";
  EXPECT_FALSE(allocator::NodeSelectorMatches(selector, node));
}

TEST(ClassicParametersTest, CountAndEnvironmentFromConfigMaps) {
  const std::map<std::string, std::string> claim = {{"count", "2"},
                                                    {"Mode", "fast"}};
  const std::map<std::string, std::string> klass = {{"sharing", "none"}};
  StatusOr<ClassicParameters> parameters =
      ClassicParameters::FromConfigMapData(&claim, &klass);
  ASSERT_TRUE(parameters.ok()) << parameters.status();
  EXPECT_EQ(parameters->count, 2);
  EXPECT_EQ(parameters->env,
            (std::map<std::string, std::string>{{"admin_sharing", "none"},
                                                {"user_mode", "fast"}}));
  EXPECT_EQ(ClassicParameters::FromConfigMapData(nullptr, nullptr)->count, 1);
  const std::map<std::string, std::string> bad = {{"count", "two"}};
  StatusOr<ClassicParameters> refused =
      ClassicParameters::FromConfigMapData(&bad, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "claim parameters: data.count: Invalid value: \"two\": must be a "
            "number of GPUs from 1 to 128");
}

}  // namespace
}  // namespace dralloc::exampledriver
