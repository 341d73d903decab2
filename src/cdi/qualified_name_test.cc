#include "cdi/qualified_name.h"

#include <gtest/gtest.h>

namespace dralloc::cdi {
namespace {

TEST(ParseQualifiedNameTest, Valid) {
  struct Case {
    const char* text;
    QualifiedDeviceName want;
  };
  const Case cases[] = {
      {"vendor.com/gpu=gpu0", {{"vendor.com", "gpu"}, "gpu0"}},
      {"k8s.gpu.example.com/gpu=4f2c-gpu-0",
       {{"k8s.gpu.example.com", "gpu"}, "4f2c-gpu-0"}},
      {"a/b=c", {{"a", "b"}, "c"}},
      {"Vendor_1.io/cl-ass.v2=dev:mig_1.5gb",
       {{"Vendor_1.io", "cl-ass.v2"}, "dev:mig_1.5gb"}},
      {"v.com/c=0", {{"v.com", "c"}, "0"}},
  };
  for (const Case& c : cases) {
    StatusOr<QualifiedDeviceName> parsed = ParseQualifiedName(c.text);
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status();
    EXPECT_EQ(*parsed, c.want) << c.text;
    EXPECT_EQ(parsed->ToString(), c.text);
  }
}

TEST(ParseQualifiedNameTest, Invalid) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"gpu0",
       R"(invalid CDI device name "gpu0": must be vendor/class=device, )"
       R"(e.g. vendor.com/gpu=gpu0)"},
      {"vendor.com=gpu0",
       R"(invalid CDI device name "vendor.com=gpu0": must be vendor/class, )"
       R"(e.g. vendor.com/gpu)"},
      {"/gpu=gpu0",
       R"(invalid CDI device name "/gpu=gpu0": vendor "": must not be empty)"},
      {"vendor.com/=gpu0",
       R"(invalid CDI device name "vendor.com/=gpu0": class "": must not be )"
       R"(empty)"},
      {"vendor.com/gpu=",
       R"(invalid CDI device name "vendor.com/gpu=": device "": must not be )"
       R"(empty)"},
      {"1vendor.com/gpu=a",
       R"(invalid CDI device name "1vendor.com/gpu=a": vendor "1vendor.com": )"
       R"(must start with a letter)"},
      {"vendor.com/gpu-=a",
       R"(invalid CDI device name "vendor.com/gpu-=a": class "gpu-": must )"
       R"(end with a letter or digit)"},
      {"vendor.com/gpu=-a",
       R"(invalid CDI device name "vendor.com/gpu=-a": device "-a": must )"
       R"(start with a letter or digit)"},
      {"vendor.com/gpu=a b",
       R"(invalid CDI device name "vendor.com/gpu=a b": device "a b": )"
       R"(invalid character " " at offset 1: only letters, digits, '-', )"
       R"('_', '.' and ':' are allowed)"},
      {"vendor.com/a/b=c",
       R"(invalid CDI device name "vendor.com/a/b=c": class "a/b": invalid )"
       R"(character '/' at offset 1: only letters, digits, '-', '_' and '.' )"
       R"(are allowed)"},
  };
  for (const Case& c : cases) {
    StatusOr<QualifiedDeviceName> parsed = ParseQualifiedName(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), c.message);
  }
}

TEST(ParseQualifiedNameTest, LengthLimits) {
  std::string long_class(64, 'c');
  EXPECT_FALSE(ParseQualifiedName("v.com/" + long_class + "=d").ok());
  EXPECT_TRUE(ParseQualifiedName("v.com/" + long_class.substr(1) + "=d").ok());
  std::string long_vendor = "v" + std::string(253, 'e');
  EXPECT_FALSE(ParseQualifiedName(long_vendor + "/c=d").ok());
}

TEST(ParseKindTest, SplitsAndValidates) {
  StatusOr<Kind> kind = ParseKind("k8s.gpu.example.com/gpu");
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(kind->vendor, "k8s.gpu.example.com");
  EXPECT_EQ(kind->class_name, "gpu");
  EXPECT_EQ(kind->ToString(), "k8s.gpu.example.com/gpu");
  EXPECT_EQ(ParseKind("gpu").status().message(),
            R"(invalid CDI kind "gpu": must be vendor/class, e.g. )"
            R"(vendor.com/gpu)");
}

}  // namespace
}  // namespace dralloc::cdi
