// Tests of the Kubernetes semver library.
// Expression cases and error messages come from the upstream tests
// (k8s.io/apiserver pkg/cel/library/*_test.go).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/kubernetes_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

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

}  // namespace
}  // namespace dralloc::cel
