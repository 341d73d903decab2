#include "podresources/pod_resources_printer.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <array>
#include <cstddef>

namespace dralloc::podresources {
namespace {

constexpr std::size_t kColumns = 8;
using Row = std::array<std::string, kColumns>;

constexpr char kNone[] = "<none>";

std::string JoinCdiIds(const v1::ClaimResource& resource) {
  std::string joined;
  for (const v1::CDIDevice& device : resource.cdi_devices()) {
    if (!joined.empty()) joined += ',';
    joined += device.name();
  }
  return joined.empty() ? kNone : joined;
}

std::string OrNone(const std::string& value) {
  return value.empty() ? kNone : value;
}

// Appends the rows of one container: one per device of each claim.
void AppendContainerRows(const v1::PodResources& pod,
                         const v1::ContainerResources& container,
                         std::vector<Row>& rows) {
  const Row prefix = {pod.name(),
                      pod.namespace_(),
                      container.name(),
                      kNone,
                      kNone,
                      kNone,
                      kNone,
                      kNone};
  if (container.dynamic_resources().empty()) rows.push_back(prefix);
  for (const v1::DynamicResource& claim : container.dynamic_resources()) {
    Row claim_row = prefix;
    claim_row[3] = OrNone(claim.claim_name());
    if (claim.claim_resources().empty()) rows.push_back(claim_row);
    for (const v1::ClaimResource& resource : claim.claim_resources()) {
      Row row = claim_row;
      row[4] = OrNone(resource.driver_name());
      row[5] = OrNone(resource.pool_name());
      row[6] = OrNone(resource.device_name());
      row[7] = JoinCdiIds(resource);
      rows.push_back(std::move(row));
    }
  }
}

std::string RenderAligned(const std::vector<Row>& rows) {
  std::array<std::size_t, kColumns> widths{};
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < kColumns; ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < kColumns; ++i) {
      line += row[i];
      if (i + 1 < kColumns) line.append(widths[i] - row[i].size() + 3, ' ');
    }
    out += line + '\n';
  }
  return out;
}

}  // namespace

StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  std::string json;
  google::protobuf::util::Status status =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return InternalError(std::string("podresources: encode ") +
                         message.GetTypeName() +
                         " as JSON: " + std::string(status.message()));
  }
  if (json.empty() || json.back() != '\n') json += '\n';
  return json;
}

std::string FormatTable(const std::vector<v1::PodResources>& pods) {
  if (pods.empty()) return "No resources found.\n";
  std::vector<Row> rows = {{"POD", "NAMESPACE", "CONTAINER", "CLAIM", "DRIVER",
                            "POOL", "DEVICE", "CDI IDS"}};
  for (const v1::PodResources& pod : pods) {
    if (pod.containers().empty()) {
      rows.push_back({pod.name(), pod.namespace_(), kNone, kNone, kNone, kNone,
                      kNone, kNone});
    }
    for (const v1::ContainerResources& container : pod.containers()) {
      AppendContainerRows(pod, container, rows);
    }
  }
  return RenderAligned(rows);
}

}  // namespace dralloc::podresources
