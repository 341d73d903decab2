// RbacAuthorizer over the case files of tests/auth/rbac/: each file holds
// RBAC objects and, in its header, the requests to authorize:
//   # check: allow|noopinion user=U [groups=G1,G2] verb=V [group=G]
//   #        [resource=R] [subresource=S] [ns=N] [name=X] [path=/p]
//   # reason: <exact reason text of the check above>
// A check with `path=` is a non-resource request.
#include "rbac/rbac_authorizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec.h"
#include "encoding/document_reader.h"
#include "golden_case.h"
#include "rbac/policy_index.h"

namespace dralloc::rbac {
namespace {

namespace fs = std::filesystem;

struct Check {
  std::string line;
  bool allow = false;
  auth::RequestAttributes request;
  std::optional<std::string> reason;
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    parts.push_back(part);
  }
  return parts;
}

void SetField(auth::RequestAttributes& request, const std::string& key,
              const std::string& value) {
  if (key == "user") request.user.name = value;
  if (key == "groups") request.user.groups = SplitCommas(value);
  if (key == "verb") request.verb = value;
  if (key == "group") request.api_group = value;
  if (key == "resource") request.resource = value;
  if (key == "subresource") request.subresource = value;
  if (key == "ns") request.namespace_ = value;
  if (key == "name") request.name = value;
  if (key == "path") {
    request.path = value;
    request.resource_request = false;
  }
}

Check ParseCheck(std::string_view text) {
  Check check;
  check.line = std::string(golden::Trim(text));
  std::istringstream words(check.line);
  std::string decision;
  words >> decision;
  check.allow = decision == "allow";
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) continue;
    SetField(check.request, word.substr(0, eq), word.substr(eq + 1));
  }
  return check;
}

std::vector<Check> ParseChecks(const std::string& text) {
  std::vector<Check> checks;
  for (const std::string& comment : golden::HeaderComments(text)) {
    if (auto value = golden::HeaderValue(comment, "check")) {
      checks.push_back(ParseCheck(*value));
    } else if (auto reason = golden::HeaderValue(comment, "reason")) {
      if (!checks.empty()) checks.back().reason = golden::Trim(*reason);
    }
  }
  return checks;
}

std::vector<api::Object> ParseObjects(const std::string& text,
                                      const std::string& source) {
  std::vector<api::Object> objects;
  auto documents = encoding::ReadDocuments(text, source);
  EXPECT_TRUE(documents.ok()) << documents.status();
  if (!documents.ok()) return objects;
  for (const encoding::Document& document : *documents) {
    for (api::DecodeResult& result : api::DecodeDocument(document.json)) {
      EXPECT_TRUE(result.errors.empty()) << result.DisplayName();
      if (result.object) objects.push_back(std::move(*result.object));
    }
  }
  return objects;
}

class RbacCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(RbacCaseTest, Authorizes) {
  const std::string text = golden::ReadFile(GetParam());
  const std::vector<Check> checks = ParseChecks(text);
  ASSERT_FALSE(checks.empty()) << "a case needs '# check:' lines";
  PolicyIndex index;
  index.Reset(ParseObjects(text, GetParam().string()));
  const RbacAuthorizer authorizer(index);
  for (const Check& check : checks) {
    SCOPED_TRACE(check.line);
    const auth::AuthorizationResult result =
        authorizer.Authorize(check.request);
    EXPECT_EQ(result.decision, check.allow ? auth::Decision::kAllow
                                           : auth::Decision::kNoOpinion);
    if (check.reason) {
      EXPECT_EQ(result.reason, *check.reason);
    }
  }
}

std::vector<fs::path> Cases() {
  return golden::CaseFiles("tests/auth/rbac", {".yaml"});
}

INSTANTIATE_TEST_SUITE_P(Cases, RbacCaseTest, testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(RbacCaseTest, HasCases) { EXPECT_GE(Cases().size(), 3u); }

TEST(PolicyIndexTest, RemoveAndReplaceUpdateTheSubjectIndex) {
  PolicyIndex index;
  api::ClusterRole role;
  role.metadata.name = "reader";
  role.rules = {{.verbs = {"get"}, .api_groups = {""}, .resources = {"pods"}}};
  api::ClusterRoleBinding binding;
  binding.metadata.name = "b";
  binding.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "reader"};
  binding.subjects = {{"User", "rbac.authorization.k8s.io", "alice", ""}};
  index.Upsert(role);
  index.Upsert(binding);
  const RbacAuthorizer authorizer(index);
  auth::RequestAttributes request{.user = {.name = "alice"},
                                  .verb = "get",
                                  .resource = "pods",
                                  .namespace_ = "default"};
  EXPECT_EQ(authorizer.Authorize(request).decision, auth::Decision::kAllow);
  binding.subjects = {{"User", "rbac.authorization.k8s.io", "bob", ""}};
  index.Upsert(binding);
  EXPECT_EQ(authorizer.Authorize(request).decision, auth::Decision::kNoOpinion);
  request.user.name = "bob";
  EXPECT_EQ(authorizer.Authorize(request).decision, auth::Decision::kAllow);
  index.Remove(binding);
  EXPECT_EQ(authorizer.Authorize(request).decision, auth::Decision::kNoOpinion);
  EXPECT_EQ(index.size(), 1u);
}

TEST(RbacAuthorizerTest, RulesForListsResourceAndNonResourceRules) {
  PolicyIndex index;
  api::ClusterRole role;
  role.metadata.name = "r";
  role.rules = {{.verbs = {"get"}, .api_groups = {""}, .resources = {"pods"}},
                {.verbs = {"get"}, .non_resource_urls = {"/healthz"}}};
  api::ClusterRoleBinding binding;
  binding.metadata.name = "b";
  binding.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "r"};
  binding.subjects = {{"Group", "rbac.authorization.k8s.io", "devs", ""}};
  index.Reset({role, binding});
  auth::RuleSet rules;
  RbacAuthorizer(index).RulesFor({.name = "x", .groups = {"devs"}}, "default",
                                 rules);
  ASSERT_EQ(rules.resource_rules.size(), 1u);
  ASSERT_EQ(rules.non_resource_rules.size(), 1u);
  EXPECT_EQ(rules.non_resource_rules[0].non_resource_urls[0], "/healthz");
  EXPECT_FALSE(rules.incomplete);
}

}  // namespace
}  // namespace dralloc::rbac
