#include "serviceaccount/service_account_claims.h"

#include <fmt/format.h>

namespace dralloc::serviceaccount {
namespace {

using Json = nlohmann::json;

constexpr char kKubernetesClaim[] = "kubernetes.io";

Json RefJson(const ObjectRef& ref) {
  Json json = Json::object();
  if (!ref.name.empty()) json["name"] = ref.name;
  if (!ref.uid.empty()) json["uid"] = ref.uid;
  return json;
}

Status WrongType(std::string_view claim, std::string_view expected) {
  return InvalidArgumentError(
      fmt::format("claim {} is not {}", claim, expected));
}

StatusOr<std::string> StringClaim(const Json& object, const char* key,
                                  std::string_view claim) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::string();
  if (!found->is_string()) return WrongType(claim, "a string");
  return found->get<std::string>();
}

StatusOr<int64_t> TimeClaim(const Json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return int64_t{0};
  if (!found->is_number()) return WrongType(key, "a number");
  return static_cast<int64_t>(found->get<double>());
}

StatusOr<std::vector<std::string>> AudienceClaim(const Json& payload) {
  auto found = payload.find("aud");
  if (found == payload.end() || found->is_null()) {
    return std::vector<std::string>{};
  }
  if (found->is_string()) {
    return std::vector<std::string>{found->get<std::string>()};
  }
  if (!found->is_array()) return WrongType("aud", "a string or a list");
  std::vector<std::string> audiences;
  for (const Json& audience : *found) {
    if (!audience.is_string()) return WrongType("aud", "a list of strings");
    audiences.push_back(audience.get<std::string>());
  }
  return audiences;
}

StatusOr<std::optional<ObjectRef>> RefClaim(const Json& kubernetes,
                                            const char* key) {
  auto found = kubernetes.find(key);
  if (found == kubernetes.end() || found->is_null()) {
    return std::optional<ObjectRef>();
  }
  const std::string claim = fmt::format("{}.{}", kKubernetesClaim, key);
  if (!found->is_object()) return WrongType(claim, "an object");
  ObjectRef ref;
  ASSIGN_OR_RETURN(ref.name, StringClaim(*found, "name", claim + ".name"));
  ASSIGN_OR_RETURN(ref.uid, StringClaim(*found, "uid", claim + ".uid"));
  return std::optional<ObjectRef>(std::move(ref));
}

Status ReadPrivateClaims(const Json& payload, ServiceAccountClaims& claims) {
  auto found = payload.find(kKubernetesClaim);
  if (found == payload.end() || !found->is_object()) {
    return InvalidArgumentError("the kubernetes.io claims are missing");
  }
  const Json& kubernetes = *found;
  ASSIGN_OR_RETURN(claims.namespace_,
                   StringClaim(kubernetes, "namespace", "namespace"));
  std::optional<ObjectRef> service_account;
  ASSIGN_OR_RETURN(service_account, RefClaim(kubernetes, "serviceaccount"));
  if (!service_account.has_value() || claims.namespace_.empty()) {
    return InvalidArgumentError(
        "the kubernetes.io claims name no service account");
  }
  claims.service_account = *service_account;
  ASSIGN_OR_RETURN(claims.pod, RefClaim(kubernetes, "pod"));
  ASSIGN_OR_RETURN(claims.secret, RefClaim(kubernetes, "secret"));
  ASSIGN_OR_RETURN(claims.node, RefClaim(kubernetes, "node"));
  return OkStatus();
}

}  // namespace

std::string ServiceAccountUserName(std::string_view namespace_,
                                   std::string_view name) {
  return fmt::format("{}{}:{}", auth::kServiceAccountUserPrefix, namespace_,
                     name);
}

std::string ServiceAccountClaims::Subject() const {
  return ServiceAccountUserName(namespace_, service_account.name);
}

nlohmann::json ServiceAccountClaims::ToJson() const {
  Json payload = Json::object();
  payload["aud"] = audiences;
  payload["exp"] = expiry;
  payload["iat"] = issued_at;
  payload["iss"] = issuer;
  if (!id.empty()) payload["jti"] = id;
  Json kubernetes = {{"namespace", namespace_},
                     {"serviceaccount", RefJson(service_account)}};
  if (pod.has_value()) kubernetes["pod"] = RefJson(*pod);
  if (secret.has_value()) kubernetes["secret"] = RefJson(*secret);
  if (node.has_value()) kubernetes["node"] = RefJson(*node);
  payload[kKubernetesClaim] = std::move(kubernetes);
  payload["nbf"] = not_before;
  payload["sub"] = Subject();
  return payload;
}

StatusOr<ServiceAccountClaims> ServiceAccountClaims::FromJson(
    const nlohmann::json& json) {
  if (!json.is_object()) {
    return InvalidArgumentError("the token payload is not a JSON object");
  }
  ServiceAccountClaims claims;
  ASSIGN_OR_RETURN(claims.issuer, StringClaim(json, "iss", "iss"));
  ASSIGN_OR_RETURN(claims.audiences, AudienceClaim(json));
  ASSIGN_OR_RETURN(claims.expiry, TimeClaim(json, "exp"));
  ASSIGN_OR_RETURN(claims.issued_at, TimeClaim(json, "iat"));
  ASSIGN_OR_RETURN(claims.not_before, TimeClaim(json, "nbf"));
  ASSIGN_OR_RETURN(claims.id, StringClaim(json, "jti", "jti"));
  RETURN_IF_ERROR(ReadPrivateClaims(json, claims));
  std::string subject;
  ASSIGN_OR_RETURN(subject, StringClaim(json, "sub", "sub"));
  if (!subject.empty() && subject != claims.Subject()) {
    return InvalidArgumentError(fmt::format(
        "sub {} does not name the service account of the kubernetes.io "
        "claims",
        subject));
  }
  return claims;
}

auth::UserInfo UserInfoFor(const ServiceAccountClaims& claims) {
  auth::UserInfo user;
  user.name = claims.Subject();
  user.uid = claims.service_account.uid;
  user.groups = {
      std::string(auth::kServiceAccountsGroup),
      fmt::format("{}:{}", auth::kServiceAccountsGroup, claims.namespace_)};
  if (claims.pod.has_value() && !claims.pod->name.empty() &&
      !claims.pod->uid.empty()) {
    user.extra[std::string(kExtraPodName)] = {claims.pod->name};
    user.extra[std::string(kExtraPodUid)] = {claims.pod->uid};
  }
  if (!claims.id.empty()) {
    user.extra[std::string(kExtraCredentialId)] = {"JTI=" + claims.id};
  }
  if (claims.node.has_value() && !claims.node->name.empty()) {
    user.extra[std::string(auth::kExtraNodeName)] = {claims.node->name};
    if (!claims.node->uid.empty()) {
      user.extra[std::string(kExtraNodeUid)] = {claims.node->uid};
    }
  }
  return user;
}

}  // namespace dralloc::serviceaccount
