#include "simulator/node_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "allocator/offline_allocation.h"
#include "api/validation/validation.h"
#include "encoding/document_reader.h"

namespace dralloc::simulator {
namespace {

using Json = nlohmann::json;

std::string ReplaceAll(std::string text, std::string_view from,
                       std::string_view to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The decoder names its input "<field>:<line>: "; the caller names the
// field already.
std::string WithoutSourcePrefix(std::string_view message,
                                std::string_view field) {
  if (!message.starts_with(field) || message.size() == field.size() ||
      message[field.size()] != ':') {
    return std::string(message);
  }
  const size_t end = message.find(": ", field.size());
  return std::string(end == std::string_view::npos ? message
                                                   : message.substr(end + 2));
}

Status FieldError(const std::string& group, std::string_view field,
                  std::string_view detail) {
  return InvalidArgumentError(
      fmt::format("NodeGroup {}: {}: {}", group, field, detail));
}

// Decodes one embedded object, giving it apiVersion/kind when missing.
template <typename T>
StatusOr<T> DecodeEmbedded(Json value, std::string_view api_version,
                           std::string_view kind, const std::string& group,
                           const std::string& field) {
  if (!value.is_object()) {
    return FieldError(group, field, "Invalid value: must be an object");
  }
  if (!value.contains("apiVersion")) value["apiVersion"] = api_version;
  if (!value.contains("kind")) value["kind"] = kind;
  auto decoded = allocator::DecodeManifests(value.dump(), field);
  if (!decoded.ok()) {
    return FieldError(group, field,
                      WithoutSourcePrefix(decoded.status().message(), field));
  }
  if (decoded->size() != 1 || !std::holds_alternative<T>(decoded->front())) {
    return FieldError(group, field,
                      fmt::format("Invalid value: must be a {}", kind));
  }
  // Checked as the cluster's own objects are: an invalid template would
  // only fail later, on every node of the group.
  const api::ErrorList errors = api::Validate(decoded->front());
  if (!errors.empty()) {
    std::vector<std::string> messages;
    for (const api::FieldError& error : errors) {
      messages.push_back(error.ToString());
    }
    return FieldError(group, field,
                      fmt::format("{}", fmt::join(messages, "; ")));
  }
  return std::get<T>(std::move(decoded->front()));
}

StatusOr<int64_t> SizeField(const Json& spec, const char* key,
                            const std::string& group, int64_t fallback) {
  const std::string field = fmt::format("spec.{}", key);
  if (!spec.contains(key)) return fallback;
  const Json& value = spec[key];
  if (!value.is_number_integer()) {
    return FieldError(
        group, field,
        fmt::format("Invalid value: {}: must be an integer", value.dump()));
  }
  const int64_t n = value.get<int64_t>();
  if (n < 0 && std::string_view(key) != "priority") {
    return FieldError(
        group, field,
        fmt::format("Invalid value: {}: must be greater than or equal to 0",
                    n));
  }
  return n;
}

Status ParseTemplate(const Json& spec, NodeGroup& group) {
  if (!spec.contains("template") || !spec["template"].contains("node")) {
    return FieldError(group.name, "spec.template.node", "Required value");
  }
  const Json& tmpl = spec["template"];
  auto node = DecodeEmbedded<api::Node>(tmpl["node"], "v1", "Node", group.name,
                                        "spec.template.node");
  if (!node.ok()) return node.status();
  group.template_node = std::move(*node);
  if (group.template_node.metadata.name.empty()) {
    return FieldError(group.name, "spec.template.node.metadata.name",
                      "Required value");
  }
  if (!tmpl.contains("resourceSlices")) return OkStatus();
  if (!tmpl["resourceSlices"].is_array()) {
    return FieldError(group.name, "spec.template.resourceSlices",
                      "Invalid value: must be a list");
  }
  size_t index = 0;
  for (const Json& value : tmpl["resourceSlices"]) {
    auto slice = DecodeEmbedded<api::ResourceSlice>(
        value, "resource.k8s.io/v1", "ResourceSlice", group.name,
        fmt::format("spec.template.resourceSlices[{}]", index++));
    if (!slice.ok()) return slice.status();
    (slice->spec.node_name ? group.node_slices : group.shared_slices)
        .push_back(std::move(*slice));
  }
  return OkStatus();
}

StatusOr<NodeGroup> ParseGroup(const Json& doc, std::string_view where) {
  NodeGroup group;
  if (doc.contains("metadata") && doc["metadata"].contains("name") &&
      doc["metadata"]["name"].is_string()) {
    group.name = doc["metadata"]["name"].get<std::string>();
  }
  if (doc.value("apiVersion", "") != "dralloc.io/v1alpha1" ||
      doc.value("kind", "") != "NodeGroup") {
    return InvalidArgumentError(fmt::format(
        "{}: expected apiVersion dralloc.io/v1alpha1, kind NodeGroup (got {} "
        "{})",
        where, doc.value("apiVersion", ""), doc.value("kind", "")));
  }
  if (group.name.empty()) {
    return InvalidArgumentError(
        fmt::format("{}: NodeGroup: metadata.name: Required value", where));
  }
  const Json spec = doc.value("spec", Json::object());
  auto min_size = SizeField(spec, "minSize", group.name, 0);
  if (!min_size.ok()) return min_size.status();
  auto max_size = SizeField(spec, "maxSize", group.name, -1);
  if (!max_size.ok()) return max_size.status();
  if (*max_size < 0)
    return FieldError(group.name, "spec.maxSize", "Required value");
  if (*max_size < *min_size) {
    return FieldError(
        group.name, "spec.maxSize",
        fmt::format("Invalid value: {}: must be greater than or equal to "
                    "spec.minSize ({})",
                    *max_size, *min_size));
  }
  auto priority = SizeField(spec, "priority", group.name, 0);
  if (!priority.ok()) return priority.status();
  group.min_size = *min_size;
  group.max_size = *max_size;
  group.priority = *priority;
  if (Status parsed = ParseTemplate(spec, group); !parsed.ok()) return parsed;
  return group;
}

}  // namespace

api::Node NodeGroup::NewNode(const std::string& name) const {
  api::Node node = template_node;
  node.metadata.name = name;
  node.metadata.uid.clear();
  node.metadata.resource_version.clear();
  // As a kubelet registers it (and cluster-autoscaler sanitizes a
  // template): hostname topology must tell the new nodes apart.
  node.metadata.labels["kubernetes.io/hostname"] = name;
  return node;
}

std::vector<api::ResourceSlice> NodeGroup::NewSlices(
    const std::string& name) const {
  const std::string& from = template_node.metadata.name;
  std::vector<api::ResourceSlice> out;
  for (api::ResourceSlice slice : node_slices) {
    slice.metadata.name = ReplaceAll(slice.metadata.name, from, name);
    slice.spec.node_name = ReplaceAll(*slice.spec.node_name, from, name);
    slice.spec.pool.name = ReplaceAll(slice.spec.pool.name, from, name);
    out.push_back(std::move(slice));
  }
  return out;
}

StatusOr<std::vector<NodeGroup>> ParseNodeGroups(std::string_view text,
                                                 std::string_view source) {
  auto documents = encoding::ReadDocuments(text, source);
  if (!documents.ok()) return documents.status();
  std::vector<NodeGroup> groups;
  for (const encoding::Document& document : *documents) {
    const std::string where =
        fmt::format("{} (document {})", source, document.index + 1);
    Json doc = Json::parse(document.json, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      return InvalidArgumentError(where + ": not an object");
    }
    auto group = ParseGroup(doc, where);
    if (!group.ok()) return group.status();
    for (const NodeGroup& other : groups) {
      if (other.name == group->name) {
        return FieldError(group->name, "metadata.name",
                          fmt::format("Duplicate value: \"{}\"", group->name));
      }
    }
    groups.push_back(std::move(*group));
  }
  return groups;
}

}  // namespace dralloc::simulator
