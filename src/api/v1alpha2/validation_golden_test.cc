// Runs the resource.k8s.io/v1alpha2 validation cases under
// tests/golden/v1alpha2/validation, named after upstream 1.30's test cases
// (pkg/apis/resource/validation/*_test.go).
//
// A case file holds header comments, then the object; an update case holds
// two objects, the stored one first:
//   # operation: create | update | status-update     (create by default)
//   # expect: valid
// or one line per expected error:
//   # expect: <Type> <field> [detail substring]
// Objects are decoded strictly and defaulted as the server stores them. The
// case passes when the (type, field) pairs produced equal the expected ones
// exactly (as a multiset) and every detail substring occurs in its error.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "api/struct_codec.h"
#include "api/v1alpha2/validation.h"
#include "api/validation/expected_errors_test_util.h"
#include "encoding/document_reader.h"
#include "golden_case.h"

namespace dralloc::api::v1alpha2 {
namespace {

namespace fs = std::filesystem;

struct ValidationCase {
  std::string text;
  std::string operation = "create";
  validation_case::Expectations expect;
};

ValidationCase ReadCase(const fs::path& path) {
  ValidationCase c;
  c.text = golden::ReadFile(path);
  c.expect = validation_case::ReadExpectations(c.text);
  for (const std::string& comment : golden::HeaderComments(c.text)) {
    if (auto operation = golden::HeaderValue(comment, "operation")) {
      c.operation = golden::Trim(*operation);
    }
  }
  return c;
}

template <typename T>
std::optional<T> Decode(const std::string& json, std::string& problem) {
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(json).get(element) != simdjson::SUCCESS) {
    problem = "not JSON";
    return std::nullopt;
  }
  DecodeContext ctx(DecodeOptions{.strict = true});
  std::optional<T> value = DecodeRoot<T>(element, ctx);
  if (!value.has_value() || !ctx.errors().empty()) {
    problem = ToString(ctx.errors());
    return std::nullopt;
  }
  return value;
}

void Default(ResourceClaim& claim) { SetDefaults(claim); }
void Default(ResourceClaimTemplate& tmpl) { SetDefaults(tmpl); }
template <typename T>
void Default(T&) {}

// The validators of one kind; a null one means the operation does not apply.
template <typename T>
struct Validators {
  ErrorList (*create)(const T&);
  ErrorList (*update)(const T&, const T&);
  ErrorList (*status_update)(const T&, const T&);
};

template <typename T>
ErrorList RunKind(const std::vector<std::string>& documents,
                  const std::string& operation, Validators<T> validators) {
  std::vector<T> objects;
  for (const std::string& json : documents) {
    std::string problem;
    std::optional<T> object = Decode<T>(json, problem);
    if (!object) {
      ADD_FAILURE() << "decode failed: " << problem;
      return {};
    }
    Default(*object);
    objects.push_back(std::move(*object));
  }
  const size_t want = operation == "create" ? 1 : 2;
  if (objects.size() != want) {
    ADD_FAILURE() << operation << " needs " << want << " object(s)";
    return {};
  }
  if (operation == "create") return validators.create(objects[0]);
  auto update =
      operation == "update" ? validators.update : validators.status_update;
  if (operation != "update" && operation != "status-update") update = nullptr;
  if (update == nullptr) {
    ADD_FAILURE() << "no " << operation << " validation for this kind";
    return {};
  }
  return update(objects[1], objects[0]);
}

ErrorList RunCase(const std::string& kind,
                  const std::vector<std::string>& documents,
                  const std::string& operation) {
  if (kind == "ResourceClass") {
    return RunKind<ResourceClass>(
        documents, operation,
        {&ValidateResourceClass, &ValidateResourceClassUpdate, nullptr});
  }
  if (kind == "ResourceClaim") {
    return RunKind<ResourceClaim>(
        documents, operation,
        {&ValidateResourceClaim, &ValidateResourceClaimUpdate,
         &ValidateResourceClaimStatusUpdate});
  }
  if (kind == "ResourceClaimTemplate") {
    return RunKind<ResourceClaimTemplate>(
        documents, operation,
        {&ValidateResourceClaimTemplate, &ValidateResourceClaimTemplateUpdate,
         nullptr});
  }
  if (kind == "PodSchedulingContext") {
    return RunKind<PodSchedulingContext>(
        documents, operation,
        {&ValidatePodSchedulingContext, &ValidatePodSchedulingContextUpdate,
         &ValidatePodSchedulingContextStatusUpdate});
  }
  if (kind == "ResourceSlice") {
    return RunKind<ResourceSlice>(
        documents, operation,
        {&ValidateResourceSlice, &ValidateResourceSliceUpdate, nullptr});
  }
  if (kind == "ResourceClaimParameters") {
    return RunKind<ResourceClaimParameters>(
        documents, operation,
        {&ValidateResourceClaimParameters,
         &ValidateResourceClaimParametersUpdate, nullptr});
  }
  if (kind == "ResourceClassParameters") {
    return RunKind<ResourceClassParameters>(
        documents, operation,
        {&ValidateResourceClassParameters,
         &ValidateResourceClassParametersUpdate, nullptr});
  }
  ADD_FAILURE() << "unknown kind " << kind;
  return {};
}

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles("tests/golden/v1alpha2/validation", {".yaml"});
}

class V1alpha2ValidationTest : public testing::TestWithParam<fs::path> {};

TEST_P(V1alpha2ValidationTest, MatchesUpstream130) {
  const ValidationCase c = ReadCase(GetParam());
  ASSERT_TRUE(c.expect.valid != !c.expect.errors.empty())
      << "a case needs either '# expect: valid' or '# expect: <Type> <field>'";
  auto documents = encoding::ReadDocuments(c.text, GetParam().string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_FALSE(documents->empty());
  std::vector<std::string> json;
  for (const encoding::Document& document : *documents) {
    json.push_back(document.json);
  }
  // The kind is named by the directory (objects may omit it).
  const std::string kind = GetParam().parent_path().filename().string();
  const ErrorList errors = RunCase(kind, json, c.operation);
  if (testing::Test::HasFailure()) return;

  validation_case::ExpectErrors(errors, c.expect);
}

INSTANTIATE_TEST_SUITE_P(Cases, V1alpha2ValidationTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(
                               info.param.parent_path().filename().string() +
                               "_" + info.param.stem().string());
                         });

TEST(V1alpha2ValidationCorpus, CoversEveryKind) {
  std::map<std::string, int> per_kind;
  for (const fs::path& path : CaseFiles()) {
    ++per_kind[path.parent_path().filename().string()];
  }
  for (const char* kind :
       {"ResourceClass", "ResourceClaim", "ResourceClaimTemplate",
        "PodSchedulingContext", "ResourceSlice", "ResourceClaimParameters",
        "ResourceClassParameters"}) {
    EXPECT_GE(per_kind[kind], 3) << kind;
  }
}

TEST(V1alpha2DefaultsTest, AllocationModeDefaultsToWaitForFirstConsumer) {
  ResourceClaim claim;
  SetDefaults(claim);
  EXPECT_EQ(claim.spec.allocation_mode, kAllocationModeWaitForFirstConsumer);
  claim.spec.allocation_mode = std::string(kAllocationModeImmediate);
  SetDefaults(claim);
  EXPECT_EQ(claim.spec.allocation_mode, kAllocationModeImmediate);
  ResourceClaimTemplate tmpl;
  SetDefaults(tmpl);
  EXPECT_EQ(tmpl.spec.spec.allocation_mode,
            kAllocationModeWaitForFirstConsumer);
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
