#include "load/schedule_pods_scenario.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

using nlohmann::json;

TEST(ParseJsonLinesTest, ReadsObjectsAndSkipsBlankLines) {
  StatusOr<std::vector<json>> objects =
      ParseJsonLines("{\"a\":1}\n\n  \n{\"b\":2}\r\n{\"c\":3}");
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->size(), 3u);
  EXPECT_EQ((*objects)[0]["a"], 1);
  EXPECT_EQ((*objects)[1]["b"], 2);
  EXPECT_EQ((*objects)[2]["c"], 3);
}

TEST(ParseJsonLinesTest, EmptyInputIsEmpty) {
  StatusOr<std::vector<json>> objects = ParseJsonLines("");
  ASSERT_TRUE(objects.ok());
  EXPECT_TRUE(objects->empty());
}

TEST(ParseJsonLinesTest, NamesTheBadLine) {
  StatusOr<std::vector<json>> objects =
      ParseJsonLines("{\"a\":1}\n[1,2]\n{\"c\":3}\n");
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.status().message().find("line 2"), std::string::npos)
      << objects.status().message();
  EXPECT_FALSE(ParseJsonLines("{\"a\":").ok());
}

struct PathCase {
  std::string object;
  std::string path;
};

class CollectionPathForTest : public testing::TestWithParam<PathCase> {};

TEST_P(CollectionPathForTest, MapsKindAndNamespaceToCollection) {
  const PathCase& c = GetParam();
  StatusOr<std::string> path = CollectionPathFor(json::parse(c.object));
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, c.path);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, CollectionPathForTest,
    testing::Values(
        PathCase{R"({"apiVersion":"v1","kind":"Namespace",
                     "metadata":{"name":"test"}})",
                 "/api/v1/namespaces"},
        PathCase{R"({"apiVersion":"v1","kind":"Node",
                     "metadata":{"name":"node-0"}})",
                 "/api/v1/nodes"},
        PathCase{R"({"apiVersion":"v1","kind":"Pod",
                     "metadata":{"name":"p","namespace":"test"}})",
                 "/api/v1/namespaces/test/pods"},
        PathCase{R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})",
                 "/api/v1/namespaces/default/pods"},
        PathCase{R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
                     "metadata":{"name":"c"}})",
                 "/apis/resource.k8s.io/v1/deviceclasses"},
        // Cluster-scoped kinds ignore a stray namespace.
        PathCase{R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
                     "metadata":{"name":"s","namespace":"x"}})",
                 "/apis/resource.k8s.io/v1/resourceslices"},
        PathCase{R"({"apiVersion":"resource.k8s.io/v1",
                     "kind":"ResourceClaimTemplate",
                     "metadata":{"name":"t","namespace":"test"}})",
                 "/apis/resource.k8s.io/v1/namespaces/test/"
                 "resourceclaimtemplates"},
        PathCase{R"({"apiVersion":"resource.k8s.io/v1alpha3",
                     "kind":"DeviceTaintRule","metadata":{"name":"r"}})",
                 "/apis/resource.k8s.io/v1alpha3/devicetaintrules"},
        PathCase{R"({"apiVersion":"scheduling.k8s.io/v1",
                     "kind":"PriorityClass","metadata":{"name":"high"}})",
                 "/apis/scheduling.k8s.io/v1/priorityclasses"},
        PathCase{R"({"apiVersion":"v1","kind":"Endpoints",
                     "metadata":{"name":"e","namespace":"n"}})",
                 "/api/v1/namespaces/n/endpoints"},
        PathCase{R"({"apiVersion":"v1","kind":"Policy",
                     "metadata":{"name":"e","namespace":"n"}})",
                 "/api/v1/namespaces/n/policies"}));

TEST(CollectionPathForTest, RejectsObjectsWithoutKind) {
  EXPECT_FALSE(CollectionPathFor(json::parse(R"({"apiVersion":"v1"})")).ok());
  EXPECT_FALSE(CollectionPathFor(json::parse(R"({"kind":"Pod"})")).ok());
  EXPECT_FALSE(CollectionPathFor(json::parse("[]")).ok());
}

TEST(ParsePodWatchLineTest, ReadsNameNodeAndResourceVersion) {
  const std::optional<PodWatchEvent> event = ParsePodWatchLine(
      R"({"type":"MODIFIED","object":{"apiVersion":"v1","kind":"Pod",
          "metadata":{"name":"pod-7","namespace":"test",
                      "resourceVersion":"1234"},
          "spec":{"nodeName":"node-3","containers":[]}}})");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, "MODIFIED");
  EXPECT_EQ(event->name, "pod-7");
  EXPECT_EQ(event->namespace_name, "test");
  EXPECT_EQ(event->node_name, "node-3");
  EXPECT_EQ(event->resource_version, "1234");
}

TEST(ParsePodWatchLineTest, UnboundPodHasNoNode) {
  const std::optional<PodWatchEvent> event = ParsePodWatchLine(
      R"({"type":"ADDED","object":{"metadata":{"name":"p",
          "resourceVersion":"5"},"spec":{}}})");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, "ADDED");
  EXPECT_EQ(event->node_name, "");
}

TEST(ParsePodWatchLineTest, BookmarkCarriesResourceVersion) {
  const std::optional<PodWatchEvent> event = ParsePodWatchLine(
      R"({"type":"BOOKMARK","object":{"kind":"Pod",
          "metadata":{"resourceVersion":"99"}}})");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, "BOOKMARK");
  EXPECT_EQ(event->resource_version, "99");
}

TEST(ParsePodWatchLineTest, ErrorEventCarriesStatus) {
  const std::optional<PodWatchEvent> event = ParsePodWatchLine(
      R"({"type":"ERROR","object":{"kind":"Status","status":"Failure",
          "message":"too old resource version","reason":"Expired",
          "code":410}})");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, "ERROR");
  EXPECT_EQ(event->error_code, 410);
  EXPECT_EQ(event->error_message, "too old resource version");
}

TEST(ParsePodWatchLineTest, RejectsOtherShapes) {
  EXPECT_FALSE(ParsePodWatchLine("not json").has_value());
  EXPECT_FALSE(ParsePodWatchLine(R"({"object":{}})").has_value());
  EXPECT_FALSE(ParsePodWatchLine(R"({"type":"ADDED"})").has_value());
  EXPECT_FALSE(ParsePodWatchLine("[]").has_value());
}

std::string Claim(const std::string& name, const std::string& results) {
  return R"({"metadata":{"name":")" + name +
         R"("},"status":{"allocation":{"devices":{"results":)" + results +
         "}}}}";
}

std::string Result(const std::string& pool, const std::string& device,
                   const std::string& extra = "") {
  return R"({"request":"req-0","driver":"d","pool":")" + pool +
         R"(","device":")" + device + "\"" + extra + "}";
}

TEST(CheckClaimAllocationsTest, CountsAllocatedClaimsAndDevices) {
  const std::string body =
      R"({"kind":"ResourceClaimList","metadata":{"resourceVersion":"9"},
          "items":[)" +
      Claim("a", "[" + Result("n0", "i0") + "]") + "," +
      Claim("b", "[" + Result("n0", "i1") + "," + Result("n1", "i0") + "]") +
      R"(,{"metadata":{"name":"pending"},"status":{}},
          {"metadata":{"name":"no-status"}}]})";
  StatusOr<ClaimAllocationCheck> check = CheckClaimAllocations(body);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(check->claims, 4);
  EXPECT_EQ(check->allocated_claims, 2);
  EXPECT_EQ(check->allocated_devices, 3);
  EXPECT_EQ(check->double_allocated_devices, 0);
}

TEST(CheckClaimAllocationsTest, FindsDevicesInTwoClaims) {
  const std::string body = R"({"items":[)" +
                           Claim("a", "[" + Result("n0", "i0") + "]") + "," +
                           Claim("b", "[" + Result("n0", "i0") + "]") + "," +
                           Claim("c", "[" + Result("n0", "i0") + "]") + "," +
                           Claim("d", "[" + Result("n1", "i0") + "]") + "]}";
  StatusOr<ClaimAllocationCheck> check = CheckClaimAllocations(body);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->allocated_claims, 4);
  // One device, used three times, counts once.
  EXPECT_EQ(check->double_allocated_devices, 1);
  ASSERT_EQ(check->double_allocated_examples.size(), 1u);
  EXPECT_EQ(check->double_allocated_examples[0], "d/n0/i0");
}

TEST(CheckClaimAllocationsTest, AdminAccessAndDistinctSharesAreNoConflict) {
  const std::string body =
      R"({"items":[)" + Claim("a", "[" + Result("n0", "i0") + "]") + "," +
      Claim("admin", "[" + Result("n0", "i0", R"(,"adminAccess":true)") + "]") +
      "," + Claim("s1", "[" + Result("n0", "i1", R"(,"shareID":"s-1")") + "]") +
      "," + Claim("s2", "[" + Result("n0", "i1", R"(,"shareID":"s-2")") + "]") +
      "]}";
  StatusOr<ClaimAllocationCheck> check = CheckClaimAllocations(body);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->allocated_devices, 4);
  EXPECT_EQ(check->double_allocated_devices, 0);
}

TEST(CheckClaimAllocationsTest, EmptyAndBadLists) {
  StatusOr<ClaimAllocationCheck> empty =
      CheckClaimAllocations(R"({"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->claims, 0);
  EXPECT_TRUE(CheckClaimAllocations(R"({"items":[]})").ok());
  EXPECT_FALSE(CheckClaimAllocations("[]").ok());
  EXPECT_FALSE(CheckClaimAllocations("{}").ok());
  EXPECT_FALSE(CheckClaimAllocations("garbage").ok());
}

TEST(ThroughputPodsPerSecondTest, DividesBoundBySpan) {
  EXPECT_DOUBLE_EQ(ThroughputPodsPerSecond(5000, 50.0), 100.0);
  EXPECT_DOUBLE_EQ(ThroughputPodsPerSecond(0, 10.0), 0.0);
  EXPECT_DOUBLE_EQ(ThroughputPodsPerSecond(10, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(ThroughputPodsPerSecond(10, -1.0), 0.0);
}

TEST(SchedulePodsReportTest, ErrorsWhenUnboundOrDoubleAllocated) {
  SchedulePodsReport report;
  report.pods = 10;
  report.pods_bound = 10;
  report.claims_checked = true;
  EXPECT_FALSE(report.HasErrors());
  report.pods_bound = 9;
  EXPECT_TRUE(report.HasErrors());
  report.pods_bound = 10;
  report.claims.double_allocated_devices = 1;
  EXPECT_TRUE(report.HasErrors());
  report.claims.double_allocated_devices = 0;
  report.claims_checked = false;
  EXPECT_TRUE(report.HasErrors());
}

}  // namespace
}  // namespace dralloc::load
