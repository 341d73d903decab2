#include "apiserver/impersonation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/name_patterns.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kUserHeader = "impersonate-user";
constexpr std::string_view kGroupHeader = "impersonate-group";
constexpr std::string_view kUidHeader = "impersonate-uid";
constexpr std::string_view kExtraPrefix = "impersonate-extra-";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";

// One thing the requester asks to act as, and the attributes of the
// `impersonate` check it needs.
struct ImpersonationPart {
  std::string resource;
  std::string api_group;
  std::string namespace_;
  std::string name;
  std::string subresource;
};

// "system:serviceaccount:<ns>:<name>" with valid names, as upstream's
// serviceaccount.SplitUsername accepts it.
std::optional<std::pair<std::string, std::string>> ServiceAccountOf(
    std::string_view user) {
  if (!user.starts_with(auth::kServiceAccountUserPrefix)) return std::nullopt;
  user.remove_prefix(auth::kServiceAccountUserPrefix.size());
  const size_t colon = user.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view namespace_ = user.substr(0, colon);
  const std::string_view name = user.substr(colon + 1);
  if (!MatchesDns1123LabelPattern(namespace_) ||
      !MatchesDns1123SubdomainPattern(name)) {
    return std::nullopt;
  }
  return std::pair(std::string(namespace_), std::string(name));
}

// Go's URL path unescaping of an extra key (%XX sequences); the key as
// sent when it holds a bad escape.
std::string UnescapedExtraKey(std::string_view key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') {
      out += key[i];
      continue;
    }
    if (i + 2 >= key.size() ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
      return std::string(key);
    }
    out += static_cast<char>(
        std::stoi(std::string(key.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

ApiError Malformed(const HttpRequest& request, std::string_view what) {
  return ApiError{
      500, "InternalError",
      fmt::format("Internal Server Error: \"{}\": requested {} without "
                  "impersonating a user",
                  request.path, what),
      nullptr, nullptr};
}

bool HasGroup(const std::vector<std::string>& groups, std::string_view group) {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

}  // namespace

ApiOr<auth::UserInfo> ActingUser(const HttpRequest& request,
                                 auth::UserInfo requester,
                                 const AccessControl& access) {
  if (request.impersonation_headers.empty()) return requester;
  std::optional<std::string> user_name;
  std::vector<ImpersonationPart> parts;
  auth::UserInfo acting;
  bool groups_given = false;
  bool uid_given = false;
  for (const auto& [header, value] : request.impersonation_headers) {
    if (header == kUserHeader) {
      if (!user_name) user_name = value;  // Go's Header.Get: the first
    } else if (header == kGroupHeader) {
      groups_given = true;
      acting.groups.push_back(value);
      parts.push_back({.resource = "groups", .name = value});
    } else if (header == kUidHeader) {
      if (uid_given) continue;
      uid_given = true;
      acting.uid = value;
      parts.push_back({.resource = "uids",
                       .api_group = std::string(kAuthenticationGroup),
                       .name = value});
    } else if (header.starts_with(kExtraPrefix)) {
      const std::string key = UnescapedExtraKey(
          std::string_view(header).substr(kExtraPrefix.size()));
      acting.extra[key].push_back(value);
      parts.push_back({.resource = "userextras",
                       .api_group = std::string(kAuthenticationGroup),
                       .name = value,
                       .subresource = key});
    }
  }
  if (!user_name || user_name->empty()) {
    if (parts.empty()) return requester;  // only unknown Impersonate-* names
    return Malformed(request, "groups, a uid or extras");
  }
  acting.name = *user_name;
  if (auto account = ServiceAccountOf(*user_name)) {
    parts.insert(parts.begin(), {.resource = "serviceaccounts",
                                 .namespace_ = account->first,
                                 .name = account->second});
    if (!groups_given) {
      acting.groups = {
          std::string(auth::kServiceAccountsGroup),
          fmt::format("{}:{}", auth::kServiceAccountsGroup, account->first)};
    }
  } else {
    parts.insert(parts.begin(), {.resource = "users", .name = *user_name});
  }
  for (const ImpersonationPart& part : parts) {
    auth::RequestAttributes attributes;
    attributes.user = requester;
    attributes.verb = "impersonate";
    attributes.resource_request = true;
    attributes.resource = part.resource;
    attributes.api_group = part.api_group;
    attributes.namespace_ = part.namespace_;
    attributes.name = part.name;
    attributes.subresource = part.subresource;
    if (auto refused = access.Authorize(attributes)) return *refused;
  }
  if (acting.name != auth::kAnonymousUser) {
    if (!HasGroup(acting.groups, auth::kAllAuthenticated) &&
        !HasGroup(acting.groups, auth::kAllUnauthenticated)) {
      acting.groups.emplace_back(auth::kAllAuthenticated);
    }
  } else if (!HasGroup(acting.groups, auth::kAllUnauthenticated)) {
    acting.groups.emplace_back(auth::kAllUnauthenticated);
  }
  return acting;
}

}  // namespace dralloc::apiserver
