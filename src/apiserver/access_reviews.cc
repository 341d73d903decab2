#include "apiserver/access_reviews.h"

#include <fmt/format.h>

#include <vector>

#include "auth/request_attributes.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kAuthentication = "/apis/authentication.k8s.io/";
constexpr std::string_view kAuthorization = "/apis/authorization.k8s.io/";

struct ReviewPath {
  std::string_view group_prefix;
  std::string_view version;
  std::string_view namespace_;  // LocalSubjectAccessReview only
  std::string_view resource;
};

bool KnownVersion(std::string_view version) {
  return version == "v1" || version == "v1beta1" || version == "v1alpha1";
}

std::optional<ReviewPath> ParseReviewPath(std::string_view path) {
  ReviewPath parsed;
  if (path.starts_with(kAuthentication)) {
    parsed.group_prefix = kAuthentication;
  } else if (path.starts_with(kAuthorization)) {
    parsed.group_prefix = kAuthorization;
  } else {
    return std::nullopt;
  }
  std::string_view rest = path.substr(parsed.group_prefix.size());
  std::vector<std::string_view> parts;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  if (parts.size() == 2) {
    parsed.version = parts[0];
    parsed.resource = parts[1];
  } else if (parts.size() == 4 && parts[1] == "namespaces") {
    parsed.version = parts[0];
    parsed.namespace_ = parts[2];
    parsed.resource = parts[3];
  } else {
    return std::nullopt;
  }
  if (!KnownVersion(parsed.version)) return std::nullopt;
  const bool authn = parsed.group_prefix == kAuthentication;
  const bool known =
      authn
          ? parsed.resource == "selfsubjectreviews" && parsed.namespace_.empty()
          : (parsed.namespace_.empty() &&
             (parsed.resource == "selfsubjectaccessreviews" ||
              parsed.resource == "subjectaccessreviews" ||
              parsed.resource == "selfsubjectrulesreviews")) ||
                (!parsed.namespace_.empty() &&
                 parsed.resource == "localsubjectaccessreviews");
  if (!known) return std::nullopt;
  return parsed;
}

Json UserInfoJson(const auth::UserInfo& user) {
  Json json = Json::object();
  json["username"] = user.name;
  if (!user.uid.empty()) json["uid"] = user.uid;
  if (!user.groups.empty()) json["groups"] = user.groups;
  if (!user.extra.empty()) json["extra"] = user.extra;
  return json;
}

std::string GroupVersion(std::string_view prefix, std::string_view version) {
  // "/apis/authorization.k8s.io/" -> "authorization.k8s.io/v1"
  std::string_view group = prefix.substr(6, prefix.size() - 7);
  return fmt::format("{}/{}", group, version);
}

ApiOr<Json> ParseBody(std::string_view body, std::string_view kind) {
  Json json = Json::parse(body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return BadRequest(
        fmt::format("the body of the {} is not a JSON object", kind));
  }
  return json;
}

std::string StringAt(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>()
                                               : std::string();
}

// The request attributes a SubjectAccessReview spec describes.
auth::RequestAttributes AttributesOfSpec(const Json& spec) {
  auth::RequestAttributes a;
  auto resource = spec.find("resourceAttributes");
  auto non_resource = spec.find("nonResourceAttributes");
  if (resource != spec.end() && resource->is_object()) {
    a.resource_request = true;
    a.namespace_ = StringAt(*resource, "namespace");
    a.verb = StringAt(*resource, "verb");
    a.api_group = StringAt(*resource, "group");
    a.api_version = StringAt(*resource, "version");
    a.resource = StringAt(*resource, "resource");
    a.subresource = StringAt(*resource, "subresource");
    a.name = StringAt(*resource, "name");
  } else if (non_resource != spec.end() && non_resource->is_object()) {
    a.resource_request = false;
    a.path = StringAt(*non_resource, "path");
    a.verb = StringAt(*non_resource, "verb");
  }
  return a;
}

Json RulesJson(const auth::RuleSet& rules) {
  Json resource_rules = Json::array();
  for (const auth::ResourceRule& rule : rules.resource_rules) {
    Json r = {{"verbs", rule.verbs}};
    if (!rule.api_groups.empty()) r["apiGroups"] = rule.api_groups;
    if (!rule.resources.empty()) r["resources"] = rule.resources;
    if (!rule.resource_names.empty()) r["resourceNames"] = rule.resource_names;
    resource_rules.push_back(std::move(r));
  }
  Json non_resource_rules = Json::array();
  for (const auth::NonResourceRule& rule : rules.non_resource_rules) {
    Json r = {{"verbs", rule.verbs}};
    if (!rule.non_resource_urls.empty()) {
      r["nonResourceURLs"] = rule.non_resource_urls;
    }
    non_resource_rules.push_back(std::move(r));
  }
  Json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", std::move(non_resource_rules)},
                 {"incomplete", rules.incomplete}};
  if (!rules.evaluation_error.empty()) {
    status["evaluationError"] = rules.evaluation_error;
  }
  return status;
}

}  // namespace

bool AccessReviews::Handles(std::string_view path) {
  return ParseReviewPath(path).has_value();
}

std::string_view AccessReviews::KindOf(std::string_view path) {
  std::optional<ReviewPath> review = ParseReviewPath(path);
  if (!review) return {};
  if (review->resource == "selfsubjectreviews") return "SelfSubjectReview";
  if (review->resource == "selfsubjectrulesreviews") {
    return "SelfSubjectRulesReview";
  }
  if (review->resource == "selfsubjectaccessreviews") {
    return "SelfSubjectAccessReview";
  }
  return review->namespace_.empty() ? "SubjectAccessReview"
                                    : "LocalSubjectAccessReview";
}

ApiOr<std::string> AccessReviews::Create(std::string_view method,
                                         std::string_view path,
                                         std::string_view body,
                                         const auth::UserInfo& user) const {
  std::optional<ReviewPath> review = ParseReviewPath(path);
  if (!review) return NotFoundPath(path);
  if (method != "POST") {
    return MethodNotAllowed(
        fmt::format("the server does not allow this method on the "
                    "requested resource: {} is create-only",
                    review->resource));
  }
  if (review->resource == "selfsubjectreviews") {
    return SelfSubjectReview(review->version, user);
  }
  if (review->resource == "selfsubjectrulesreviews") {
    return RulesReview(review->version, body, user);
  }
  const bool self = review->resource == "selfsubjectaccessreviews";
  const std::string_view kind =
      self ? "SelfSubjectAccessReview"
           : (review->namespace_.empty() ? "SubjectAccessReview"
                                         : "LocalSubjectAccessReview");
  return AccessReview(kind, review->version, review->namespace_, body,
                      self ? &user : nullptr);
}

ApiOr<std::string> AccessReviews::SelfSubjectReview(
    std::string_view version, const auth::UserInfo& user) const {
  Json review = {{"kind", "SelfSubjectReview"},
                 {"apiVersion", GroupVersion(kAuthentication, version)},
                 {"metadata", {{"creationTimestamp", nullptr}}},
                 {"status", {{"userInfo", UserInfoJson(user)}}}};
  return review.dump();
}

ApiOr<std::string> AccessReviews::AccessReview(
    std::string_view kind, std::string_view version,
    std::string_view namespace_, std::string_view body,
    const auth::UserInfo* self) const {
  auto parsed = ParseBody(body, kind);
  if (!parsed.ok()) return parsed.error();
  Json& review = *parsed;
  Json spec = review.contains("spec") && review["spec"].is_object()
                  ? review["spec"]
                  : Json::object();
  auth::RequestAttributes attributes = AttributesOfSpec(spec);
  const bool has_resource = spec.contains("resourceAttributes");
  const bool has_non_resource = spec.contains("nonResourceAttributes");
  if (has_resource == has_non_resource) {
    api::ErrorList errors;
    const api::FieldPath spec_path("spec");
    errors.push_back(api::Required(
        spec_path.Child("resourceAttributes"),
        "exactly one of nonResourceAttributes or resourceAttributes must "
        "be specified"));
    api::ResourceInfo info;
    info.kind = kind;
    info.group = "authorization.k8s.io";
    return Invalid(info, "", errors);
  }
  if (self != nullptr) {
    attributes.user = *self;
  } else {
    attributes.user.name = StringAt(spec, "user");
    attributes.user.uid = StringAt(spec, "uid");
    if (spec.contains("groups") && spec["groups"].is_array()) {
      for (const Json& g : spec["groups"]) {
        if (g.is_string()) attributes.user.groups.push_back(g);
      }
    }
    if (spec.contains("extra") && spec["extra"].is_object()) {
      for (const auto& [key, values] : spec["extra"].items()) {
        if (!values.is_array()) continue;
        for (const Json& v : values) {
          if (v.is_string()) attributes.user.extra[key].push_back(v);
        }
      }
    }
  }
  if (!namespace_.empty()) attributes.namespace_ = std::string(namespace_);
  const auth::AuthorizationResult result = access_.Decide(attributes);
  Json status = {{"allowed", result.decision == auth::Decision::kAllow}};
  if (result.decision == auth::Decision::kDeny) status["denied"] = true;
  if (!result.reason.empty()) status["reason"] = result.reason;
  review["kind"] = kind;
  review["apiVersion"] = GroupVersion(kAuthorization, version);
  if (!review.contains("metadata") || !review["metadata"].is_object()) {
    review["metadata"] = Json::object();
  }
  review["metadata"]["creationTimestamp"] = nullptr;
  review["status"] = std::move(status);
  return review.dump();
}

ApiOr<std::string> AccessReviews::RulesReview(
    std::string_view version, std::string_view body,
    const auth::UserInfo& user) const {
  auto parsed = ParseBody(body, "SelfSubjectRulesReview");
  if (!parsed.ok()) return parsed.error();
  Json& review = *parsed;
  std::string namespace_;
  if (review.contains("spec"))
    namespace_ = StringAt(review["spec"], "namespace");
  review["kind"] = "SelfSubjectRulesReview";
  review["apiVersion"] = GroupVersion(kAuthorization, version);
  if (!review.contains("metadata") || !review["metadata"].is_object()) {
    review["metadata"] = Json::object();
  }
  review["metadata"]["creationTimestamp"] = nullptr;
  review["status"] = RulesJson(access_.RulesFor(user, namespace_));
  return review.dump();
}

}  // namespace dralloc::apiserver
