// Tests of the Kubernetes value-type libraries: quantity, semver, ip, cidr,
// url and format. Expression cases and error messages come from the upstream
// tests (k8s.io/apiserver pkg/cel/library/*_test.go, cost_test.go, and the
// apiextensions-apiserver CEL validation tests) and the library docs.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/lib/all_libraries.h"
#include "cel/lib/format_library.h"
#include "cel/lib/kubernetes_library_util.h"
#include "cel/lib/network_library.h"
#include "cel/lib/quantity_library.h"
#include "cel/lib/semver_library.h"
#include "cel/lib/url_library.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

struct EvalRun {
  std::shared_ptr<const Program> program;  // `value` may borrow from it
  Value value;
  uint64_t cost = 0;
  CostEstimate estimate;
  std::string compile_error;  // non-empty when compilation failed
};

EvalRun Evaluate(std::string_view expr) {
  static const std::shared_ptr<Environment> env = Environment::NewStandard();
  EvalRun run;
  auto program = Compile(env, expr);
  if (!program.ok()) {
    run.compile_error = program.status().message();
    if (run.compile_error.empty()) run.compile_error = "compile error";
    return run;
  }
  Activation activation(*env);
  EvalContext ctx;
  run.program = *program;
  run.value = (*program)->Evaluate(activation, ctx);
  run.cost = ctx.cost();
  run.estimate = (*program)->estimated_cost();
  return run;
}

std::string Describe(const Value& v) {
  return std::string(v.TypeName()) + " " + v.DebugString();
}

struct Case {
  std::string expr;
  Value want;                 // when `error` is empty
  std::string error = {};     // expected runtime error text (exact)
  bool error_prefix = false;  // `error` is only a prefix of the message
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    const EvalRun run = Evaluate(c.expr);
    ASSERT_EQ(run.compile_error, "") << c.expr;
    if (!c.error.empty()) {
      ASSERT_TRUE(run.value.IsError()) << Describe(run.value);
      if (c.error_prefix) {
        EXPECT_EQ(run.value.error_message().substr(0, c.error.size()), c.error);
      } else {
        EXPECT_EQ(run.value.error_message(), c.error);
      }
      continue;
    }
    ASSERT_FALSE(run.value.IsError()) << run.value.error_message();
    EXPECT_TRUE(EqualBool(run.value, c.want))
        << "got " << Describe(run.value) << ", want " << Describe(c.want);
  }
}

Value B(bool b) { return Value::Bool(b); }
Value I(int64_t i) { return Value::Int(i); }
Value S(std::string s) { return Value::String(std::move(s)); }

Value Q(std::string_view text) {
  auto q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text;
  return MakeQuantityValue(q.ok() ? *q : Quantity());
}

Value V(std::string_view text) {
  auto v = SemVer::ParseStrict(text);
  EXPECT_TRUE(v.ok()) << text;
  return MakeSemverValue(v.ok() ? *v : SemVer());
}

Value Ip(std::string_view text) {
  auto a = ParseIpForCel(text);
  EXPECT_TRUE(a.ok()) << text;
  return Value::Opaque(new IpValue(a.ok() ? *a : IpAddress()));
}

Value Cidr(std::string_view text) {
  auto p = ParseCidrForCel(text);
  EXPECT_TRUE(p.ok()) << text;
  return Value::Opaque(new CidrValue(p.ok() ? *p : IpPrefix()));
}

Value NoneOpt() { return Value::OptionalNone(); }

Value ErrorsOpt(std::vector<std::string> errors) {
  std::vector<Value> items;
  for (std::string& e : errors) items.push_back(S(std::move(e)));
  return Value::OptionalOf(Value::List(new VectorList(std::move(items))));
}

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

// ---------------------------------------------------------------- semver

TEST(KubernetesSemverTest, UpstreamCases) {
  RunCases({
      {R"(semver("1.2.3"))", V("1.2.3")},
      {R"(semver("v1.0"))", {}, "No Major.Minor.Patch elements found"},
      {R"(isSemver("1.2.3-beta.1+build.1"))", B(true)},
      {R"(isSemver(""))", B(false)},
      {R"(isSemver("v1.0.0"))", B(false)},
      {R"(isSemver(" 1.0.0"))", B(false)},
      {R"(isSemver("1. 0.0"))", B(false)},
      {R"(isSemver("1.0.0 "))", B(false)},
      {R"(isSemver("01.01.01"))", B(false)},
      {R"(isSemver("1"))", B(false)},
      {R"(isSemver("1.1"))", B(false)},
      {R"(isSemver("", true))", B(false)},
      {R"(isSemver(" 1.0.0", true))", B(false)},
      {R"(isSemver("1. 0.0", true))", B(false)},
      {R"(isSemver("1.0.0 ", true))", B(false)},
      {R"(isSemver("v1.0.0", true))", B(true)},
      {R"(isSemver("01.01.01", true))", B(true)},
      {R"(isSemver("1", true))", B(true)},
      {R"(isSemver("1.1", true))", B(true)},
      {R"(semver("v01.01", true) == semver("1.1.0"))", B(true)},
      {R"(semver("1.2.3") == semver("1.2.3"))", B(true)},
      {R"(semver("1.2.3") == semver("1.0.0"))", B(false)},
      {R"(semver("1.0.0").isLessThan(semver("1.2.3")))", B(true)},
      {R"(semver("1.0.0").isLessThan(semver("1.0.0")))", B(false)},
      {R"(semver("1.2.3").isGreaterThan(semver("1.0.0")))", B(true)},
      {R"(semver("1.0.0").isGreaterThan(semver("1.0.0")))", B(false)},
      {R"(semver("1.2.3").compareTo(semver("1.2.3")))", I(0)},
      {R"(semver("1.0.0").compareTo(semver("1.2.3")))", I(-1)},
      {R"(semver("1.2.3").compareTo(semver("1.0.0")))", I(1)},
      {R"(semver("1.2.3").major())", I(1)},
      {R"(semver("1.2.3").minor())", I(2)},
      {R"(semver("1.2.3").patch())", I(3)},
  });
  EXPECT_NE(Evaluate("isSemver([1, 2, 3])").compile_error, "");
}

TEST(KubernetesSemverTest, BlangErrorsAndPrecedence) {
  RunCases({
      {R"(semver(""))", {}, "Version string empty"},
      {R"(semver("01.2.3"))",
       {},
       R"(Major number must not contain leading zeroes "01")"},
      {R"(semver("1.02.3"))",
       {},
       R"(Minor number must not contain leading zeroes "02")"},
      {R"(semver("1.2.03"))",
       {},
       R"(Patch number must not contain leading zeroes "03")"},
      {R"(semver("a.2.3"))",
       {},
       R"(Invalid character(s) found in major number "a")"},
      {R"(semver("1.2.x"))",
       {},
       R"(Invalid character(s) found in patch number "x")"},
      {R"(semver("1.2.3-"))", {}, "Prerelease is empty"},
      {R"(semver("1.2.3-01"))",
       {},
       R"(Numeric PreRelease version must not contain leading zeroes "01")"},
      {R"(semver("1.2.3-a_b"))",
       {},
       R"(Invalid character(s) found in prerelease "a_b")"},
      {R"(semver("1.2.3+"))", {}, "Build meta data is empty"},
      {R"(semver("1.2.3+a@b"))",
       {},
       R"(Invalid character(s) found in build meta data "a@b")"},
      {R"(semver("1..3"))",
       {},
       R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {R"(semver("18446744073709551616.0.0"))",
       {},
       R"(strconv.ParseUint: parsing "18446744073709551616": value out of range)"},
      {R"(semver("1.2-rc", true))",
       {},
       "short version cannot contain PreRelease/Build meta data"},
      {R"(semver("1+build", true))",
       {},
       "short version cannot contain PreRelease/Build meta data"},
      // SplitN(s, ".", 3) sees three parts here: no "short version" check.
      {R"(semver("1.2-rc.1", true))",
       {},
       R"(Invalid character(s) found in minor number "2-rc")"},
      {R"(semver("V1.2.3", true))",
       {},
       R"(Invalid character(s) found in major number "0V1")"},
      {R"(semver("v1.02.003-rc.1", true) == semver("1.2.3-rc.1"))", B(true)},
      {R"(semver("1.2.0-rc", true) == semver("1.2.0-rc"))", B(true)},
      {R"(semver("1.2.3", false) == semver("1.2.3"))", B(true)},
      {R"(isSemver("v1.2.3", false))", B(false)},
      {R"(semver("1.2.3-alpha").isLessThan(semver("1.2.3")))", B(true)},
      {R"(semver("1.0.0-alpha.1").compareTo(semver("1.0.0-alpha.beta")))",
       I(-1)},
      {R"(semver("1.0.0-rc.11").compareTo(semver("1.0.0-rc.2")))", I(1)},
      {R"(semver("1.2.3+build.5") == semver("1.2.3"))", B(true)},
      {R"(semver("1.2.3+build.5").compareTo(semver("1.2.3+other")))", I(0)},
      // DRA selector shape (cel.md 3.5).
      {R"(semver("1.0.0").isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
       B(true)},
  });
}

TEST(KubernetesSemverTest, ValueAccessors) {
  auto with_build = SemVer::ParseStrict("1.0.0+x");
  ASSERT_TRUE(with_build.ok());
  Value v = MakeSemverValue(*with_build);
  EXPECT_TRUE(v.opaque().Equals(V("1.0.0").opaque()));
  EXPECT_EQ(v.opaque().DebugString(), "1.0.0+x");
  ASSERT_NE(AsSemver(v), nullptr);
  EXPECT_EQ(AsSemver(v)->build, "x");
  EXPECT_EQ(AsSemver(Q("1")), nullptr);
  EXPECT_EQ(SemverType(), Type::Opaque(kSemverTypeName));
}

// ---------------------------------------------------------------- ip

TEST(KubernetesIpTest, UpstreamCases) {
  RunCases({
      {R"(ip("192.168.0.1"))", Ip("192.168.0.1")},
      {R"(ip("192.168.0.1.0"))",
       {},
       R"(IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long)"},
      {R"(isIP("192.168.0.1"))", B(true)},
      {R"(isIP("192.168.0.1.0"))", B(false)},
      {R"(ip.isCanonical("127.0.0.1"))", B(true)},
      {R"(ip.isCanonical("127.0.0.1.0"))",
       {},
       R"(IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long)"},
      {R"(ip("192.168.0.1").family())", I(4)},
      {R"(ip("0.0.0.0").isUnspecified())", B(true)},
      {R"(ip("127.0.0.1").isUnspecified())", B(false)},
      {R"(ip("127.0.0.1").isLoopback())", B(true)},
      {R"(ip("1.2.3.4").isLoopback())", B(false)},
      {R"(ip("224.0.0.1").isLinkLocalMulticast())", B(true)},
      {R"(ip("224.0.1.1").isLinkLocalMulticast())", B(false)},
      {R"(ip("169.254.169.254").isLinkLocalUnicast())", B(true)},
      {R"(ip("192.168.0.1").isLinkLocalUnicast())", B(false)},
      {R"(ip("192.168.0.1").isGlobalUnicast())", B(true)},
      {R"(ip("255.255.255.255").isGlobalUnicast())", B(false)},
      {R"(ip("2001:db8::68"))", Ip("2001:db8::68")},
      {R"(ip("2001:db8:::68"))",
       {},
       R"(IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68"))"},
      {R"(isIP("2001:db8::68"))", B(true)},
      {R"(isIP("2001:db8:::68"))", B(false)},
      {R"(ip.isCanonical("2001:db8::68"))", B(true)},
      {R"(ip.isCanonical("2001:DB8::68"))", B(false)},
      {R"(ip.isCanonical("2001:db8:::68"))",
       {},
       R"(IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68"))"},
      {R"(ip("2001:db8::68").family())", I(6)},
      {R"(ip("::").isUnspecified())", B(true)},
      {R"(ip("::1").isUnspecified())", B(false)},
      {R"(ip("::1").isLoopback())", B(true)},
      {R"(ip("2001:db8::abcd").isLoopback())", B(false)},
      {R"(ip("ff02::1").isLinkLocalMulticast())", B(true)},
      {R"(ip("fd00::1").isLinkLocalMulticast())", B(false)},
      {R"(ip("fe80::1").isLinkLocalUnicast())", B(true)},
      {R"(ip("fd80::1").isLinkLocalUnicast())", B(false)},
      {R"(ip("2001:db8::abcd").isGlobalUnicast())", B(true)},
      {R"(ip("ff00::1").isGlobalUnicast())", B(false)},
      {R"(string(ip("192.168.0.1")))", S("192.168.0.1")},
  });
  EXPECT_NE(Evaluate(R"(isIP(cidr("192.168.0.0/24")))").compile_error, "");
}

TEST(KubernetesIpTest, StrictnessAndCanonicalForm) {
  RunCases({
      {R"(ip("::ffff:1.2.3.4"))",
       {},
       R"(IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed)"},
      {R"(ip("fe80::1%eth0"))",
       {},
       R"(IP address "fe80::1%eth0" with zone value is not allowed)"},
      {R"(ip("127.0.0.01"))",
       {},
       R"(IP Address "127.0.0.01" parse error during conversion from string: ParseAddr("127.0.0.01"): IPv4 field has octet with leading zero)"},
      {R"(ip("127.0.0.256"))",
       {},
       R"(IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255)"},
      {R"(isIP(":::1"))", B(false)},
      {R"(isIP("::ffff:1.2.3.4"))", B(false)},
      {R"(isIP(""))", B(false)},
      {R"(ip.isCanonical("2001:db8::abcd"))", B(true)},
      {R"(ip.isCanonical("2001:DB8::ABCD"))", B(false)},
      {R"(ip.isCanonical("2001:db8::0:0:0:abcd"))", B(false)},
      {R"(string(ip("2001:0db8:0:0:0:0:0:0068")))", S("2001:db8::68")},
      {R"(string(ip("1:0:0:2:0:0:0:3")))", S("1:0:0:2::3")},
      {R"(string(ip("1:0:0:2:0:0:3:4")))", S("1::2:0:0:3:4")},
      {R"(string(ip("0:0:0:0:0:0:0:0")))", S("::")},
      {R"(string(ip("1:2:3:4:5:6:7:0")))", S("1:2:3:4:5:6:7:0")},
      {R"(string(ip("::1.2.3.4")))", S("::102:304")},
      {R"(ip("192.168.0.1") == ip("192.168.0.1"))", B(true)},
      {R"(ip("::1") == ip("0:0:0:0:0:0:0:1"))", B(true)},
      {R"(ip("192.168.0.1") == ip("192.168.0.2"))", B(false)},
      {R"(ip("100.64.0.1").isGlobalUnicast())", B(true)},
      {R"(ip("ff01::1").isLinkLocalMulticast())", B(false)},
      {R"(ip("febf::1").isLinkLocalUnicast())", B(true)},
      {R"(ip("fec0::1").isLinkLocalUnicast())", B(false)},
  });
}

TEST(KubernetesIpTest, GoParseAddrErrors) {
  struct ErrCase {
    const char* in;
    const char* message;
  };
  const ErrCase cases[] = {
      {"", R"(ParseAddr(""): unable to parse IP)"},
      {"%eth0", R"(ParseAddr("%eth0"): missing IPv6 address)"},
      {"1.2.3", R"(ParseAddr("1.2.3"): IPv4 address too short)"},
      {"1..2.3",
       R"(ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3"))"},
      {"1.2.3.4x", R"(ParseAddr("1.2.3.4x"): unexpected character (at "x"))"},
      {"fe80::1%", R"(ParseAddr("fe80::1%"): zone must be a non-empty string)"},
      {"12345::",
       R"(ParseAddr("12345::"): each group must have 4 or less digits (at "12345::"))"},
      {"1:2", R"(ParseAddr("1:2"): address string too short)"},
      {"1:2:3:4:5:6:7:8:9",
       R"(ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9"))"},
      {"1::2::3", R"(ParseAddr("1::2::3"): multiple :: in address (at ":3"))"},
      {"1:2:3:4:5:6:7::8",
       R"(ParseAddr("1:2:3:4:5:6:7::8"): the :: must expand to at least one field of zeros)"},
      {"1:",
       R"(ParseAddr("1:"): colon must be followed by more characters (at ":"))"},
      {"1:2:3:4:1.2.3.4",
       R"(ParseAddr("1:2:3:4:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4"))"},
      {"::1.2.3.04",
       R"(ParseAddr("::1.2.3.04"): IPv4 field has octet with leading zero)"},
      {"1:x",
       R"(ParseAddr("1:x"): each colon-separated field must have at least one digit (at "x"))"},
      {"1x::",
       R"(ParseAddr("1x::"): unexpected character, want colon (at "x::"))"},
  };
  for (const ErrCase& c : cases) {
    std::string zone;
    auto a = GoParseAddr(c.in, &zone);
    ASSERT_FALSE(a.ok()) << c.in;
    EXPECT_EQ(a.status().message(), c.message);
  }
  std::string zone;
  auto a = GoParseAddr("fe80::1%eth0", &zone);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(zone, "eth0");
  EXPECT_EQ(a->ToString(), "fe80::1");
}

// ---------------------------------------------------------------- cidr

TEST(KubernetesCidrTest, UpstreamCases) {
  RunCases({
      {R"(cidr("192.168.0.0/24"))", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.0/"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: "")"},
      {R"(cidr("192.168.0.0/24").containsIP(ip("192.168.0.1")))", B(true)},
      {R"(cidr("192.168.0.0/24").containsIP(ip("192.168.1.1")))", B(false)},
      {R"(cidr("192.168.0.0/24").containsIP("192.168.0.1"))", B(true)},
      {R"(cidr("192.168.0.0/24").containsIP("192.168.1.1"))", B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25")))",
       B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32")))",
       B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23")))",
       B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32")))",
       B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25"))", B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23"))", B(false)},
      {R"(cidr("192.168.0.0/24").ip())", Ip("192.168.0.0")},
      {R"(cidr("192.168.0.0/24").masked())", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.1/24").masked())", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.0/24").prefixLength())", I(24)},
      {R"(cidr("2001:db8::/32"))", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8::/"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: "")"},
      {R"(cidr("2001:db8::/32").containsIP(ip("2001:db8::1")))", B(true)},
      {R"(cidr("2001:db8::/32").containsIP(ip("2001:dc8::1")))", B(false)},
      {R"(cidr("2001:db8::/32").containsIP("2001:db8::1"))", B(true)},
      {R"(cidr("2001:db8::/32").containsIP("2001:dc8::1"))", B(false)},
      {R"(cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33")))", B(true)},
      {R"(cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31")))",
       B(false)},
      {R"(cidr("2001:db8::/32").containsCIDR("2001:db8::/33"))", B(true)},
      {R"(cidr("2001:db8::/32").containsCIDR("2001:db8::/31"))", B(false)},
      {R"(cidr("2001:db8::/32").ip())", Ip("2001:db8::")},
      {R"(cidr("2001:db8::/32").masked())", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8:1::/32").masked())", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8::/32").prefixLength())", I(32)},
      {R"(string(cidr("192.168.0.0/24")))", S("192.168.0.0/24")},
  });
}

TEST(KubernetesCidrTest, DocExamplesAndEdges) {
  RunCases({
      {R"(cidr("192.168.0.0/16").containsCIDR(cidr("192.168.10.0/24")))",
       B(true)},
      {R"(cidr("192.168.1.0/24").containsCIDR(cidr("192.168.2.0/24")))",
       B(false)},
      {R"(cidr("192.168.0.1/24").ip() == ip("192.168.0.1"))", B(true)},
      {R"(cidr("192.168.0.1/24").ip().family())", I(4)},
      {R"(cidr("::1/128").ip().family())", I(6)},
      {R"(cidr("192.168.0.0/24") == cidr("192.168.0.0/24").masked())", B(true)},
      {R"(cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked())",
       B(false)},
      {R"(cidr("::1/128").prefixLength())", I(128)},
      {R"(cidr("0.0.0.0/0").containsIP("255.255.255.255"))", B(true)},
      {R"(cidr("0.0.0.0/0").containsIP("::1"))", B(false)},
      {R"(cidr("::/0").containsCIDR("10.0.0.0/8"))", B(false)},
      {R"(cidr("10.0.0.0/8").containsIP("10.255.255.255"))", B(true)},
      {R"(cidr("10.0.0.0/7").containsIP("11.0.0.1"))", B(true)},
      {R"(cidr("10.0.0.0/8").containsIP("11.0.0.1"))", B(false)},
      {R"(string(cidr("2001:db8:0::/32")))", S("2001:db8::/32")},
      {R"(isCIDR("192.168.0.0/16"))", B(true)},
      {R"(isCIDR("::1/128"))", B(true)},
      {R"(isCIDR("192.168.0.0/33"))", B(false)},
      {R"(isCIDR("::1/129"))", B(false)},
      {R"(isCIDR("192.168.0.0/016"))", B(false)},
      {R"(isCIDR("192.168.0.0"))", B(false)},
      {R"(cidr("192.168.0.0/33"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range)"},
      {R"(cidr("::ffff:1.2.3.0/120"))",
       {},
       R"(network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.0/120" is not allowed)"},
      {R"(cidr("fe80::%eth0/64"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix)"},
      {R"(cidr("1.2.3.4"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3.4"): no '/')"},
      {R"(cidr("1.2.3/8"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3/8"): ParseAddr("1.2.3"): IPv4 address too short)"},
      // A bad string argument: upstream gives "no such overload" for
      // containsIP and the parse error for containsCIDR.
      {R"(cidr("10.0.0.0/8").containsIP("10.0.0"))", {}, "no such overload"},
      {R"(cidr("10.0.0.0/8").containsCIDR("10.0.0.0"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/')"},
  });
}

// ---------------------------------------------------------------- url

TEST(KubernetesUrlTest, ApiExtensionsCases) {
  RunCases({
      {"url('/path').getScheme() == ''", B(true)},
      {"url('https://example.com/').getScheme() == 'https'", B(true)},
      {"url('https://example.com:80/').getHost() == 'example.com:80'", B(true)},
      {"url('https://example.com/').getHost() == 'example.com'", B(true)},
      {"url('https://[::1]:80/').getHost() == '[::1]:80'", B(true)},
      {"url('https://[::1]/').getHost() == '[::1]'", B(true)},
      {"url('/path').getHost() == ''", B(true)},
      {"url('https://example.com:80/').getHostname() == 'example.com'",
       B(true)},
      {"url('https://127.0.0.1/').getHostname() == '127.0.0.1'", B(true)},
      {"url('https://[::1]/').getHostname() == '::1'", B(true)},
      {"url('/path').getHostname() == ''", B(true)},
      {"url('https://example.com:80/').getPort() == '80'", B(true)},
      {"url('https://example.com/').getPort() == ''", B(true)},
      {"url('/path').getPort() == ''", B(true)},
      {"url('https://example.com/path').getEscapedPath() == '/path'", B(true)},
      {"url('https://example.com/with space/').getEscapedPath() == "
       "'/with%20space/'",
       B(true)},
      {"url('https://example.com').getEscapedPath() == ''", B(true)},
      {"url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': "
       "['a'], 'k2': ['b', 'c']}",
       B(true)},
      {"url('https://example.com/path?key with spaces=value with "
       "spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
       B(true)},
      {"url('https://example.com/path?').getQuery() == {}", B(true)},
      {"url('https://example.com/path').getQuery() == {}", B(true)},
      {"isURL('https://user:pass@example.com:80/path?query=val#fragment')",
       B(true)},
      {"isURL('/path') == true", B(true)},
      {"isURL('https://a:b:c/') == false", B(true)},
      {"isURL('../relative-path') == false", B(true)},
  });
  const std::string u =
      "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c"
      "#anchor')";
  RunCases({
      {u + ".getScheme()", S("https")},
      {u + ".getHost()", S("kubernetes.io:80")},
      {u + ".getHostname()", S("kubernetes.io")},
      {u + ".getPort()", S("80")},
      {u + ".getEscapedPath()", S("/docs/home")},
      {u + ".getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}", B(true)},
  });
}

TEST(KubernetesUrlTest, ErrorsAndEquality) {
  RunCases({
      {"url('https://a:b:c/')",
       {},
       R"(URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host)"},
      {"url('../relative-path')",
       {},
       R"(URL parse error during conversion from string: parse "../relative-path": invalid URI for request)"},
      {"url('')",
       {},
       R"(URL parse error during conversion from string: parse "": empty url)"},
      {"url('://x')",
       {},
       R"(URL parse error during conversion from string: parse "://x": missing protocol scheme)"},
      {"url('http://[::1/')",
       {},
       R"(URL parse error during conversion from string: parse "http://[::1/": missing ']' in host)"},
      {"url('http://a b/')",
       {},
       R"(URL parse error during conversion from string: parse "http://a b/": invalid character " " in host name)"},
      {"url('/a%zz')",
       {},
       R"(URL parse error during conversion from string: parse "/a%zz": invalid URL escape "%zz")"},
      {"url('http://x/\\x01')",
       {},
       R"(URL parse error during conversion from string: parse "http://x/\x01": net/url: invalid control character in URL)"},
      {"url('https://example.com/a b') == url('https://example.com/a%20b')",
       B(true)},
      {"url('https://example.com/') == url('https://example.com')", B(false)},
      {"url('https://example.com/#x') == url('https://example.com/#y')",
       B(false)},
      {"url('HTTPS://example.com/').getScheme()", S("https")},
      {"url('https:://kubernetes.io/').getHostname()", S("")},
      {"url('https://example.com/a%2Fb').getEscapedPath()", S("/a%2Fb")},
      {"isURL('mailto:someone@example.com')", B(true)},
      {"url('*').getEscapedPath()", S("*")},
  });
  EvalRun run = Evaluate(
      "url('https://example.com/p?a=1;b=2&c=%zz&d=%41&e').getQuery() == "
      "{'d': ['A'], 'e': ['']}");
  ASSERT_EQ(run.compile_error, "");
  EXPECT_TRUE(run.value.IsTrue()) << Describe(run.value);
}

TEST(KubernetesUrlTest, GoUrlRoundTrip) {
  struct RoundTrip {
    const char* in;
    const char* out;
  };
  const RoundTrip cases[] = {
      {"https://user:pass@example.com:80/path?query=val#fragment",
       "https://user:pass@example.com:80/path?query=val#fragment"},
      {"http://example.com/a b", "http://example.com/a%20b"},
      {"http://example.com/a%2fb", "http://example.com/a%2fb"},
      {"mailto:x@example.com", "mailto:x@example.com"},
      {"file:///etc/hosts", "file:///etc/hosts"},
      {"https:/path", "https:/path"},
      {"//host/path", "//host/path"},
      {"/a:b", "/a:b"},
      {"http://[fe80::1%25en0]:8080/", "http://[fe80::1%25en0]:8080/"},
      {"http://x/?", "http://x/?"},
      {"http://x/#a b", "http://x/#a%20b"},
  };
  for (const RoundTrip& c : cases) {
    auto url = GoUrl::Parse(c.in);
    ASSERT_TRUE(url.ok()) << c.in << ": " << url.status().message();
    EXPECT_EQ(url->ToString(), c.out);
  }
  auto u = GoUrl::Parse("http://[fe80::1%25en0]:8080/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "[fe80::1%en0]:8080");
  EXPECT_EQ(u->Hostname(), "fe80::1%en0");
  EXPECT_EQ(u->Port(), "8080");
  // A leading "//" is a path for ParseRequestURI but an authority for Parse.
  auto r = GoUrl::ParseRequestUri("//host/path");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->path, "//host/path");
  EXPECT_EQ(r->host, "");
  auto p = GoUrl::Parse("//host/path");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->host, "host");
  EXPECT_EQ(p->path, "/path");
}

// ---------------------------------------------------------------- format

constexpr const char* kLabelError =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character "
    "(e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kSubdomainError =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kDns1035Error =
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kNamePartError =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr const char* kLabelValueError =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

TEST(KubernetesFormatTest, UpstreamCases) {
  RunCases({
      {R"(format.dns1123Label().validate("my-label-name"))", NoneOpt()},
      {R"(format.dns1123Subdomain().validate("apiextensions.k8s.io"))",
       NoneOpt()},
      {R"(format.qualifiedName().validate("apiextensions.k8s.io/v1beta1"))",
       NoneOpt()},
      {R"(format.dns1123LabelPrefix().validate("my-label-prefix-"))",
       NoneOpt()},
      {R"(format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-"))",
       NoneOpt()},
      {R"(format.dns1035LabelPrefix().validate("my-label-prefix-"))",
       NoneOpt()},
      {R"(format.uri().validate("http://example.com"))", NoneOpt()},
      {R"(format.uuid().validate("123e4567-e89b-12d3-a456-426614174000"))",
       NoneOpt()},
      {R"(format.byte().validate("aGVsbG8="))", NoneOpt()},
      {R"(format.date().validate("2021-01-01"))", NoneOpt()},
      {R"(format.datetime().validate("2021-01-01T00:00:00Z"))", NoneOpt()},
      {R"(format.dns1123Label().validate("contains a space"))",
       ErrorsOpt({kLabelError})},
      {R"(format.dns1123Subdomain().validate("contains a space"))",
       ErrorsOpt({kSubdomainError})},
      {R"(format.dns1035Label().validate("contains a space"))",
       ErrorsOpt({kDns1035Error})},
      {R"(format.qualifiedName().validate("contains a space"))",
       ErrorsOpt({kNamePartError})},
      {R"(format.dns1123LabelPrefix().validate("contains a space-"))",
       ErrorsOpt({kLabelError})},
      {R"(format.dns1123SubdomainPrefix().validate("contains a space-"))",
       ErrorsOpt({kSubdomainError})},
      {R"(format.dns1035LabelPrefix().validate("contains a space-"))",
       ErrorsOpt({kDns1035Error})},
      {R"(format.dns1123Label().validate("my-label-name"))", NoneOpt()},
      {R"(format.dns1123Subdomain().validate("example.com"))", NoneOpt()},
      {R"(format.dns1035Label().validate("my-label-name"))", NoneOpt()},
      {R"(format.qualifiedName().validate("my.name"))", NoneOpt()},
      {R"(format.byte().validate("aGVsbG8"))", ErrorsOpt({"invalid base64"})},
      {R"(format.date().validate("2020-01-01"))", NoneOpt()},
      {R"(format.date().validate("2020-01-32"))", ErrorsOpt({"invalid date"})},
      {R"(format.datetime().validate("2020-01-01T00:00:00Z"))", NoneOpt()},
      {R"(format.datetime().validate("2020-01-32T00:00:00Z"))",
       ErrorsOpt({"invalid datetime"})},
      {R"(format.named("unknown").hasValue())", B(false)},
      {R"(format.labelValue().validate("my-cool-label-Value"))", NoneOpt()},
      {"format.labelValue().validate(\"my-cool-label-Value!!\\n\\n!!!\")",
       ErrorsOpt({kLabelValueError})},
  });
}

TEST(KubernetesFormatTest, NamesAndEquality) {
  std::vector<Case> cases;
  for (const NamedFormat& lhs : AllNamedFormats()) {
    const std::string l(lhs.key);
    cases.push_back({"format.named(\"" + l + "\").hasValue()", B(true)});
    cases.push_back(
        {"format.named(\"" + l + "\").value() == format." + l + "()", B(true)});
    for (const NamedFormat& rhs : AllNamedFormats()) {
      if (lhs.key == rhs.key) continue;
      cases.push_back(
          {"format." + l + "() == format." + std::string(rhs.key) + "()",
           B(false)});
    }
  }
  RunCases(cases);
  EXPECT_EQ(AllNamedFormats().size(), 13u);
  for (const NamedFormat& f : AllNamedFormats()) {
    EXPECT_LE(f.key.size(), 64u);  // upstream MaxFormatSize
    EXPECT_EQ(FindNamedFormat(f.key), &f);
  }
  EXPECT_EQ(FindNamedFormat("dns1123subdomain"), nullptr);  // case matters
}

TEST(KubernetesFormatTest, MoreValidations) {
  const std::string long_label(64, 'a');
  RunCases({
      {R"(format.dns1123Label().validate("a.b"))",
       ErrorsOpt({"must not contain dots"})},
      {"format.dns1123Label().validate('" + long_label + "')",
       ErrorsOpt({"must be no more than 63 bytes"})},
      {R"(format.dns1123Label().validate(""))", ErrorsOpt({kLabelError})},
      {R"(format.dns1123Label().validate("-a"))", ErrorsOpt({kLabelError})},
      {R"(format.dns1035Label().validate("1abc"))", ErrorsOpt({kDns1035Error})},
      {R"(format.dns1123Subdomain().validate("a..b"))",
       ErrorsOpt({kSubdomainError})},
      {R"(format.qualifiedName().validate("example.com/MyName"))", NoneOpt()},
      {R"(format.qualifiedName().validate("/name"))",
       ErrorsOpt({"prefix part must be non-empty"})},
      {R"(format.qualifiedName().validate("Example.com/name"))",
       ErrorsOpt({std::string("prefix part ") + kSubdomainError})},
      {R"(format.qualifiedName().validate("example.com/"))",
       ErrorsOpt({"name part must be non-empty", kNamePartError})},
      {R"(format.qualifiedName().validate("a/b/c"))",
       ErrorsOpt({"a valid label key must consist of alphanumeric characters, "
                  "'-', '_' or '.', and must start and end with an "
                  "alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                  "'123-abc', regex used for validation is "
                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
                  "optional DNS subdomain prefix and '/' (e.g. "
                  "'example.com/MyName')"})},
      {R"(format.labelValue().validate(""))", NoneOpt()},
      // maskTrailingDash replaces the last two characters with "a".
      {R"(format.dns1123LabelPrefix().validate("a-"))", NoneOpt()},
      {R"(format.dns1123LabelPrefix().validate("-"))",
       ErrorsOpt({kLabelError})},
      {R"(format.dns1035LabelPrefix().validate("a1-"))", NoneOpt()},
      {R"(format.uri().validate("not a uri"))",
       ErrorsOpt({R"(parse "not a uri": invalid URI for request)"})},
      {R"(format.uuid().validate("123E4567E89B12D3A456426614174000"))",
       NoneOpt()},
      {R"(format.uuid().validate("123e4567-e89b-12d3-a456-42661417400"))",
       ErrorsOpt({"does not match the UUID format"})},
      {R"(format.byte().validate(""))", ErrorsOpt({"invalid base64"})},
      {R"(format.byte().validate("aGVsbA=="))", NoneOpt()},
      {R"(format.byte().validate("aGV=bA=="))", ErrorsOpt({"invalid base64"})},
      {R"(format.date().validate("2020-02-29"))", NoneOpt()},
      {R"(format.date().validate("2019-02-29"))", ErrorsOpt({"invalid date"})},
      {R"(format.date().validate("2020-1-01"))", ErrorsOpt({"invalid date"})},
      {R"(format.datetime().validate("2020-01-01t23:59:59.123+01:00"))",
       NoneOpt()},
      {R"(format.datetime().validate("2020-01-01T00:00:00.5Z"))", NoneOpt()},
      {R"(format.datetime().validate("2020-01-01T24:00:00Z"))",
       ErrorsOpt({"invalid datetime"})},
      {R"(format.datetime().validate("2020-01-01T00:00:00"))",
       ErrorsOpt({"invalid datetime"})},
      {R"(format.datetime().validate("2020-01-01T00:00:00.Z"))",
       ErrorsOpt({"invalid datetime"})},
      {R"(format.named("uuid").value().validate("x").hasValue())", B(true)},
  });
}

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
