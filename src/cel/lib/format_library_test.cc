// Tests of the Kubernetes format library.
// Expression cases and error messages come from the upstream tests
// (k8s.io/apiserver pkg/cel/library/*_test.go).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/kubernetes_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

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

}  // namespace
}  // namespace dralloc::cel
