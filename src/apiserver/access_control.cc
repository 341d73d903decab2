#include "apiserver/access_control.h"

#include <fmt/format.h>

#include <string>

#include "auth/bearer_token.h"
#include "common/log.h"

namespace dralloc::apiserver {
namespace {

// Go's %q of a plain string: quoted, with quotes and backslashes escaped.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

// upstream's responsewriters sanitizer: nothing that looks like HTML.
std::string Sanitized(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ForbiddenMessage(const auth::RequestAttributes& a) {
  const std::string user = Quoted(a.user.name);
  if (!a.resource_request) {
    return fmt::format("User {} cannot {} path {}", user, a.verb,
                       Quoted(a.path));
  }
  std::string resource = a.resource;
  if (!a.subresource.empty()) resource += "/" + a.subresource;
  if (!a.namespace_.empty()) {
    return fmt::format(
        "User {} cannot {} resource {} in API group {} in the namespace {}",
        user, a.verb, Quoted(resource), Quoted(a.api_group),
        Quoted(a.namespace_));
  }
  return fmt::format(
      "User {} cannot {} resource {} in API group {} at the cluster scope",
      user, a.verb, Quoted(resource), Quoted(a.api_group));
}

// The credentials of `request`: its bearer token, read as upstream reads
// the Authorization header, and its TLS client certificates.
auth::Credentials CredentialsOf(const HttpRequest& request) {
  auth::Credentials credentials = auth::BearerTokenCredentials(
      request.authorization, request.has_authorization);
  credentials.client_certificates_der = request.peer_certificates_der;
  return credentials;
}

}  // namespace

ApiError AccessControl::Unauthorized() {
  return ApiError{401, "Unauthorized", "Unauthorized", nullptr, nullptr};
}

ApiError AccessControl::ForbiddenFor(const auth::RequestAttributes& a,
                                     std::string_view reason) {
  std::string message = Sanitized(ForbiddenMessage(a));
  if (!reason.empty()) message += fmt::format(": {}", reason);
  ApiError error{403, "Forbidden", "", nullptr, nullptr};
  if (!a.resource_request || a.resource.empty()) {
    error.message = "forbidden: " + message;
    error.details = Json::object();
    return error;
  }
  const std::string qualified =
      a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
  error.message = a.name.empty()
                      ? fmt::format("{} is forbidden: {}", qualified, message)
                      : fmt::format("{} {} is forbidden: {}", qualified,
                                    Quoted(a.name), message);
  error.details = Json::object();
  if (!a.name.empty()) error.details["name"] = a.name;
  if (!a.api_group.empty()) error.details["group"] = a.api_group;
  error.details["kind"] = a.resource;
  return error;
}

ApiOr<auth::UserInfo> AccessControl::Authenticate(
    const HttpRequest& request) const {
  if (authenticator_ == nullptr) return auth::LoopbackUser();
  auth::AuthenticationResult result =
      authenticator_->Authenticate(CredentialsOf(request));
  if (result.outcome == auth::AuthenticationResult::Outcome::kAuthenticated) {
    return std::move(result.user);
  }
  log::Debug("apiserver", "unable to authenticate {} {} from {}: {}",
             request.method, request.path, request.remote_address,
             result.error);
  return Unauthorized();
}

auth::AuthorizationResult AccessControl::Decide(
    const auth::RequestAttributes& attributes) const {
  if (authorizer_ == nullptr) return {auth::Decision::kAllow, ""};
  return authorizer_->Authorize(attributes);
}

std::optional<ApiError> AccessControl::Authorize(
    const auth::RequestAttributes& attributes) const {
  auth::AuthorizationResult result = Decide(attributes);
  if (result.decision == auth::Decision::kAllow) return std::nullopt;
  return ForbiddenFor(attributes, result.reason);
}

auth::RuleSet AccessControl::RulesFor(const auth::UserInfo& user,
                                      std::string_view namespace_) const {
  auth::RuleSet rules;
  if (authorizer_ == nullptr) {
    auth::AlwaysAllowAuthorizer().RulesFor(user, namespace_, rules);
  } else {
    authorizer_->RulesFor(user, namespace_, rules);
  }
  return rules;
}

}  // namespace dralloc::apiserver
