#include "cdi/spec_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "cdi/internal/field_error.h"
#include "cdi/qualified_name.h"
#include "cdi/spec_version.h"
#include "common/name_patterns.h"

namespace dralloc::cdi {
namespace {

using internal::Child;
using internal::Index;

constexpr std::array<std::string_view, 6> kHookNames = {
    "prestart",       "createRuntime", "createContainer",
    "startContainer", "poststart",     "poststop"};
constexpr std::array<std::string_view, 4> kDeviceNodeTypes = {"b", "c", "u",
                                                              "p"};
// Kubernetes' limit on the total size of an object's annotations.
constexpr size_t kMaxAnnotationBytes = 256 * 1024;

Status CheckEnv(const std::vector<std::string>& env, std::string_view path) {
  for (size_t i = 0; i < env.size(); ++i) {
    size_t equals = env[i].find('=');
    if (equals == 0 || equals == std::string::npos) {
      return internal::InvalidError(Index(path, i), env[i],
                                    "must be KEY=VALUE with a non-empty KEY");
    }
  }
  return OkStatus();
}

Status CheckAbsolute(const std::string& value, std::string_view path,
                     bool required) {
  if (value.empty()) {
    return required ? internal::RequiredError(path) : OkStatus();
  }
  if (value.front() != '/') {
    return internal::InvalidError(path, value, "must be an absolute path");
  }
  return OkStatus();
}

Status CheckDeviceNode(const DeviceNode& node, std::string_view path) {
  RETURN_IF_ERROR(CheckAbsolute(node.path, Child(path, "path"), true));
  RETURN_IF_ERROR(
      CheckAbsolute(node.host_path, Child(path, "hostPath"), false));
  if (!node.type.empty() && std::ranges::find(kDeviceNodeTypes, node.type) ==
                                kDeviceNodeTypes.end()) {
    return internal::NotSupportedError(Child(path, "type"), node.type,
                                       kDeviceNodeTypes);
  }
  if (node.permissions != "none" &&
      node.permissions.find_first_not_of("rwm") != std::string::npos) {
    return internal::InvalidError(Child(path, "permissions"), node.permissions,
                                  "must be \"none\" or letters of \"rwm\"");
  }
  return OkStatus();
}

Status CheckHook(const Hook& hook, std::string_view path) {
  if (hook.hook_name.empty()) {
    return internal::RequiredError(Child(path, "hookName"));
  }
  if (std::ranges::find(kHookNames, hook.hook_name) == kHookNames.end()) {
    return internal::NotSupportedError(Child(path, "hookName"), hook.hook_name,
                                       kHookNames);
  }
  RETURN_IF_ERROR(CheckAbsolute(hook.path, Child(path, "path"), true));
  RETURN_IF_ERROR(CheckEnv(hook.env, Child(path, "env")));
  if (hook.timeout && *hook.timeout <= 0) {
    return internal::InvalidRawError(Child(path, "timeout"),
                                     std::to_string(*hook.timeout),
                                     "must be greater than zero");
  }
  return OkStatus();
}

// A resctrl group name: "/" (the root group) or one path component.
Status CheckIntelRdt(const IntelRdt& rdt, std::string_view path) {
  const std::string& id = rdt.clos_id;
  if (id != "/" && (id.size() >= 4096 || id == "." || id == ".." ||
                    id.find_first_of("/\n") != std::string::npos)) {
    return internal::InvalidError(
        Child(path, "closID"), id,
        "must be \"/\" or a directory name without '/' or newline");
  }
  return OkStatus();
}

Status CheckNetDevices(const std::vector<NetDevice>& devices,
                       std::string_view path) {
  std::set<std::string_view> hosts, names;
  for (size_t i = 0; i < devices.size(); ++i) {
    const NetDevice& d = devices[i];
    std::string item = Index(path, i);
    if (d.host_interface_name.empty()) {
      return internal::RequiredError(Child(item, "hostInterfaceName"));
    }
    if (d.name.empty()) return internal::RequiredError(Child(item, "name"));
    if (!hosts.insert(d.host_interface_name).second) {
      return internal::DuplicateError(Child(item, "hostInterfaceName"),
                                      d.host_interface_name);
    }
    if (!names.insert(d.name).second) {
      return internal::DuplicateError(Child(item, "name"), d.name);
    }
  }
  return OkStatus();
}

Status CheckMount(const Mount& mount, std::string_view path) {
  if (mount.host_path.empty()) {
    return internal::RequiredError(Child(path, "hostPath"));
  }
  return CheckAbsolute(mount.container_path, Child(path, "containerPath"),
                       true);
}

Status CheckEdits(const ContainerEdits& edits, std::string_view path) {
  RETURN_IF_ERROR(CheckEnv(edits.env, Child(path, "env")));
  for (size_t i = 0; i < edits.device_nodes.size(); ++i) {
    RETURN_IF_ERROR(CheckDeviceNode(edits.device_nodes[i],
                                    Index(Child(path, "deviceNodes"), i)));
  }
  RETURN_IF_ERROR(
      CheckNetDevices(edits.net_devices, Child(path, "netDevices")));
  for (size_t i = 0; i < edits.hooks.size(); ++i) {
    RETURN_IF_ERROR(CheckHook(edits.hooks[i], Index(Child(path, "hooks"), i)));
  }
  for (size_t i = 0; i < edits.mounts.size(); ++i) {
    RETURN_IF_ERROR(
        CheckMount(edits.mounts[i], Index(Child(path, "mounts"), i)));
  }
  if (edits.intel_rdt) {
    RETURN_IF_ERROR(CheckIntelRdt(*edits.intel_rdt, Child(path, "intelRdt")));
  }
  return OkStatus();
}

// Keys are Kubernetes qualified names ("[prefix/]name").
Status CheckAnnotations(const std::map<std::string, std::string>& annotations,
                        std::string_view path) {
  size_t total = 0;
  for (const auto& [key, value] : annotations) {
    total += key.size() + value.size();
    std::string_view name = key;
    size_t slash = name.find('/');
    if (slash != std::string_view::npos) {
      std::string_view prefix = name.substr(0, slash);
      name.remove_prefix(slash + 1);
      if (prefix.empty() || prefix.size() > 253 ||
          !MatchesDns1123SubdomainPattern(prefix)) {
        return internal::InvalidError(
            path, key, "prefix part must be a lowercase DNS subdomain");
      }
    }
    if (name.empty() || name.size() > 63 ||
        !MatchesQualifiedNamePartPattern(name)) {
      return internal::InvalidError(
          path, key,
          "name part must be at most 63 characters, alphanumeric, '-', '_' "
          "or '.', starting and ending alphanumeric");
    }
  }
  if (total > kMaxAnnotationBytes) {
    return internal::InvalidRawError(
        path, fmt::format("{} bytes", total),
        fmt::format("must have at most {} bytes", kMaxAnnotationBytes));
  }
  return OkStatus();
}

bool EditsEmpty(const ContainerEdits& e) {
  return e.env.empty() && e.device_nodes.empty() && e.mounts.empty() &&
         e.hooks.empty() && e.additional_gids.empty() && !e.intel_rdt &&
         e.net_devices.empty();
}

Status CheckDevice(const Device& device, std::string_view path) {
  std::string name_path = Child(path, "name");
  if (device.name.empty()) return internal::RequiredError(name_path);
  if (Status s = ValidateDeviceName(device.name); !s.ok()) {
    return internal::InvalidError(name_path, device.name, s.message());
  }
  RETURN_IF_ERROR(
      CheckAnnotations(device.annotations, Child(path, "annotations")));
  std::string edits_path = Child(path, "containerEdits");
  if (EditsEmpty(device.container_edits)) {
    return internal::RequiredError(edits_path,
                                   "a device needs at least one edit");
  }
  return CheckEdits(device.container_edits, edits_path);
}

Status CheckVersionAndKind(const Spec& spec) {
  if (spec.cdi_version.empty()) return internal::RequiredError("cdiVersion");
  if (SpecVersionIndex(spec.cdi_version) < 0) {
    return internal::NotSupportedError("cdiVersion", spec.cdi_version,
                                       SupportedSpecVersions());
  }
  if (spec.kind.empty()) return internal::RequiredError("kind");
  if (Status s = ValidateKind(spec.kind); !s.ok()) {
    return internal::InvalidError("kind", spec.kind, s.message());
  }
  VersionRequirement required = RequiredSpecVersion(spec);
  if (SpecVersionIndex(required.version) > SpecVersionIndex(spec.cdi_version)) {
    return internal::ForbiddenError(
        required.field,
        fmt::format("requires cdiVersion {} or later (the spec declares {})",
                    required.version, spec.cdi_version));
  }
  return OkStatus();
}

}  // namespace

Status ValidateSpec(const Spec& spec) {
  RETURN_IF_ERROR(CheckVersionAndKind(spec));
  RETURN_IF_ERROR(CheckAnnotations(spec.annotations, "annotations"));
  RETURN_IF_ERROR(CheckEdits(spec.container_edits, "containerEdits"));
  if (spec.devices.empty()) {
    return internal::RequiredError("devices",
                                   "a spec needs at least one device");
  }
  std::set<std::string_view> names;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    std::string path = Index("devices", i);
    RETURN_IF_ERROR(CheckDevice(spec.devices[i], path));
    if (!names.insert(spec.devices[i].name).second) {
      return internal::DuplicateError(Child(path, "name"),
                                      spec.devices[i].name);
    }
  }
  return OkStatus();
}

}  // namespace dralloc::cdi
