// RequestAttributes: what an authorizer decides on (upstream's
// authorizer.Attributes): the user, the verb, and either the resource
// addressed or a non-resource path.
#ifndef DRALLOC_AUTH_REQUEST_ATTRIBUTES_H_
#define DRALLOC_AUTH_REQUEST_ATTRIBUTES_H_

#include <string>
#include <utility>
#include <vector>

#include "auth/user_info.h"

namespace dralloc::auth {

struct RequestAttributes {
  UserInfo user;
  // Resource requests: get, list, watch, create, update, patch, delete,
  // deletecollection (and RBAC's special verbs: bind, escalate,
  // impersonate). Non-resource requests: the lower-case HTTP method
  // ("get", "post", ...).
  std::string verb;
  bool resource_request = true;
  // Non-resource requests: the URL path ("/version").
  std::string path;
  std::string api_group;  // "" for core/v1
  std::string api_version;
  std::string resource;     // plural ("resourceclaims")
  std::string subresource;  // "status", "binding", "token", ...
  std::string namespace_;   // "" for cluster scope
  std::string name;         // "" for collections
  // Exact-match requirements of a list/watch/deletecollection's field
  // selector ("spec.nodeName" = "node-a"); what the node authorizer
  // confines lists to.
  std::vector<std::pair<std::string, std::string>> field_selector;
  std::vector<std::pair<std::string, std::string>> label_selector;

  // The field selector's required value of `field`, or nullptr.
  const std::string* FieldSelectorValue(std::string_view field) const {
    for (const auto& [key, value] : field_selector) {
      if (key == field) return &value;
    }
    return nullptr;
  }
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_REQUEST_ATTRIBUTES_H_
