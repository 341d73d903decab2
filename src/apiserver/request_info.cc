#include "apiserver/request_info.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dralloc::apiserver {
namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Exact-match terms ("a=b", "a==b") of a selector; other terms ("a!=b",
// set-based ones) restrict nothing an authorizer relies on.
std::vector<std::pair<std::string, std::string>> EqualityTerms(
    std::string_view selector) {
  std::vector<std::pair<std::string, std::string>> terms;
  while (!selector.empty()) {
    const size_t comma = selector.find(',');
    std::string_view term = selector.substr(0, comma);
    selector = comma == std::string_view::npos ? std::string_view()
                                               : selector.substr(comma + 1);
    const size_t eq = term.find('=');
    if (eq == std::string_view::npos || eq == 0 || term[eq - 1] == '!') {
      continue;
    }
    std::string_view value = term.substr(eq + 1);
    if (value.starts_with('=')) value.remove_prefix(1);
    auto trim = [](std::string_view s) {
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      return std::string(s);
    };
    terms.emplace_back(trim(term.substr(0, eq)), trim(value));
  }
  return terms;
}

bool Truthy(const std::string& value) {
  return value == "true" || value == "1" || value == "True";
}

// The resource verb of a request on a collection or an item.
std::string ResourceVerb(const HttpRequest& request, bool item) {
  const std::string& method = request.method;
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return item ? "delete" : "deletecollection";
  if (method == "GET" || method == "HEAD") {
    if (item) return "get";
    return Truthy(request.Query("watch")) ? "watch" : "list";
  }
  return Lower(method);
}

}  // namespace

auth::RequestAttributes RequestAttributesOf(const HttpRequest& request,
                                            auth::UserInfo user) {
  auth::RequestAttributes attributes;
  attributes.user = std::move(user);
  attributes.path = request.path;
  std::vector<std::string_view> parts = Segments(request.path);
  size_t i = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    attributes.api_version = std::string(parts[1]);
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    attributes.api_group = std::string(parts[1]);
    attributes.api_version = std::string(parts[2]);
    i = 3;
  }
  if (i == 0) {
    attributes.resource_request = false;
    attributes.verb = Lower(request.method);
    return attributes;
  }
  std::vector<std::string_view> rest(parts.begin() + i, parts.end());
  bool watch = false;
  if (!rest.empty() && rest[0] == "watch") {
    watch = true;
    rest.erase(rest.begin());
  }
  // namespaces/<ns>/<resource>/... addresses a namespaced resource;
  // namespaces/<ns>[/status|/finalize] the namespace itself.
  if (rest.size() >= 2 && rest[0] == "namespaces") {
    attributes.namespace_ = std::string(rest[1]);
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (!rest.empty()) attributes.resource = std::string(rest[0]);
  if (rest.size() >= 2) attributes.name = std::string(rest[1]);
  if (rest.size() >= 3) attributes.subresource = std::string(rest[2]);
  attributes.verb =
      watch ? "watch" : ResourceVerb(request, !attributes.name.empty());
  attributes.field_selector = EqualityTerms(request.Query("fieldSelector"));
  attributes.label_selector = EqualityTerms(request.Query("labelSelector"));
  // A list or watch of one name (kubectl's watch of one object) is
  // authorized for that name, as upstream does.
  if (attributes.name.empty() &&
      (attributes.verb == "list" || attributes.verb == "watch")) {
    if (const std::string* name =
            attributes.FieldSelectorValue("metadata.name")) {
      if (!name->empty() && *name != "." && *name != ".." &&
          name->find('/') == std::string::npos &&
          name->find('%') == std::string::npos) {
        attributes.name = *name;
      }
    }
  }
  return attributes;
}

}  // namespace dralloc::apiserver
