#include "patch/internal/field_set.h"

#include <algorithm>
#include <iterator>

#include "patch/patch_json.h"

namespace dralloc::patch::internal {

bool StartsWith(const FieldPath& path, const FieldPath& prefix) {
  return path.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), path.begin());
}

// True when `set` holds `path` or a path below it.
bool HasOwnedDescendant(const FieldSet& set, const FieldPath& path) {
  auto it = set.lower_bound(path);
  return it != set.end() && StartsWith(*it, path);
}

void Insert(FieldSet& set, const FieldPath& path) {
  if (!path.empty()) set.insert(path);
}

FieldSet Difference(const FieldSet& a, const FieldSet& b) {
  FieldSet out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                      std::inserter(out, out.end()));
  return out;
}

FieldSet Intersection(const FieldSet& a, const FieldSet& b) {
  FieldSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::inserter(out, out.end()));
  return out;
}

// Fields that are never recorded as managed (upstream stripmeta): the
// element itself for "metadata", the whole subtree for the others.
void RemoveIgnored(FieldSet& set) {
  static const std::vector<FieldPath> kIgnoredSubtrees = {
      {"f:apiVersion"},
      {"f:kind"},
      {"f:metadata", "f:name"},
      {"f:metadata", "f:namespace"},
      {"f:metadata", "f:uid"},
      {"f:metadata", "f:resourceVersion"},
      {"f:metadata", "f:generation"},
      {"f:metadata", "f:creationTimestamp"},
      {"f:metadata", "f:selfLink"},
      {"f:metadata", "f:managedFields"},
  };
  set.erase(FieldPath{"f:metadata"});
  for (const FieldPath& ignored : kIgnoredSubtrees) {
    auto it = set.lower_bound(ignored);
    while (it != set.end() && StartsWith(*it, ignored)) it = set.erase(it);
  }
}

// Go's %q for the printable ASCII that manager names and list keys are made
// of: only '"' and '\\' are escaped. Not GoQuote (common/text_escape.h),
// which also escapes control characters, DEL, invalid UTF-8 and non-printable
// runes: manager names are not validated here, so switching would change
// conflict messages for such names.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"]".
std::string HumanPath(const FieldPath& path) {
  std::string out;
  for (const std::string& token : path) {
    std::string_view body = std::string_view(token).substr(2);
    if (token.starts_with("f:")) {
      out += '.';
      out += body;
    } else if (token.starts_with("k:")) {
      Json key = Json::parse(body, nullptr, /*allow_exceptions=*/false);
      out += '[';
      bool first = true;
      if (key.is_object()) {
        for (const auto& [name, value] : key.items()) {
          if (!first) out += ',';
          first = false;
          out += name + "=" + DumpCompact(value);
        }
      }
      out += ']';
    } else if (token.starts_with("v:")) {
      out += "[=";
      out += body;
      out += ']';
    } else {
      out += '[';
      out += token;
      out += ']';
    }
  }
  return out;
}

}  // namespace dralloc::patch::internal
