// Tests of the Kubernetes quantity library.
// Expression cases and error messages come from the upstream tests
// (k8s.io/apiserver pkg/cel/library/*_test.go).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/kubernetes_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

// ---------------------------------------------------------------- quantity

TEST(KubernetesQuantityTest, UpstreamCases) {
  RunCases({
      {R"(quantity("12Mi"))", Q("12Mi")},
      {R"(quantity("10Mo"))",
       {},
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {R"(quantity("10Mm"))", {}, "unable to parse quantity's suffix"},
      {R"(isQuantity("20"))", B(true)},
      {R"(isQuantity("20M"))", B(true)},
      {R"(isQuantity("20Mi"))", B(true)},
      {R"(isQuantity("20Mo"))", B(false)},
      {R"(isQuantity("10Mm"))", B(false)},
      {R"(quantity("200M") == quantity("200M"))", B(true)},
      {R"(quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M"))",
       B(true)},
      {R"(quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k"))",
       B(true)},
      {R"(quantity("200M") == quantity("0.3G"))", B(false)},
      {R"(quantity("50M").isLessThan(quantity("50Mi")))", B(true)},
      {R"(quantity("50M").isLessThan(quantity("100M")))", B(true)},
      {R"(quantity("100M").isLessThan(quantity("50M")))", B(false)},
      {R"(quantity("50Mi").isGreaterThan(quantity("50M")))", B(true)},
      {R"(quantity("150Mi").isGreaterThan(quantity("100Mi")))", B(true)},
      {R"(quantity("50M").isGreaterThan(quantity("100M")))", B(false)},
      {R"(quantity("200M").compareTo(quantity("0.2G")))", I(0)},
      {R"(quantity("50M").compareTo(quantity("50Mi")))", I(-1)},
      {R"(quantity("50Mi").compareTo(quantity("50M")))", I(1)},
      {R"(quantity("50k").add(quantity("20")) == quantity("50.02k"))", B(true)},
      {R"(quantity("50k").add(20).isLessThan(quantity("50020")))", B(false)},
      {R"(quantity("50k").sub(quantity("20")) == quantity("49.98k"))", B(true)},
      {R"(quantity("50k").sub(20) == quantity("49980"))", B(true)},
      {R"(quantity("50k").add(20).sub(quantity("100k")).asInteger())",
       I(-49980)},
      {R"(quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger())",
       I(20)},
      {R"(quantity("50k").asInteger())", I(50000)},
      {R"(quantity("50").isInteger())", B(true)},
      {R"(quantity("50.703k").asApproximateFloat())", Value::Double(50703)},
  });
}

// Upstream parses quantities of any size (inf.Dec); dralloc::Quantity holds
// |value| < ~1.7e29, so these upstream cases fail earlier, in quantity().
TEST(KubernetesQuantityTest, HugeQuantitiesAreOutOfRange) {
  RunCases({
      {R"(quantity("9999999999999999999999999999999999999G").asInteger())",
       {},
       "quantity too large"},
      {R"(quantity("9999999999999999999999999999999999999G").isInteger())",
       {},
       "quantity too large"},
      {R"(isQuantity("9999999999999999999999999999999999999"))", B(false)},
  });
}

TEST(KubernetesQuantityTest, DocExamplesAndEdges) {
  RunCases({
      {R"(quantity("1.5G") == quantity("1500M"))", B(true)},
      {R"(isQuantity("200k"))", B(true)},
      {R"(quantity("200K"))", {}, "unable to parse quantity's suffix"},
      {R"(quantity("Three"))",
       {},
       "quantities must match the regular expression",
       true},
      {R"(isQuantity("1.3Gi"))", B(true)},
      {R"(isQuantity("1,3G"))", B(false)},
      {R"(isQuantity("10000k"))", B(true)},
      // The upstream doc comment calls 'Mi' an error, but ParseQuantity
      // accepts an empty number: it is zero.
      {R"(quantity("Mi") == quantity("0"))", B(true)},
      {R"(quantity("50000000G").isInteger())", B(true)},
      {R"(quantity("50k").isInteger())", B(true)},
      {R"(quantity("50k").asInteger() == 50000)", B(true)},
      {R"(quantity("50k").sub(20000).asApproximateFloat() == 30000.0)",
       B(true)},
      {R"(quantity("50k").add(20) == quantity("50020"))", B(true)},
      {R"(quantity("1.5").isInteger())", B(false)},
      {R"(quantity("1.5").asInteger())", {}, "cannot convert value to integer"},
      {R"(quantity("10E").isInteger())", B(false)},
      {R"(quantity("10E").asInteger())", {}, "cannot convert value to integer"},
      {R"(quantity("-9223372036854775808").asInteger())", I(INT64_MIN)},
      {R"(quantity("1Ki").add(1) == quantity("1025"))", B(true)},
      {R"(quantity("1").sub(quantity("1500m")).asApproximateFloat())",
       Value::Double(-0.5)},
      {R"(sign(quantity("-5")))", I(-1)},
      {R"(sign(quantity("0")))", I(0)},
      {R"(sign(quantity("1m")))", I(1)},
      {R"(quantity("1Gi").compareTo(quantity("1G")))", I(1)},
      // DRA selector shapes (cel.md 3.5).
      {R"(quantity("1Mi").isGreaterThan(quantity("1Ki")))", B(true)},
      {R"(quantity("10Gi").compareTo(quantity('10Gi')) >= 0)", B(true)},
  });
}

TEST(KubernetesQuantityTest, NoOverloadIsCompileError) {
  EXPECT_NE(Evaluate("isQuantity([1, 2, 3])").compile_error, "");
  // Upstream declares sign() only as a global function.
  EXPECT_NE(Evaluate(R"(quantity("1").sign())").compile_error, "");
  // There are no ordering operators on quantities.
  EXPECT_NE(Evaluate(R"(quantity("1") < quantity("2"))").compile_error, "");
}

TEST(KubernetesQuantityTest, ValueAccessors) {
  Value v = Q("1Ki");
  ASSERT_NE(AsQuantity(v), nullptr);
  EXPECT_EQ(AsQuantity(v)->Value(), 1024);
  EXPECT_EQ(v.opaque().DebugString(), "1Ki");
  EXPECT_EQ(v.TypeName(), kQuantityTypeName);
  EXPECT_EQ(AsQuantity(Value::Int(1)), nullptr);
  EXPECT_EQ(AsQuantity(V("1.0.0")), nullptr);
  EXPECT_EQ(QuantityType(), Type::Opaque(kQuantityTypeName));
  EXPECT_FALSE(v.opaque().Equals(V("1.0.0").opaque()));
}

}  // namespace
}  // namespace dralloc::cel
