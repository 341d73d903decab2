// The node authorizer and NodeRestriction admission, driven by the case
// files under tests/auth/node/ (the dialect is described in
// tests/auth/node/README.md), plus the graph's own behaviour.
#include "apiserver/node_authorizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "api/resource_registry.h"
#include "apiserver/node_restriction_admission.h"
#include "apiserver/resource_storage.h"
#include "encoding/document_reader.h"
#include "golden_case.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kCaseRoot = "tests/auth/node";
constexpr auto kCatchUp = std::chrono::seconds(5);

auth::UserInfo UserOf(const json& step) {
  auth::UserInfo user;
  user.name = step.value("user", "");
  if (step.contains("groups")) {
    user.groups = step["groups"].get<std::vector<std::string>>();
  } else if (user.name.starts_with(auth::kNodeUserPrefix)) {
    user.groups = {std::string(auth::kNodesGroup),
                   std::string(auth::kAllAuthenticated)};
  } else {
    user.groups = {std::string(auth::kAllAuthenticated)};
  }
  return user;
}

std::vector<std::pair<std::string, std::string>> SelectorOf(
    const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos) continue;
    out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
  }
  return out;
}

auth::RequestAttributes AttributesOf(const json& step) {
  auth::RequestAttributes attributes;
  attributes.user = UserOf(step);
  attributes.verb = step.value("verb", "");
  attributes.api_group = step.value("group", "");
  attributes.api_version = step.value("version", "v1");
  attributes.resource = step.value("resource", "");
  attributes.subresource = step.value("subresource", "");
  attributes.namespace_ = step.value("namespace", "");
  attributes.name = step.value("name", "");
  attributes.field_selector = SelectorOf(step.value("fieldSelector", ""));
  if (step.contains("path")) {
    attributes.resource_request = false;
    attributes.path = step["path"].get<std::string>();
  }
  return attributes;
}

std::string_view DecisionName(auth::Decision decision) {
  switch (decision) {
    case auth::Decision::kAllow:
      return "allow";
    case auth::Decision::kDeny:
      return "deny";
    case auth::Decision::kNoOpinion:
      return "noopinion";
  }
  return "?";
}

// One case: a fresh store with the namespaces "default" and
// "kube-node-lease", NodeRestriction admission on every write, and a
// started node authorizer.
class CaseRunner {
 public:
  CaseRunner() : storage_(store_), authorizer_(store_) {
    storage_.AddAdmissionPlugin(
        std::make_unique<NodeRestrictionAdmission>(store_));
    for (const char* name : {"default", "kube-node-lease"}) {
      Setup({{"create",
              {{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", name}}}}}});
    }
    authorizer_.Start();
  }

  void Run(const json& steps) {
    for (size_t i = 0; i < steps.size(); ++i) {
      SCOPED_TRACE("step " + std::to_string(i) + ": " + steps[i].dump());
      const json& step = steps[i];
      if (step.contains("authorize")) {
        Authorize(step["authorize"]);
      } else if (step.contains("write")) {
        Write(step["write"]);
      } else {
        Setup(step);
      }
    }
  }

 private:
  // The scope of an object, or of {kind, namespace, name}.
  static RequestScope ScopeOf(const json& object) {
    RequestScope scope;
    const std::string api_version = object.value("apiVersion", "v1");
    scope.info =
        object.contains("apiVersion")
            ? api::FindResourceByKind(api_version, object.value("kind", ""))
            : api::FindResourceByKind(object.value("kind", ""));
    scope.version = api_version.substr(api_version.find('/') + 1);
    const json meta = object.value("metadata", object);
    scope.namespace_ = meta.value("namespace", "");
    scope.name = meta.value("name", "");
    return scope;
  }

  // A write of `op` ("create", "update", "updateStatus", "delete", "bind")
  // with `body` (an object, or delete options).
  ApiOr<WriteResult> Perform(const std::string& op, const json& target,
                             const WriteOptions& options) {
    RequestScope scope = ScopeOf(target);
    if (scope.info == nullptr) {
      return BadRequest("unknown kind in " + target.dump());
    }
    if (op == "create") {
      scope.name.clear();
      return storage_.Create(scope, target.dump(), options);
    }
    if (op == "update" || op == "updateStatus") {
      if (op == "updateStatus") scope.subresource = "status";
      return storage_.Update(scope, target.dump(), options);
    }
    if (op == "bind") {
      return storage_.BindTo(scope, target.value("node", ""), "", options);
    }
    const std::string body =
        target.contains("options") ? target["options"].dump() : "";
    return storage_.Delete(scope, body, options);
  }

  // A write by the server itself (no user), which must succeed.
  void Setup(const json& step) {
    ASSERT_EQ(step.size(), 1u) << "a setup step has one operation";
    // The key and value are read from the object itself: a structured
    // binding of `*items().begin()` refers into a temporary iterator.
    const std::string op = step.begin().key();
    const json& target = step.begin().value();
    auto written = Perform(op, target, WriteOptions{});
    ASSERT_TRUE(written.ok()) << op << ": " << written.error().message;
  }

  void Write(const json& step) {
    const auth::UserInfo user = UserOf(step);
    WriteOptions options;
    options.user = &user;
    const json& expect = step["expect"];
    auto written = Perform(step["op"], step["target"], options);
    const int code = written.ok() ? written->code : written.error().code;
    EXPECT_EQ(code, expect.value("code", 0))
        << (written.ok() ? "" : written.error().message);
    if (expect.contains("message")) {
      ASSERT_FALSE(written.ok());
      EXPECT_EQ(written.error().message, expect["message"].get<std::string>());
    }
    if (expect.contains("details")) {
      ASSERT_FALSE(written.ok());
      EXPECT_EQ(json::parse(written.error().details.dump()), expect["details"]);
    }
  }

  void Authorize(const json& step) {
    ASSERT_TRUE(
        authorizer_.graph().WaitForRevision(store_.Revision(), kCatchUp))
        << "the graph did not catch up with the store";
    const auth::AuthorizationResult result =
        authorizer_.Authorize(AttributesOf(step));
    EXPECT_EQ(DecisionName(result.decision), step.value("expect", ""))
        << "reason: " << result.reason;
    if (step.contains("reason")) {
      EXPECT_EQ(result.reason, step["reason"].get<std::string>());
    }
  }

  store::MemoryStore store_;
  ResourceStorage storage_;
  NodeAuthorizer authorizer_;
};

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles(kCaseRoot, {".yaml"});
}

class NodeAuthorizationCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(NodeAuthorizationCaseTest, DecidesAsExpected) {
  const std::string text = golden::ReadFile(GetParam());
  auto documents = encoding::ReadDocuments(text, GetParam().string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u) << "a case is one document";
  const json doc = json::parse((*documents)[0].json);
  ASSERT_TRUE(doc.contains("steps") && doc["steps"].is_array());
  CaseRunner runner;
  runner.Run(doc["steps"]);
}

INSTANTIATE_TEST_SUITE_P(Cases, NodeAuthorizationCaseTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(NodeAuthorizationCorpus, HasCases) { EXPECT_GE(CaseFiles().size(), 6u); }

// The graph, fed by the store alone.
class NodeAuthorizerGraphTest : public testing::Test {
 protected:
  void Put(const std::string& key, const json& pod) {
    ASSERT_TRUE(store_
                    .Put(key, store::Precondition::None(),
                         [&](int64_t) { return pod.dump(); })
                    .ok());
  }
  void CatchUp() {
    ASSERT_TRUE(graph_.WaitForRevision(store_.Revision(), kCatchUp));
  }

  store::MemoryStore store_;
  NodeAuthorizerGraph graph_{store_};
};

json PodOn(const std::string& node, const json& claims) {
  return {{"spec", {{"nodeName", node}, {"resourceClaims", claims}}}};
}

TEST_F(NodeAuthorizerGraphTest, FollowsBindingAndDeletion) {
  Put("/pods/default/early",
      PodOn("node-a",
            json::array({{{"name", "x"}, {"resourceClaimName", "c-early"}}})));
  graph_.Start();
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "c-early", "node-a"));
  Put("/pods/default/p",
      PodOn("", json::array({{{"name", "gpu"}, {"resourceClaimName", "c"}}})));
  CatchUp();
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "c", "node-a"));
  EXPECT_FALSE(graph_.PodOnNode("default", "p", "node-a"));
  Put("/pods/default/p",
      PodOn("node-a",
            json::array({{{"name", "gpu"}, {"resourceClaimName", "c"}}})));
  CatchUp();
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "c", "node-a"));
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "c", "node-b"));
  EXPECT_FALSE(graph_.ClaimUsedOnNode("other", "c", "node-a"));
  EXPECT_TRUE(graph_.PodOnNode("default", "p", "node-a"));
  ASSERT_TRUE(
      store_.Delete("/pods/default/p", store::Precondition::None()).ok());
  CatchUp();
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "c", "node-a"));
  EXPECT_FALSE(graph_.PodOnNode("default", "p", "node-a"));
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "c-early", "node-a"));
}

TEST_F(NodeAuthorizerGraphTest, SharedClaimStaysWhileOnePodUsesIt) {
  graph_.Start();
  const json claims =
      json::array({{{"name", "gpu"}, {"resourceClaimName", "shared"}}});
  Put("/pods/default/one", PodOn("node-a", claims));
  Put("/pods/default/two", PodOn("node-a", claims));
  Put("/pods/default/three", PodOn("node-b", claims));
  CatchUp();
  ASSERT_TRUE(
      store_.Delete("/pods/default/one", store::Precondition::None()).ok());
  CatchUp();
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "shared", "node-a"));
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "shared", "node-b"));
  ASSERT_TRUE(
      store_.Delete("/pods/default/two", store::Precondition::None()).ok());
  CatchUp();
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "shared", "node-a"));
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "shared", "node-b"));
}

TEST_F(NodeAuthorizerGraphTest, TemplateClaimsResolveThroughStatus) {
  graph_.Start();
  json pod = PodOn(
      "node-a",
      json::array({{{"name", "gpu"}, {"resourceClaimTemplateName", "t"}},
                   {{"name", "none"}, {"resourceClaimTemplateName", "t"}}}));
  Put("/pods/default/p", pod);
  CatchUp();
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "t", "node-a"));
  pod["status"]["resourceClaimStatuses"] =
      json::array({{{"name", "gpu"}, {"resourceClaimName", "p-gpu-x1"}},
                   {{"name", "none"}}});
  Put("/pods/default/p", pod);
  CatchUp();
  EXPECT_TRUE(graph_.ClaimUsedOnNode("default", "p-gpu-x1", "node-a"));
  EXPECT_FALSE(graph_.ClaimUsedOnNode("default", "t", "node-a"));
}

TEST_F(NodeAuthorizerGraphTest, ExtendedResourceClaimResolvesThroughStatus) {
  graph_.Start();
  json pod = PodOn("node-a", json::array());
  Put("/pods/default/p", pod);
  CatchUp();
  EXPECT_FALSE(
      graph_.ClaimUsedOnNode("default", "p-extended-resources-x1", "node-a"));
  pod["status"]["extendedResourceClaimStatus"] = {
      {"resourceClaimName", "p-extended-resources-x1"},
      {"requestMappings",
       json::array({{{"containerName", "c"},
                     {"resourceName", "example.com/gpu"},
                     {"requestName", "container-0-request-0"}}})}};
  Put("/pods/default/p", pod);
  CatchUp();
  EXPECT_TRUE(
      graph_.ClaimUsedOnNode("default", "p-extended-resources-x1", "node-a"));
}

TEST(NodeAuthorizerGraphRelist, RecoversAfterFallingBehindTheWindow) {
  // A window of two events: a burst of writes pushes the watch out of it,
  // and the graph must relist to see the last pod.
  store::MemoryStore store(store::StoreOptions{.window_events = 2});
  NodeAuthorizerGraph graph(store);
  graph.Start();
  for (int i = 0; i < 50; ++i) {
    const json pod =
        PodOn("node-a",
              json::array({{{"name", "gpu"},
                            {"resourceClaimName", "c" + std::to_string(i)}}}));
    ASSERT_TRUE(store
                    .Put("/pods/default/p" + std::to_string(i),
                         store::Precondition::None(),
                         [&](int64_t) { return pod.dump(); })
                    .ok());
  }
  ASSERT_TRUE(graph.WaitForRevision(store.Revision(), kCatchUp));
  EXPECT_TRUE(graph.ClaimUsedOnNode("default", "c49", "node-a"));
  EXPECT_TRUE(graph.ClaimUsedOnNode("default", "c0", "node-a"));
}

// The authorizer itself waits for its graph: a claim get that follows the
// binding of its pod at once (as a node agent watching its pods makes it) is
// allowed, whatever the graph thread's progress.
TEST(NodeAuthorizerCatchUp, ClaimOfAPodBoundAMomentAgoIsAllowed) {
  store::MemoryStore store;
  ResourceStorage storage(store);
  NodeAuthorizer authorizer(store);
  const api::ResourceInfo* pods = api::FindResourceByKind("Pod");
  RequestScope scope{.info = pods, .version = "v1", .namespace_ = "default"};
  RequestScope namespaces{.info = api::FindResourceByKind("Namespace"),
                          .version = "v1"};
  ASSERT_TRUE(
      storage
          .Create(
              namespaces,
              R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})",
              {})
          .ok());
  authorizer.Start();
  auth::RequestAttributes get_claim;
  get_claim.user = {.name = "system:node:node-a",
                    .uid = "",
                    .groups = {"system:nodes"},
                    .extra = {}};
  get_claim.verb = "get";
  get_claim.api_group = "resource.k8s.io";
  get_claim.resource = "resourceclaims";
  get_claim.namespace_ = "default";
  for (int i = 0; i < 20; ++i) {
    const std::string name = "p" + std::to_string(i);
    const json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", "default"}}},
        {"spec",
         {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})},
          {"resourceClaims",
           json::array({{{"name", "gpu"}, {"resourceClaimName", name}}})}}}};
    ASSERT_TRUE(storage.Create(scope, pod.dump(), {}).ok());
    RequestScope named = scope;
    named.name = name;
    ASSERT_TRUE(storage.BindTo(named, "node-a", "", {}).ok());
    get_claim.name = name;
    const auth::AuthorizationResult result = authorizer.Authorize(get_claim);
    EXPECT_EQ(result.decision, auth::Decision::kAllow)
        << name << ": " << result.reason;
  }
}

TEST(NodeAuthorizerRules, NodesGetStaticRulesAndIncomplete) {
  store::MemoryStore store;
  NodeAuthorizer authorizer(store);
  auth::RuleSet rules;
  authorizer.RulesFor({.name = "alice", .uid = "", .groups = {}, .extra = {}},
                      "default", rules);
  EXPECT_FALSE(rules.incomplete);
  EXPECT_TRUE(rules.resource_rules.empty());
  const auth::UserInfo node{.name = "system:node:node-a",
                            .uid = "",
                            .groups = {"system:nodes"},
                            .extra = {}};
  authorizer.RulesFor(node, "default", rules);
  EXPECT_TRUE(rules.incomplete);
  bool claims_get = false;
  for (const auth::ResourceRule& rule : rules.resource_rules) {
    if (rule.resources == std::vector<std::string>{"resourceclaims"}) {
      claims_get = rule.verbs == std::vector<std::string>{"get"};
    }
  }
  EXPECT_TRUE(claims_get);
}

}  // namespace
}  // namespace dralloc::apiserver
