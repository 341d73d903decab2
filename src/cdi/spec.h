// The Container Device Interface (CDI) spec model: what a DRA driver writes to
// /etc/cdi or /var/run/cdi and what the node agent reads to turn CDI device
// IDs into container edits (cncf-tags/container-device-interface, spec 1.1.0).
//
// The structs mirror the spec's JSON fields one to one. Optional numbers are
// std::optional so that "absent" and "0" stay apart where the spec keeps them
// apart; empty strings and empty lists mean "absent" (the spec's omitempty).
#ifndef DRALLOC_CDI_SPEC_H_
#define DRALLOC_CDI_SPEC_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::cdi {

// A device node to create in the container (`deviceNodes[]`).
struct DeviceNode {
  std::string path;       // in the container; required, absolute
  std::string host_path;  // on the host; empty = same as path (spec 0.5.0)
  std::string type;       // "b", "c", "u", "p" or empty
  std::optional<int64_t> major, minor;
  std::optional<uint32_t> file_mode;
  std::string permissions;  // any of "rwm"; empty = "rwm"
  std::optional<uint32_t> uid, gid;
  friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

// A mount (`mounts[]`); `type` needs spec 0.4.0.
struct Mount {
  std::string host_path, container_path, type;
  std::vector<std::string> options;
  friend bool operator==(const Mount&, const Mount&) = default;
};

// An OCI hook (`hooks[]`). hook_name is one of createRuntime,
// createContainer, startContainer, poststart, poststop.
struct Hook {
  std::string hook_name, path;
  std::vector<std::string> args, env;
  std::optional<int> timeout;  // seconds
  friend bool operator==(const Hook&, const Hook&) = default;
};

// Intel RDT settings (`intelRdt`, spec 0.7.0; schemata and
// enable_monitoring spec 1.1.0).
struct IntelRdt {
  std::string clos_id, l3_cache_schema, mem_bw_schema;
  std::vector<std::string> schemata;
  bool enable_monitoring = false;
  friend bool operator==(const IntelRdt&, const IntelRdt&) = default;
};

// A host network interface moved into the container (`netDevices[]`, 1.1.0).
struct NetDevice {
  std::string host_interface_name, name;
  friend bool operator==(const NetDevice&, const NetDevice&) = default;
};

// The edits a runtime applies to a container (`containerEdits`).
struct ContainerEdits {
  std::vector<std::string> env;  // "KEY=VALUE"
  std::vector<DeviceNode> device_nodes;
  std::vector<Mount> mounts;
  std::vector<Hook> hooks;
  std::vector<uint32_t> additional_gids;  // spec 0.7.0
  std::optional<IntelRdt> intel_rdt;      // spec 0.7.0
  std::vector<NetDevice> net_devices;     // spec 1.1.0
  friend bool operator==(const ContainerEdits&,
                         const ContainerEdits&) = default;
};

// One device of a spec; its qualified name is QualifiedName(kind, name).
struct Device {
  std::string name;
  std::map<std::string, std::string> annotations;  // spec 0.6.0
  ContainerEdits container_edits;
  friend bool operator==(const Device&, const Device&) = default;
};

// One spec file: a kind ("vendor.com/class") and its devices. The spec-level
// container_edits apply whenever any device of the spec is requested.
struct Spec {
  std::string cdi_version;
  std::string kind;
  std::map<std::string, std::string> annotations;  // spec 0.6.0
  std::vector<Device> devices;
  ContainerEdits container_edits;
  friend bool operator==(const Spec&, const Spec&) = default;
};

// "vendor.com/class=name" for kind "vendor.com/class" and device "name".
std::string QualifiedName(std::string_view kind, std::string_view device);

// The lowest spec version whose fields the spec uses ("0.3.0" ... "1.1.0").
std::string MinimumRequiredVersion(const Spec& spec);

// "<vendor>-<class>_<transient_id>.json" for kind "vendor/class" (the CDI
// library's transient spec names); '/' in transient_id becomes '_'.
std::string TransientSpecFileName(std::string_view kind,
                                  std::string_view transient_id);

// Writes `spec` as JSON to `file` atomically: a temp file in the same
// directory, fsync, rename, so readers see the old file or the whole new one
// and never a partial one. An empty cdi_version is written as
// MinimumRequiredVersion(spec). Creates the directory. The file gets mode
// 0644. A spec that ValidateSpec (cdi/spec_validator.h) rejects is not
// written (kInvalidArgument "cdi spec <file>: <field>: <problem>"); I/O
// failures are kInternal. Implemented in spec_writer.cc.
Status WriteSpecFile(const Spec& spec, const std::filesystem::path& file);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_H_
