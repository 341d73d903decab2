// Tests of the Kubernetes libraries as a whole: estimated and runtime costs
// (k8s.io/apiserver pkg/cel/library/cost_test.go) and the shared helpers.
// Per-library cases are in <library>_test.cc beside each library.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/all_libraries.h"
#include "cel/lib/kubernetes_libraries_test_util.h"
#include "cel/lib/kubernetes_library_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

// ---------------------------------------------------------------- costs

struct CostCase {
  std::string expr;
  uint64_t est_min;
  uint64_t est_max;
  uint64_t runtime;
};

void RunCostCases(const std::vector<CostCase>& cases) {
  for (const CostCase& c : cases) {
    SCOPED_TRACE(c.expr);
    const EvalRun run = Evaluate(c.expr);
    ASSERT_EQ(run.compile_error, "");
    ASSERT_FALSE(run.value.IsError()) << run.value.error_message();
    EXPECT_EQ(run.estimate.min, c.est_min);
    EXPECT_EQ(run.estimate.max, c.est_max);
    EXPECT_EQ(run.cost, c.runtime);
  }
}

// From apiserver pkg/cel/library/cost_test.go.
TEST(KubernetesLibraryCostTest, Quantity) {
  RunCostCases({
      {R"(quantity("12Mi"))", 1, 1, 1},
      {R"(isQuantity("20"))", 1, 1, 1},
      {R"(quantity("200M") == quantity("200M"))", 3, 3, 3},
      {R"(quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M"))",
       3, 6, 6},
      {R"(quantity("50M").isLessThan(quantity("50Mi")))", 3, 3, 3},
      {R"(quantity("200M").compareTo(quantity("0.2G")) > 0)", 4, 4, 4},
      {R"(quantity("50k").add(quantity("20")) == quantity("50.02k"))", 5, 5, 5},
      {R"(quantity("50k").sub(20) == quantity("49980"))", 4, 4, 4},
      {R"(quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0)",
       7, 7, 7},
      {R"(quantity("50").isInteger())", 2, 2, 2},
      {R"(quantity("50.703k").asApproximateFloat() > 0.0)", 3, 3, 3},
  });
}

TEST(KubernetesLibraryCostTest, IpAndCidr) {
  const std::string ip4 = "ip('192.168.0.1')";
  const std::string ip6 = "ip('2001:db8:3333:4444:5555:6666:7777:8888')";
  RunCostCases({
      {ip4, 2, 2, 2},
      {ip6, 4, 4, 4},
      {ip4 + ".family()", 3, 3, 3},
      {ip6 + ".isGlobalUnicast()", 5, 5, 5},
      {ip4 + " == ip('192.168.0.1')", 5, 5, 5},
      {"ip.isCanonical('192.168.0.1')", 3, 3, 3},
      {"ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8, 8, 8},
      {"ip.isCanonical('2001:db8::abcd')", 3, 3, 3},
  });
  const std::string c4 = "cidr('192.168.0.0/16')";
  const std::string c6 = "cidr('2001:db8::/32')";
  RunCostCases({
      {c4, 2, 2, 2},
      {c4 + ".ip()", 3, 3, 3},
      {c4 + ".prefixLength()", 3, 3, 3},
      {c4 + ".masked()", 3, 3, 3},
      {c4 + " == cidr('2001:db8::/32')", 5, 5, 5},
      {c4 + ".containsCIDR(cidr('192.0.0.0/30'))", 7, 11, 7},
      {c4 + ".containsCIDR('192.168.0.0/16')", 7, 11, 7},
      {c4 + ".containsIP(ip('192.0.0.1'))", 4, 7, 4},
      {c4 + ".containsIP(ip('192.169.0.1'))", 5, 8, 5},
      {c4 + ".containsIP('192.169.0.1')", 5, 8, 5},
      {c6 + ".containsCIDR(cidr('2001:db8::/126'))", 7, 11, 7},
      {c6 + ".containsCIDR('2001:db8::/32')", 7, 11, 7},
      {c6 + ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 7, 10,
       7},
      {c6 + ".containsIP('2001:db8::1')", 5, 8, 5},
  });
}

TEST(KubernetesLibraryCostTest, UrlSemverFormat) {
  RunCostCases({
      {"url('https:://kubernetes.io/').getScheme()", 4, 4, 4},
      {"url('https:://kubernetes.io/').getQuery()", 4, 4, 4},
      {"isURL('https:://kubernetes.io/')", 1, 1, 1},
      {"url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 7, 9,
       7},
      {"url('https:://kubernetes.io/') == url('http://x.b')", 5, 5, 5},
      {R"(semver("1.2.3") == semver("1.2.3"))", 3, 3, 3},
      {"format.dns1123Label() == format.dns1123Label()", 3, 9, 3},
      {R"(semver("1.2.3").major())", 2, 2, 2},
      {R"(isSemver("v1.0.0", true))", 1, 1, 1},
      {R"(format.named("dns1123subdomain"))", 1, 1, 1},
      {R"(format.named("dns1123Subdomain").value().validate("my-name"))", 34,
       34, 17},
      {R"(format.named("dns1123Label").value().validate("my-name"))", 34, 34,
       10},
  });
}

// Direct calls of the cost functions, independent of the evaluator.
TEST(KubernetesLibraryCostTest, CostFunctions) {
  FunctionRegistry registry;
  RegisterQuantityLibrary(registry);
  RegisterSemverLibrary(registry);
  RegisterNetworkLibrary(registry);
  RegisterUrlLibrary(registry);
  RegisterFormatLibrary(registry);
  auto find = [&](std::string_view fn, bool member,
                  std::string_view id) -> const Overload* {
    for (const Overload* o : registry.Find(fn, member)) {
      if (o->id == id) return o;
    }
    ADD_FAILURE() << "no overload " << id;
    return nullptr;
  };
  const Value result;
  {
    const Overload* o = find("quantity", false, "string_to_quantity");
    ASSERT_NE(o, nullptr);
    const std::vector<Value> args = {S("1234567890Ki")};  // 12 characters
    EXPECT_EQ(o->runtime_cost(args, result), 2u);
    const std::vector<SizeEstimate> sizes = {{0, 63}};
    EXPECT_EQ(o->estimate_cost(sizes).min, 0u);
    EXPECT_EQ(o->estimate_cost(sizes).max, 7u);
  }
  {
    const Overload* o = find("containsCIDR", true, "cidr_contains_cidr_string");
    ASSERT_NE(o, nullptr);
    const std::vector<Value> args = {Cidr("10.0.0.0/8"), S("10.1.0.0/16")};
    // ceil(2*1*0.1) + ceil(1*0.1) + 1 + ceil(11*0.1)
    EXPECT_EQ(o->runtime_cost(args, result), 5u);
    const std::vector<SizeEstimate> sizes = {{1, 1}, {0, 43}};
    EXPECT_EQ(o->estimate_cost(sizes).min, 3u);
    EXPECT_EQ(o->estimate_cost(sizes).max, 12u);
  }
  {
    const Overload* o = find("validate", true, "format-validate");
    ASSERT_NE(o, nullptr);
    const std::vector<SizeEstimate> sizes = {{1, 1}, {0, 253}};
    // ceil(253*0.1) = 26, times 128*0.25 = 32.
    EXPECT_EQ(o->estimate_cost(sizes).max, 26u * 32u);
    EXPECT_EQ(o->estimate_cost(sizes).min, 0u);
  }
  {
    const Overload* o = find("url", false, "string_to_url");
    ASSERT_NE(o, nullptr);
    ASSERT_NE(o->estimate_size, nullptr);
    const std::vector<SizeEstimate> sizes = {{3, 40}};
    EXPECT_EQ(o->estimate_size(sizes).max, 40u);
  }
}

// ---------------------------------------------------------------- helpers

TEST(KubernetesLibraryUtilTest, GoQuote) {
  using k8s_internal::GoQuote;
  EXPECT_EQ(GoQuote("abc"), R"("abc")");
  EXPECT_EQ(GoQuote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(GoQuote("\n\t\x01\x7f"), R"("\n\t\x01\x7f")");
  EXPECT_EQ(GoQuote("\xff"), R"("\xff")");
  EXPECT_EQ(GoQuote("é"), "\"é\"");
  EXPECT_EQ(GoQuote("\u00a0"), R"("\u00a0")");
}

TEST(KubernetesLibraryUtilTest, OverloadIdsAreUnique) {
  FunctionRegistry registry;
  RegisterAllLibraries(registry);  // asserts on duplicate ids
  EXPECT_TRUE(registry.HasFunction("ip.isCanonical"));
  EXPECT_TRUE(registry.HasFunction("format.datetime"));
  EXPECT_TRUE(registry.HasFunction("format.named"));
}

}  // namespace
}  // namespace dralloc::cel
