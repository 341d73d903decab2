#include "serviceaccount/token_request_handler.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <optional>
#include <variant>

#include "common/clock.h"

namespace dralloc::serviceaccount {
namespace {

using Json = nlohmann::ordered_json;

constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 600;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
constexpr char kGroup[] = "authentication.k8s.io";

// spec.boundObjectRef as sent.
struct BoundRef {
  std::string kind;
  std::string api_version;
  std::string name;
  std::string uid;
};

struct ParsedRequest {
  std::string name;
  std::string namespace_;
  std::vector<std::string> audiences;
  int64_t expiration_seconds = kDefaultExpirationSeconds;
  std::optional<BoundRef> bound;
};

TokenRequestResponse Failure(int code, std::string_view reason,
                             std::string message, Json details) {
  Json status = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", Json::object()},
                 {"status", "Failure"},
                 {"message", std::move(message)},
                 {"reason", std::string(reason)}};
  if (!details.is_null()) status["details"] = std::move(details);
  status["code"] = code;
  return {code, std::move(status)};
}

TokenRequestResponse BadRequest(std::string message) {
  return Failure(400, "BadRequest", std::move(message), nullptr);
}

TokenRequestResponse NotFound(std::string_view resource,
                              std::string_view name) {
  return Failure(
      404, "NotFound", fmt::format("{} \"{}\" not found", resource, name),
      {{"name", std::string(name)}, {"kind", std::string(resource)}});
}

// 422 for one field error of the TokenRequest named `name`.
TokenRequestResponse Invalid(std::string_view name, std::string_view field,
                             std::string_view bad_value,
                             std::string_view detail) {
  const std::string cause =
      fmt::format("Invalid value: {}: {}", bad_value, detail);
  return Failure(422, "Invalid",
                 fmt::format("TokenRequest.{} \"{}\" is invalid: {}: {}",
                             kGroup, name, field, cause),
                 {{"name", name},
                  {"group", kGroup},
                  {"kind", "TokenRequest"},
                  {"causes", Json::array({{{"reason", "FieldValueInvalid"},
                                           {"message", cause},
                                           {"field", std::string(field)}}})}});
}

std::string Quoted(std::string_view value) {
  return fmt::format("\"{}\"", value);
}

std::string StringMember(const Json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>()
                                                     : std::string();
}

std::optional<BoundRef> ParseBoundRef(const Json& spec) {
  auto found = spec.find("boundObjectRef");
  if (found == spec.end() || !found->is_object()) return std::nullopt;
  return BoundRef{.kind = StringMember(*found, "kind"),
                  .api_version = StringMember(*found, "apiVersion"),
                  .name = StringMember(*found, "name"),
                  .uid = StringMember(*found, "uid")};
}

std::variant<ParsedRequest, TokenRequestResponse> ParseRequest(
    std::string_view body) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return BadRequest("the TokenRequest body is not a JSON object");
  }
  ParsedRequest request;
  if (auto meta = json.find("metadata");
      meta != json.end() && meta->is_object()) {
    request.name = StringMember(*meta, "name");
    request.namespace_ = StringMember(*meta, "namespace");
  }
  const Json spec = json.value("spec", Json::object());
  if (!spec.is_object()) return BadRequest("spec must be an object");
  for (const Json& audience : spec.value("audiences", Json::array())) {
    if (!audience.is_string()) {
      return BadRequest("spec.audiences must be a list of strings");
    }
    request.audiences.push_back(audience.get<std::string>());
  }
  if (auto seconds = spec.find("expirationSeconds");
      seconds != spec.end() && !seconds->is_null()) {
    if (!seconds->is_number_integer()) {
      return BadRequest("spec.expirationSeconds must be an integer");
    }
    request.expiration_seconds = seconds->get<int64_t>();
  }
  request.bound = ParseBoundRef(spec);
  return request;
}

std::string FormatUnixTime(int64_t seconds) {
  const std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec);
}

// The metadata and spec checks upstream makes before any lookup.
std::optional<TokenRequestResponse> ValidateRequest(
    const ParsedRequest& request, std::string_view namespace_,
    std::string_view name) {
  if (!request.name.empty() && request.name != name) {
    return Invalid(name, "metadata.name", Quoted(request.name),
                   "must match the service account name if specified");
  }
  if (!request.namespace_.empty() && request.namespace_ != namespace_) {
    return Invalid(name, "metadata.namespace", Quoted(request.namespace_),
                   "must match the service account namespace if specified");
  }
  const std::string seconds = std::to_string(request.expiration_seconds);
  if (request.expiration_seconds < kMinExpirationSeconds) {
    return Invalid("", "spec.expirationSeconds", seconds,
                   "may not specify a duration less than 10 minutes");
  }
  if (request.expiration_seconds > kMaxExpirationSeconds) {
    return Invalid("", "spec.expirationSeconds", seconds,
                   "may not specify a duration larger than 2^32 seconds");
  }
  return std::nullopt;
}

// "<group>/<version>, Kind=<kind>" as Go's GroupVersionKind.String().
std::string GroupVersionKindText(const BoundRef& ref, std::string* group) {
  const size_t slash = ref.api_version.find('/');
  *group = slash == std::string::npos ? "" : ref.api_version.substr(0, slash);
  const std::string version = slash == std::string::npos
                                  ? ref.api_version
                                  : ref.api_version.substr(slash + 1);
  return fmt::format("{}/{}, Kind={}", *group, version, ref.kind);
}

TokenRequestResponse UidConflict(const BoundRef& ref) {
  return Failure(
      409, "Conflict",
      fmt::format("Operation cannot be fulfilled on {} \"{}\": the UID in "
                  "the bound object reference ({}) does not match the UID in "
                  "record. The object might have been deleted and then "
                  "recreated",
                  ref.kind, ref.name, ref.uid),
      {{"name", ref.name}, {"kind", ref.kind}});
}

// Binds to the pod `ref` names, which must run as service account `name`;
// the pod's node goes into the claims too.
std::optional<TokenRequestResponse> BindPod(const ObjectLookup& lookup,
                                            std::string_view namespace_,
                                            std::string_view name,
                                            const BoundRef& ref,
                                            ServiceAccountClaims& claims) {
  std::optional<ObjectRecord> pod = lookup.Pod(namespace_, ref.name);
  if (!pod.has_value()) return NotFound("pods", ref.name);
  if (pod->service_account_name != name) {
    return BadRequest(fmt::format(
        "cannot bind token for serviceaccount \"{}\" to pod running with "
        "different serviceaccount name.",
        name));
  }
  if (!ref.uid.empty() && ref.uid != pod->uid) return UidConflict(ref);
  claims.pod = ObjectRef{ref.name, pod->uid};
  if (!pod->node_name.empty()) {
    // A missing node still leaves its name in the claims.
    std::optional<ObjectRecord> node = lookup.Node(pod->node_name);
    claims.node =
        ObjectRef{pod->node_name, node.has_value() ? node->uid : std::string()};
  }
  return std::nullopt;
}

// Fills the bound-object claims of `ref`, or says why it cannot bind.
std::optional<TokenRequestResponse> Bind(const ObjectLookup& lookup,
                                         std::string_view namespace_,
                                         std::string_view name,
                                         const BoundRef& ref,
                                         ServiceAccountClaims& claims) {
  std::string group;
  const std::string gvk = GroupVersionKindText(ref, &group);
  if (!group.empty() ||
      (ref.kind != "Pod" && ref.kind != "Secret" && ref.kind != "Node")) {
    return BadRequest(
        fmt::format("cannot bind token to object of type {}", gvk));
  }
  if (ref.kind == "Pod") return BindPod(lookup, namespace_, name, ref, claims);
  const bool secret = ref.kind == "Secret";
  std::optional<ObjectRecord> object =
      secret ? lookup.Secret(namespace_, ref.name) : lookup.Node(ref.name);
  if (!object.has_value()) {
    return NotFound(secret ? "secrets" : "nodes", ref.name);
  }
  if (!ref.uid.empty() && ref.uid != object->uid) return UidConflict(ref);
  (secret ? claims.secret : claims.node) = ObjectRef{ref.name, object->uid};
  return std::nullopt;
}

Json ResponseBody(const ParsedRequest& request, std::string_view namespace_,
                  std::string_view name, int64_t now, std::string token) {
  Json bound = nullptr;
  if (request.bound.has_value()) {
    const BoundRef& ref = *request.bound;
    bound = Json::object();
    if (!ref.kind.empty()) bound["kind"] = ref.kind;
    if (!ref.api_version.empty()) bound["apiVersion"] = ref.api_version;
    if (!ref.name.empty()) bound["name"] = ref.name;
    if (!ref.uid.empty()) bound["uid"] = ref.uid;
  }
  return {{"kind", "TokenRequest"},
          {"apiVersion", "authentication.k8s.io/v1"},
          {"metadata",
           {{"name", std::string(name)},
            {"namespace", std::string(namespace_)},
            {"creationTimestamp", FormatUnixTime(now)}}},
          {"spec",
           {{"audiences", request.audiences},
            {"expirationSeconds", request.expiration_seconds},
            {"boundObjectRef", std::move(bound)}}},
          {"status",
           {{"token", std::move(token)},
            {"expirationTimestamp",
             FormatUnixTime(now + request.expiration_seconds)}}}};
}

}  // namespace

TokenRequestHandler::TokenRequestHandler(const TokenSigner& signer,
                                         const ObjectLookup& lookup,
                                         TokenRequestOptions options)
    : signer_(signer), lookup_(lookup), options_(std::move(options)) {
  if (options_.api_audiences.empty()) {
    options_.api_audiences = {signer_.issuer()};
  }
  if (!options_.new_token_id) options_.new_token_id = [] { return NewUid(); };
}

TokenRequestResponse TokenRequestHandler::Handle(std::string_view namespace_,
                                                 std::string_view name,
                                                 std::string_view body) const {
  auto parsed = ParseRequest(body);
  if (auto* failure = std::get_if<TokenRequestResponse>(&parsed)) {
    return std::move(*failure);
  }
  ParsedRequest& request = std::get<ParsedRequest>(parsed);
  std::optional<ObjectRecord> account =
      lookup_.ServiceAccount(namespace_, name);
  if (!account.has_value()) return NotFound("serviceaccounts", name);
  if (request.audiences.empty()) request.audiences = options_.api_audiences;
  if (auto invalid = ValidateRequest(request, namespace_, name)) {
    return std::move(*invalid);
  }
  ServiceAccountClaims claims;
  claims.namespace_ = std::string(namespace_);
  claims.service_account = ObjectRef{std::string(name), account->uid};
  if (request.bound.has_value()) {
    if (auto failure =
            Bind(lookup_, namespace_, name, *request.bound, claims)) {
      return std::move(*failure);
    }
  }
  if (options_.max_expiration_seconds > 0 &&
      request.expiration_seconds > options_.max_expiration_seconds) {
    request.expiration_seconds = options_.max_expiration_seconds;
  }
  const int64_t now = options_.clock();
  claims.audiences = request.audiences;
  claims.issued_at = now;
  claims.not_before = now;
  claims.expiry = now + request.expiration_seconds;
  claims.id = options_.new_token_id();
  StatusOr<std::string> token = signer_.Sign(std::move(claims));
  if (!token.ok()) {
    return Failure(500, "InternalError",
                   "Internal error occurred: failed to generate token: " +
                       token.status().message(),
                   nullptr);
  }
  return {201, ResponseBody(request, namespace_, name, now, std::move(*token))};
}

}  // namespace dralloc::serviceaccount
