#include "apiserver/table_printer.h"

#include <fmt/format.h>

#include <cctype>
#include <ctime>

namespace dralloc::apiserver {
namespace {

struct Column {
  std::string_view name;
  std::string_view description;
  int priority = 0;
};

std::vector<Column> ColumnsFor(std::string_view kind) {
  if (kind == "ResourceClaim") {
    return {{"Name", "Name of the claim"},
            {"State", "Whether the claim is allocated and reserved"},
            {"Age", "Time since creation"}};
  }
  if (kind == "ResourceSlice") {
    return {{"Name", "Name of the slice"},
            {"Node", "The node the devices are on"},
            {"Driver", "The driver publishing the devices"},
            {"Pool", "The pool the slice belongs to"},
            {"Age", "Time since creation"}};
  }
  if (kind == "Pod") {
    return {{"Name", "Name of the pod"},
            {"Status", "The pod's phase"},
            {"Age", "Time since creation"},
            {"Node", "The node the pod is bound to", 1}};
  }
  if (kind == "Event") {
    return {{"Last Seen", "Time since the event last occurred"},
            {"Type", "Normal or Warning"},
            {"Reason", "Why the event was recorded"},
            {"Object", "The object the event is about"},
            {"Message", "What happened"},
            {"Name", "Name of the event", 1}};
  }
  if (kind == "Node" || kind == "Namespace") {
    return {
        {"Name", "Name"}, {"Status", "Status"}, {"Age", "Time since creation"}};
  }
  return {{"Name", "Name of the object"}, {"Age", "Time since creation"}};
}

const Json& At(const Json& object,
               std::initializer_list<std::string_view> path) {
  static const Json kNull;
  const Json* node = &object;
  for (std::string_view part : path) {
    if (!node->is_object()) return kNull;
    auto it = node->find(std::string(part));
    if (it == node->end()) return kNull;
    node = &*it;
  }
  return *node;
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

std::string Age(const Json& object) {
  const std::string created =
      Text(At(object, {"metadata", "creationTimestamp"}));
  std::tm tm{};
  if (created.empty() ||
      strptime(created.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) {
    return "<unknown>";
  }
  const std::time_t then = timegm(&tm);
  return HumanDuration(std::chrono::seconds(std::time(nullptr) - then));
}

std::string ClaimState(const Json& claim) {
  std::vector<std::string> states;
  if (!At(claim, {"metadata", "deletionTimestamp"}).is_null()) {
    states.push_back("deleted");
  }
  const Json& allocation = At(claim, {"status", "allocation"});
  if (allocation.is_null()) {
    states.push_back("pending");
  } else {
    states.push_back("allocated");
    const Json& reserved = At(claim, {"status", "reservedFor"});
    states.push_back(reserved.is_array() && !reserved.empty() ? "reserved"
                                                              : "");
    if (states.back().empty()) states.pop_back();
  }
  std::string out;
  for (const std::string& s : states) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

Json Cells(std::string_view kind, const Json& object) {
  const std::string name = Text(At(object, {"metadata", "name"}));
  if (kind == "ResourceClaim") return {name, ClaimState(object), Age(object)};
  if (kind == "ResourceSlice") {
    std::string node = Text(At(object, {"spec", "nodeName"}));
    return {name, node.empty() ? "<none>" : node,
            Text(At(object, {"spec", "driver"})),
            Text(At(object, {"spec", "pool", "name"})), Age(object)};
  }
  if (kind == "Pod") {
    std::string node = Text(At(object, {"spec", "nodeName"}));
    return {name, Text(At(object, {"status", "phase"})), Age(object),
            node.empty() ? "<none>" : node};
  }
  if (kind == "Namespace") {
    return {name, Text(At(object, {"status", "phase"})), Age(object)};
  }
  if (kind == "Node") {
    const bool unschedulable = At(object, {"spec", "unschedulable"}) == true;
    return {name, unschedulable ? "Ready,SchedulingDisabled" : "Ready",
            Age(object)};
  }
  if (kind == "Event") {
    std::string last = Text(At(object, {"lastTimestamp"}));
    if (last.empty()) last = Text(At(object, {"eventTime"}));
    Json stamped = {{"metadata", {{"creationTimestamp", last}}}};
    const std::string involved_kind =
        Text(At(object, {"involvedObject", "kind"}));
    std::string lower(involved_kind);
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    return {last.empty() ? Age(object) : Age(stamped),
            Text(At(object, {"type"})),
            Text(At(object, {"reason"})),
            lower + "/" + Text(At(object, {"involvedObject", "name"})),
            Text(At(object, {"message"})),
            name};
  }
  return {name, Age(object)};
}

}  // namespace

bool WantsTable(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

std::string HumanDuration(std::chrono::seconds age) {
  const int64_t s = age.count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return fmt::format("{}s", s);
  const int64_t m = s / 60;
  if (m < 10) {
    return s % 60 == 0 ? fmt::format("{}m", m)
                       : fmt::format("{}m{}s", m, s % 60);
  }
  if (m < 180) return fmt::format("{}m", m);
  const int64_t h = m / 60;
  if (h < 8) {
    return m % 60 == 0 ? fmt::format("{}h", h)
                       : fmt::format("{}h{}m", h, m % 60);
  }
  if (h < 48) return fmt::format("{}h", h);
  const int64_t d = h / 24;
  if (h < 24 * 8) {
    return h % 24 == 0 ? fmt::format("{}d", d)
                       : fmt::format("{}d{}h", d, h % 24);
  }
  if (d < 365 * 2) return fmt::format("{}d", d);
  const int64_t y = d / 365;
  if (d < 365 * 8) return fmt::format("{}y{}d", y, d % 365);
  return fmt::format("{}y", y);
}

Json MakeTable(const api::ResourceInfo& info,
               const std::vector<std::string>& objects,
               const Json& list_metadata) {
  Json columns = Json::array();
  for (const Column& column : ColumnsFor(info.kind)) {
    columns.push_back({{"name", column.name},
                       {"type", "string"},
                       {"format", column.name == "Name" ? "name" : ""},
                       {"description", column.description},
                       {"priority", column.priority}});
  }
  Json rows = Json::array();
  for (const std::string& text : objects) {
    Json object = Json::parse(text, nullptr, false);
    if (object.is_discarded()) continue;
    rows.push_back({{"cells", Cells(info.kind, object)},
                    {"object",
                     {{"kind", "PartialObjectMetadata"},
                      {"apiVersion", "meta.k8s.io/v1"},
                      {"metadata", object["metadata"]}}}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", columns},
          {"rows", rows}};
}

}  // namespace dralloc::apiserver
