#include "api/validation/names.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "api/validation/device_rules.h"

namespace dralloc::api {
namespace {

struct BoolCase {
  std::string value;
  bool want;
};

TEST(NamesTest, Dns1123Label) {
  const std::vector<BoolCase> cases = {
      {"a", true},
      {"abc-123", true},
      {"0", true},
      {std::string(63, 'a'), true},
      {std::string(64, 'a'), false},
      {"", false},
      {"-a", false},
      {"a-", false},
      {"A", false},
      {"a.b", false},
      {"a_b", false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(IsDns1123Label(c.value), c.want) << c.value;
    EXPECT_EQ(Dns1123LabelErrors(c.value).empty(), c.want) << c.value;
  }
}

TEST(NamesTest, Dns1123LabelMessages) {
  EXPECT_EQ(Dns1123LabelErrors("a.b"),
            std::vector<std::string>{"must not contain dots"});
  std::vector<std::string> errs = Dns1123LabelErrors("Bad");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0],
            "a lowercase RFC 1123 label must consist of lower case "
            "alphanumeric characters or "
            "'-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or "
            "'123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  errs = Dns1123LabelErrors(std::string(64, 'a'));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "must be no more than 63 characters");
}

TEST(NamesTest, Dns1123Subdomain) {
  const std::vector<BoolCase> cases = {
      {"example.com", true},
      {"a", true},
      {"gpu.example.com", true},
      {"a-b.c-d", true},
      {std::string(64, 'a') + ".com", true},  // no per-label limit
      {std::string(253, 'a'), true},
      {std::string(254, 'a'), false},
      {"", false},
      {".a", false},
      {"a.", false},
      {"a..b", false},
      {"Example.com", false},
      {"a_b.com", false},
      {"a/b", false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(IsDns1123Subdomain(c.value), c.want) << c.value;
    EXPECT_EQ(Dns1123SubdomainErrors(c.value).empty(), c.want) << c.value;
  }
}

TEST(NamesTest, CIdentifier) {
  const std::vector<BoolCase> cases = {
      {"a", true}, {"_", true},   {"my_name", true}, {"MyName9", true},
      {"", false}, {"9a", false}, {"a-b", false},    {"a.b", false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(IsCIdentifier(c.value), c.want) << c.value;
    EXPECT_EQ(CIdentifierErrors(c.value).empty(), c.want) << c.value;
  }
}

TEST(NamesTest, QualifiedName) {
  const std::vector<BoolCase> cases = {
      {"app", true},
      {"My.Name_1", true},
      {"example.com/name", true},
      {"kubernetes.io/hostname", true},
      {std::string(63, 'a'), true},
      {std::string(64, 'a'), false},
      {"", false},
      {"/name", false},
      {"example.com/", false},
      {"a/b/c", false},
      {"Example.com/name", false},
      {"-name", false},
      {"name-", false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(QualifiedNameErrors(c.value).empty(), c.want) << c.value;
  }
  EXPECT_EQ(QualifiedNameErrors("/a"),
            std::vector<std::string>{"prefix part must be non-empty"});
}

TEST(NamesTest, LabelValue) {
  const std::vector<BoolCase> cases = {
      {"", true},        {"v1", true},
      {"a.b-c_d", true}, {std::string(63, 'x'), true},
      {"-", false},      {"a b", false},
      {"a/b", false},    {std::string(64, 'x'), false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(LabelValueErrors(c.value).empty(), c.want) << c.value;
  }
}

TEST(NamesTest, Rfc3339Time) {
  const std::vector<BoolCase> cases = {
      {"2024-05-01T10:00:00Z", true},
      {"2024-05-01T10:00:00.123456Z", true},
      {"2024-05-01T10:00:00+02:00", true},
      {"2024-05-01T10:00:00-07:30", true},
      {"2024-02-29T00:00:00Z", true},
      {"2023-02-29T00:00:00Z", false},
      {"2024-13-01T00:00:00Z", false},
      {"2024-05-01 10:00:00Z", false},
      {"2024-05-01T10:00:00", false},
      {"2024-05-01T24:00:00Z", false},
      {"2024-05-01T10:00:00.Z", false},
      {"2024-05-01T10:00:00+0200", false},
      {"2024-05-01", false},
      {"", false},
  };
  for (const BoolCase& c : cases)
    EXPECT_EQ(IsRfc3339Time(c.value), c.want) << c.value;
}

// Runs a validator and returns "Type field" for each error.
template <typename Fn>
std::vector<std::string> Collect(Fn fn) {
  ErrorList errors;
  fn(errors);
  std::vector<std::string> out;
  for (const FieldError& e : errors) {
    out.push_back(std::string(FieldErrorTypeName(e.type)) + " " + e.field);
  }
  return out;
}

TEST(NamesTest, ObjectMeta) {
  FieldPath path("metadata");
  ObjectMeta meta;
  EXPECT_EQ(Collect([&](ErrorList& e) {
              ValidateObjectMeta(meta, true, NameRule::kDns1123Subdomain, path,
                                 e);
            }),
            (std::vector<std::string>{"Required metadata.name",
                                      "Required metadata.namespace"}));
  meta.generate_name = "gen-";
  meta.namespace_ = "ns";
  EXPECT_TRUE(Collect([&](ErrorList& e) {
                ValidateObjectMeta(meta, true, NameRule::kDns1123Subdomain,
                                   path, e);
              }).empty());
  EXPECT_EQ(Collect([&](ErrorList& e) {
              ValidateObjectMeta(meta, false, NameRule::kDns1123Subdomain, path,
                                 e);
            }),
            (std::vector<std::string>{"Forbidden metadata.namespace"}));
  ObjectMeta label_meta;
  label_meta.name = "a.b";
  label_meta.labels = {{"ok", "bad value"}};
  label_meta.finalizers = {"example.com/x", "bad/fin/alizer"};
  label_meta.creation_timestamp = "yesterday";
  EXPECT_EQ(Collect([&](ErrorList& e) {
              ValidateObjectMeta(label_meta, false, NameRule::kDns1123Label,
                                 path, e);
            }),
            (std::vector<std::string>{
                "Invalid metadata.name", "Invalid metadata.creationTimestamp",
                "Invalid metadata.labels", "Invalid metadata.finalizers"}));
}

TEST(NamesTest, AnnotationsSize) {
  FieldPath path("annotations");
  StringMap annotations = {{"a", std::string(256 * 1024 - 1, 'x')}};
  EXPECT_TRUE(Collect([&](ErrorList& e) {
                ValidateAnnotations(annotations, path, e);
              }).empty());
  annotations["b"] = "";
  EXPECT_EQ(
      Collect([&](ErrorList& e) { ValidateAnnotations(annotations, path, e); }),
      (std::vector<std::string>{"TooLong annotations"}));
  // Case does not matter in annotation keys.
  StringMap upper = {{"Example.COM/Key", "v"}};
  EXPECT_TRUE(Collect([&](ErrorList& e) {
                ValidateAnnotations(upper, path, e);
              }).empty());
}

TEST(NamesTest, DriverAndAttributeNames) {
  FieldPath path("x");
  const std::vector<BoolCase> drivers = {
      {"gpu.example.com", true},
      {"GPU.Example.com", true},  // checked lower-cased, like CSI driver names
      {std::string(63, 'a'), true},
      {std::string(64, 'a'), false},
      {"", false},
      {"a_b", false},
  };
  for (const BoolCase& c : drivers) {
    EXPECT_EQ(Collect([&](ErrorList& e) {
                ValidateDriverName(c.value, path, e);
              }).empty(),
              c.want)
        << c.value;
  }
  const std::vector<BoolCase> attributes = {
      {"model", true},
      {"gpu.example.com/model", true},
      {std::string(32, 'a'), true},
      {std::string(33, 'a'), false},
      {"a-b", false},
      {"/model", false},
      {"example.com/", false},
      {"a/b/c", false},
      {std::string(64, 'a') + "/x", false},
  };
  for (const BoolCase& c : attributes) {
    EXPECT_EQ(Collect([&](ErrorList& e) {
                ValidateQualifiedAttributeName(c.value, path, e);
              }).empty(),
              c.want)
        << c.value;
  }
  EXPECT_EQ(Collect([&](ErrorList& e) {
              ValidateFullyQualifiedName("model", path, e);
            }),
            (std::vector<std::string>{"Invalid x"}));
}

TEST(NamesTest, PoolName) {
  FieldPath path("pool");
  const std::vector<BoolCase> cases = {
      {"pool", true},  {"a.b/c.d", true},
      {"a/b/c", true}, {"", false},
      {"a//b", false}, {"/a", false},
      {"A", false},    {std::string(254, 'a'), false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(Collect([&](ErrorList& e) {
                ValidatePoolName(c.value, path, e);
              }).empty(),
              c.want)
        << c.value;
  }
}

TEST(NamesTest, TruncateKey) {
  EXPECT_EQ(TruncateKeyIfTooLong("short", 96), "short");
  std::string long_key(100, 'a');
  long_key[0] = 'b';
  long_key.back() = 'z';
  std::string truncated = TruncateKeyIfTooLong(long_key, 96);
  EXPECT_EQ(truncated.size(), 96u);
  EXPECT_EQ(truncated.front(), 'b');
  EXPECT_EQ(truncated.back(), 'z');
  EXPECT_NE(truncated.find("..."), std::string::npos);
  EXPECT_EQ(TruncateKeyIfTooLong(std::string(17, 'a'), 5).size(), 16u);
}

}  // namespace
}  // namespace dralloc::api
