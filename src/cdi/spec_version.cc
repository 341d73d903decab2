#include "cdi/spec_version.h"

#include <array>
#include <functional>
#include <optional>
#include <utility>

namespace dralloc::cdi {
namespace {

// Oldest first; the last one is the latest.
constexpr std::array<std::string_view, 8> kAllVersions = {
    "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};

// The field path of the first use of a feature, or nullopt.
using FieldFinder = std::optional<std::string> (*)(const Spec&);

// Calls `check(prefix, edits)` for the spec-level edits, then for each
// device's edits, and returns the first path it yields.
std::optional<std::string> FindInEdits(
    const Spec& spec,
    const std::function<std::optional<std::string>(const ContainerEdits&)>&
        check) {
  if (auto field = check(spec.container_edits)) {
    return "containerEdits." + *field;
  }
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    if (auto field = check(spec.devices[i].container_edits)) {
      return "devices[" + std::to_string(i) + "].containerEdits." + *field;
    }
  }
  return std::nullopt;
}

std::optional<std::string> UsesV110(const Spec& spec) {
  return FindInEdits(spec,
                     [](const ContainerEdits& e) -> std::optional<std::string> {
                       if (e.intel_rdt && !e.intel_rdt->schemata.empty()) {
                         return "intelRdt.schemata";
                       }
                       if (e.intel_rdt && e.intel_rdt->enable_monitoring) {
                         return "intelRdt.enableMonitoring";
                       }
                       if (!e.net_devices.empty()) return "netDevices";
                       return std::nullopt;
                     });
}

std::optional<std::string> UsesV070(const Spec& spec) {
  return FindInEdits(spec,
                     [](const ContainerEdits& e) -> std::optional<std::string> {
                       if (e.intel_rdt) return "intelRdt";
                       if (!e.additional_gids.empty()) return "additionalGids";
                       return std::nullopt;
                     });
}

std::optional<std::string> UsesV060(const Spec& spec) {
  if (!spec.annotations.empty()) return "annotations";
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    if (!spec.devices[i].annotations.empty()) {
      return "devices[" + std::to_string(i) + "].annotations";
    }
  }
  // A '.' in the class part of the kind.
  size_t slash = spec.kind.find('/');
  if (slash != std::string::npos &&
      spec.kind.find('.', slash + 1) != std::string::npos) {
    return "kind";
  }
  return std::nullopt;
}

std::optional<std::string> UsesV050(const Spec& spec) {
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const std::string& name = spec.devices[i].name;
    if (!name.empty() && name[0] >= '0' && name[0] <= '9') {
      return "devices[" + std::to_string(i) + "].name";
    }
  }
  return FindInEdits(
      spec, [](const ContainerEdits& e) -> std::optional<std::string> {
        for (size_t j = 0; j < e.device_nodes.size(); ++j) {
          if (!e.device_nodes[j].host_path.empty()) {
            return "deviceNodes[" + std::to_string(j) + "].hostPath";
          }
        }
        return std::nullopt;
      });
}

std::optional<std::string> UsesV040(const Spec& spec) {
  return FindInEdits(spec,
                     [](const ContainerEdits& e) -> std::optional<std::string> {
                       for (size_t j = 0; j < e.mounts.size(); ++j) {
                         if (!e.mounts[j].type.empty()) {
                           return "mounts[" + std::to_string(j) + "].type";
                         }
                       }
                       return std::nullopt;
                     });
}

// Newest first. 0.8.0 and 1.0.0 changed no spec field, so nothing needs them.
constexpr std::array<std::pair<std::string_view, FieldFinder>, 5> kRules = {{
    {"1.1.0", &UsesV110},
    {"0.7.0", &UsesV070},
    {"0.6.0", &UsesV060},
    {"0.5.0", &UsesV050},
    {"0.4.0", &UsesV040},
}};

}  // namespace

std::span<const std::string_view> SupportedSpecVersions() {
  return kAllVersions;
}

std::string_view LatestSpecVersion() { return kAllVersions.back(); }

int SpecVersionIndex(std::string_view version) {
  if (version.starts_with('v')) version.remove_prefix(1);
  for (size_t i = 0; i < kAllVersions.size(); ++i) {
    if (kAllVersions[i] == version) return static_cast<int>(i);
  }
  return -1;
}

VersionRequirement RequiredSpecVersion(const Spec& spec) {
  for (const auto& [version, uses] : kRules) {
    if (auto field = uses(spec)) {
      return {std::string(version), std::move(*field)};
    }
  }
  return {std::string(kAllVersions.front()), ""};
}

}  // namespace dralloc::cdi
