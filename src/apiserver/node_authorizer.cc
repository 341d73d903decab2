#include "apiserver/node_authorizer.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <vector>

#include "common/text_escape.h"

namespace dralloc::apiserver {
namespace {

using auth::Decision;

constexpr std::string_view kResourceGroup = "resource.k8s.io";
constexpr std::string_view kCoordinationGroup = "coordination.k8s.io";
constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";
// The field selector a node confines its pod and slice lists to.
constexpr std::string_view kNodeNameField = "spec.nodeName";

auth::AuthorizationResult Allow() { return {Decision::kAllow, ""}; }
auth::AuthorizationResult NoOpinion(std::string reason) {
  return {Decision::kNoOpinion, std::move(reason)};
}
auth::AuthorizationResult NoRelationship(std::string_view node) {
  return NoOpinion(fmt::format(
      "no relationship found between node '{}' and this object", node));
}

// The rules of upstream's system:node role (bootstrappolicy NodeRules)
// whose resources dralloc serves or issue 25 adds; nodes, pods, claims,
// slices, leases, secrets and configmaps are decided before these apply,
// as upstream decides them.
const std::vector<auth::ResourceRule>& StaticNodeRules() {
  static const std::vector<auth::ResourceRule> rules = {
      {{"create"}, {"authentication.k8s.io"}, {"tokenreviews"}, {}},
      {{"create"},
       {"authorization.k8s.io"},
       {"subjectaccessreviews", "localsubjectaccessreviews"},
       {}},
      {{"create", "get", "list", "watch"}, {""}, {"nodes"}, {}},
      {{"update", "patch"}, {""}, {"nodes/status"}, {}},
      {{"update", "patch"}, {""}, {"nodes"}, {}},
      {{"create", "update", "patch"}, {""}, {"events"}, {}},
      {{"get", "list", "watch"}, {""}, {"pods"}, {}},
      {{"create", "delete"}, {""}, {"pods"}, {}},
      {{"update", "patch"}, {""}, {"pods/status"}, {}},
      {{"get", "list", "watch"}, {""}, {"secrets", "configmaps"}, {}},
      {{"get", "create", "update", "patch", "delete"},
       {std::string(kCoordinationGroup)},
       {"leases"},
       {}},
      {{"create"}, {""}, {"serviceaccounts/token"}, {}},
      {{"get"}, {std::string(kResourceGroup)}, {"resourceclaims"}, {}},
  };
  return rules;
}

bool Contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool RuleAllows(const auth::ResourceRule& rule,
                const auth::RequestAttributes& attributes) {
  std::string resource = attributes.resource;
  if (!attributes.subresource.empty()) {
    resource += "/" + attributes.subresource;
  }
  return Contains(rule.verbs, attributes.verb) &&
         Contains(rule.api_groups, attributes.api_group) &&
         Contains(rule.resources, resource);
}

// The object a request names: its name, or for a list or watch the
// metadata.name its field selector requires (as upstream's request info
// takes it).
std::string_view ObjectName(const auth::RequestAttributes& attributes) {
  if (!attributes.name.empty()) return attributes.name;
  if (attributes.verb == "list" || attributes.verb == "watch") {
    if (const std::string* name =
            attributes.FieldSelectorValue("metadata.name")) {
      return *name;
    }
  }
  return {};
}

bool SelectsNode(const auth::RequestAttributes& attributes,
                 std::string_view node,
                 std::string_view field = kNodeNameField) {
  const std::string* value = attributes.FieldSelectorValue(field);
  return value != nullptr && *value == node;
}

// resource.k8s.io/v1alpha2 (Kubernetes 1.30) slices keep nodeName at the
// top level and in their own store (docs/classic-dra.md, section 3).
bool IsClassicSlice(const auth::RequestAttributes& attributes) {
  return attributes.api_version == "v1alpha2";
}

}  // namespace

NodeAuthorizer::NodeAuthorizer(store::Store& store)
    : store_(store), graph_(store) {}

auth::AuthorizationResult NodeAuthorizer::Authorize(
    const Attributes& attributes) const {
  const auth::UserInfo& user = attributes.user;
  if (!user.name.starts_with(auth::kNodeUserPrefix) ||
      !user.InGroup(auth::kNodesGroup)) {
    return NoOpinion("");
  }
  const std::string_view node = auth::NodeNameOf(user);
  if (node.empty()) {
    return NoOpinion("unknown node for user " + GoQuote(user.name));
  }
  if (attributes.resource_request) {
    const std::string_view group = attributes.api_group;
    const std::string_view resource = attributes.resource;
    if (group == kResourceGroup && resource == "resourceslices") {
      return AuthorizeResourceSlice(node, attributes);
    }
    if (group == kResourceGroup && resource == "resourceclaims") {
      return AuthorizeClaim(node, attributes);
    }
    if (group.empty() && resource == "pods") {
      return AuthorizePod(node, attributes);
    }
    if (group.empty() && resource == "nodes") {
      return AuthorizeNode(node, attributes);
    }
    if (group == kCoordinationGroup && resource == "leases") {
      return AuthorizeLease(node, attributes);
    }
    if (group.empty() && (resource == "secrets" || resource == "configmaps")) {
      return AuthorizeReadNamespaced(node, attributes);
    }
    if (group.empty() && resource == "serviceaccounts") {
      return AuthorizeCreateToken(node, attributes);
    }
  }
  return AuthorizeByStaticRules(attributes);
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeResourceSlice(
    std::string_view node, const Attributes& attributes) const {
  if (!attributes.subresource.empty()) {
    return NoOpinion("cannot authorize ResourceSlice subresources");
  }
  const std::string& verb = attributes.verb;
  if (verb == "create") {
    // The new object is not known here: NodeRestriction checks its
    // spec.nodeName.
    return Allow();
  }
  if (verb == "get" || verb == "update" || verb == "patch" ||
      verb == "delete") {
    if (attributes.name.empty()) return NoOpinion("No Object name found");
    const bool classic = IsClassicSlice(attributes);
    const std::string key =
        (classic ? "/v1alpha2/resourceslices/" : "/resourceslices/") +
        attributes.name;
    if (StoredNodeName(key, classic) == node) return Allow();
    return NoRelationship(node);
  }
  if (verb == "list" || verb == "watch" || verb == "deletecollection") {
    if (SelectsNode(attributes, node,
                    IsClassicSlice(attributes) ? "nodeName" : kNodeNameField)) {
      return Allow();
    }
    return NoOpinion(
        "can only list/watch/deletecollection resourceslices with nodeName "
        "field selector");
  }
  return NoOpinion(
      "only the following verbs are allowed for a ResourceSlice: get, watch, "
      "list, create, update, patch, delete, deletecollection");
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeClaim(
    std::string_view node, const Attributes& attributes) const {
  if (attributes.verb != "get") {
    return NoOpinion("can only get individual resources of this type");
  }
  if (!attributes.subresource.empty()) {
    return NoOpinion("cannot get subresource");
  }
  if (attributes.name.empty()) return NoOpinion("No Object name found");
  if (Related("resourceclaims", node, attributes.namespace_, attributes.name)) {
    return Allow();
  }
  return NoRelationship(node);
}

auth::AuthorizationResult NodeAuthorizer::AuthorizePod(
    std::string_view node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  const auto bound_here = [&](std::string_view name) {
    if (name.empty()) return NoOpinion("No Object name found");
    const std::string key =
        fmt::format("/pods/{}/{}", attributes.namespace_, name);
    return StoredNodeName(key) == node ? Allow() : NoRelationship(node);
  };
  if (attributes.subresource.empty()) {
    if (verb == "get") return bound_here(attributes.name);
    if (verb == "list" || verb == "watch") {
      if (SelectsNode(attributes, node)) return Allow();
      const std::string_view name = ObjectName(attributes);
      if (!name.empty()) return bound_here(name);
      return NoOpinion(
          "can only list/watch pods with spec.nodeName field selector");
    }
    // Mirror pods: NodeRestriction limits them to the node's own.
    if (verb == "create" || verb == "delete") return Allow();
  } else if (attributes.subresource == "status") {
    // NodeRestriction limits status writes to the node's own pods.
    if (verb == "update" || verb == "patch") return Allow();
  } else if (attributes.subresource == "eviction") {
    if (verb == "create") return Allow();
  }
  return NoOpinion("");
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeNode(
    std::string_view node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (attributes.subresource.empty()) {
    // NodeRestriction limits writes to the node's own object.
    if (verb == "create" || verb == "update" || verb == "patch") {
      return Allow();
    }
    if (verb == "get" || verb == "list" || verb == "watch") {
      // By name, not by graph: a node reads its Node before creating it.
      const std::string_view name = ObjectName(attributes);
      if (name == node) return Allow();
      if (name.empty()) {
        return NoOpinion(fmt::format(
            "node '{}' cannot read all nodes, only its own Node object", node));
      }
      return NoOpinion(fmt::format(
          "node '{}' cannot read '{}', only its own Node object", node, name));
    }
  } else if (attributes.subresource == "status") {
    if (verb == "update" || verb == "patch") return Allow();
  }
  return NoOpinion("");
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeLease(
    std::string_view node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (verb != "get" && verb != "create" && verb != "update" &&
      verb != "patch" && verb != "delete") {
    return NoOpinion(
        "can only get, create, update, patch, or delete a node lease");
  }
  if (attributes.namespace_ != kNodeLeaseNamespace) {
    return NoOpinion(
        fmt::format("can only access leases in the \"{}\" system namespace",
                    kNodeLeaseNamespace));
  }
  // A create's name is not known here: NodeRestriction checks it.
  if (verb != "create" && attributes.name != node) {
    return NoOpinion(
        "can only access node lease with the same name as the requesting "
        "node");
  }
  return Allow();
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeReadNamespaced(
    std::string_view node, const Attributes& attributes) const {
  const std::string& verb = attributes.verb;
  if (verb != "get" && verb != "list" && verb != "watch") {
    return NoOpinion("can only read resources of this type");
  }
  if (!attributes.subresource.empty()) {
    return NoOpinion("cannot read subresource");
  }
  if (attributes.namespace_.empty()) {
    return NoOpinion("can only read namespaced object of this type");
  }
  const std::string_view name = ObjectName(attributes);
  if (name.empty()) return NoOpinion("No Object name found");
  if (Related(attributes.resource, node, attributes.namespace_, name)) {
    return Allow();
  }
  return NoRelationship(node);
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeCreateToken(
    std::string_view node, const Attributes& attributes) const {
  if (attributes.verb != "create" || attributes.name.empty()) {
    return NoOpinion("can only create tokens for individual service accounts");
  }
  if (attributes.subresource != "token") {
    return NoOpinion("can only create token subresource of serviceaccount");
  }
  if (Related("serviceaccounts", node, attributes.namespace_,
              attributes.name)) {
    return Allow();
  }
  return NoRelationship(node);
}

auth::AuthorizationResult NodeAuthorizer::AuthorizeByStaticRules(
    const Attributes& attributes) const {
  if (!attributes.resource_request) return NoOpinion("");
  for (const auth::ResourceRule& rule : StaticNodeRules()) {
    if (RuleAllows(rule, attributes)) return Allow();
  }
  return NoOpinion("");
}

void NodeAuthorizer::RulesFor(const auth::UserInfo& user, std::string_view,
                              auth::RuleSet& rules) const {
  if (!user.name.starts_with(auth::kNodeUserPrefix) ||
      !user.InGroup(auth::kNodesGroup)) {
    return;
  }
  // What a node may do depends on the objects (its slices, its pods'
  // claims): the list cannot be complete.
  rules.incomplete = true;
  for (const auth::ResourceRule& rule : StaticNodeRules()) {
    rules.resource_rules.push_back(rule);
  }
}

std::string NodeAuthorizer::StoredNodeName(const std::string& key,
                                           bool top_level) const {
  const std::optional<store::KeyValue> kv = store_.Get(key);
  if (!kv || kv->value == nullptr) return {};
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(kv->value->data(), kv->value->size()).get(root) !=
      simdjson::SUCCESS) {
    return {};
  }
  std::string_view node;
  const auto field = top_level ? root["nodeName"] : root["spec"]["nodeName"];
  if (field.get(node) != simdjson::SUCCESS) return {};
  return std::string(node);
}

bool NodeAuthorizer::Related(std::string_view resource, std::string_view node,
                             std::string_view namespace_,
                             std::string_view name) const {
  if (graph_.UsedOnNode(resource, namespace_, name, node)) return true;
  // The graph may have caught up between the look above and now: always
  // look again once it reflects the store's current revision (the wait
  // returns at once when it does already).
  graph_.WaitForRevision(store_.Revision(), graph_wait_);
  return graph_.UsedOnNode(resource, namespace_, name, node);
}

}  // namespace dralloc::apiserver
