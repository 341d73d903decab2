#include "cdi/spec_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "cdi/spec_validator.h"

namespace dralloc::cdi {
namespace {

using Json = nlohmann::ordered_json;

void PutString(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

template <typename T>
void PutOptional(Json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

template <typename T>
void PutList(Json& out, const char* key, const std::vector<T>& values) {
  if (!values.empty()) out[key] = values;
}

Json DeviceNodeJson(const DeviceNode& node) {
  Json out = Json::object();
  out["path"] = node.path;
  PutString(out, "hostPath", node.host_path);
  PutString(out, "type", node.type);
  PutOptional(out, "major", node.major);
  PutOptional(out, "minor", node.minor);
  PutOptional(out, "fileMode", node.file_mode);
  PutString(out, "permissions", node.permissions);
  PutOptional(out, "uid", node.uid);
  PutOptional(out, "gid", node.gid);
  return out;
}

Json MountJson(const Mount& mount) {
  Json out = Json::object();
  out["hostPath"] = mount.host_path;
  out["containerPath"] = mount.container_path;
  PutList(out, "options", mount.options);
  PutString(out, "type", mount.type);
  return out;
}

Json HookJson(const Hook& hook) {
  Json out = Json::object();
  out["hookName"] = hook.hook_name;
  out["path"] = hook.path;
  PutList(out, "args", hook.args);
  PutList(out, "env", hook.env);
  PutOptional(out, "timeout", hook.timeout);
  return out;
}

Json IntelRdtJson(const IntelRdt& rdt) {
  Json out = Json::object();
  PutString(out, "closID", rdt.clos_id);
  PutString(out, "l3CacheSchema", rdt.l3_cache_schema);
  PutString(out, "memBwSchema", rdt.mem_bw_schema);
  PutList(out, "schemata", rdt.schemata);
  if (rdt.enable_monitoring) out["enableMonitoring"] = true;
  return out;
}

template <typename T, typename F>
void PutObjects(Json& out, const char* key, const std::vector<T>& values,
                F to_json) {
  if (values.empty()) return;
  Json list = Json::array();
  for (const T& value : values) list.push_back(to_json(value));
  out[key] = std::move(list);
}

Json ContainerEditsJson(const ContainerEdits& edits) {
  Json out = Json::object();
  PutList(out, "env", edits.env);
  PutObjects(out, "deviceNodes", edits.device_nodes, DeviceNodeJson);
  PutObjects(out, "netDevices", edits.net_devices, [](const NetDevice& n) {
    return Json{{"hostInterfaceName", n.host_interface_name}, {"name", n.name}};
  });
  PutObjects(out, "hooks", edits.hooks, HookJson);
  PutObjects(out, "mounts", edits.mounts, MountJson);
  if (edits.intel_rdt) out["intelRdt"] = IntelRdtJson(*edits.intel_rdt);
  PutList(out, "additionalGids", edits.additional_gids);
  return out;
}

Json SpecJson(const Spec& spec) {
  Json out = Json::object();
  out["cdiVersion"] = spec.cdi_version;
  out["kind"] = spec.kind;
  if (!spec.annotations.empty()) out["annotations"] = spec.annotations;
  Json devices = Json::array();
  for (const Device& device : spec.devices) {
    Json d = Json::object();
    d["name"] = device.name;
    if (!device.annotations.empty()) d["annotations"] = device.annotations;
    d["containerEdits"] = ContainerEditsJson(device.container_edits);
    devices.push_back(std::move(d));
  }
  out["devices"] = std::move(devices);
  out["containerEdits"] = ContainerEditsJson(spec.container_edits);
  return out;
}

Status SystemError(const std::filesystem::path& file, std::string_view what,
                   int error) {
  return InternalError("cdi spec " + file.string() + ": " + std::string(what) +
                       ": " + std::strerror(error));
}

// Writes all of `text` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Flushes the directory entry of a completed rename to disk.
void SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Writes `text` into a fresh temp file beside `file` and renames it over
// `file`. On failure the temp file is removed and `file` is untouched.
Status ReplaceFileAtomically(const std::filesystem::path& file,
                             std::string_view text) {
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  // A leading '.' and a suffix other than .json/.yaml keep spec scanners
  // from reading the temp file.
  std::string tmp = (dir / ("." + file.filename().string() + ".tmp-XXXXXX"));
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return SystemError(file, "create temp file", errno);
  auto fail = [&](std::string_view what) {
    int error = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return SystemError(file, what, error);
  };
  if (::fchmod(fd, 0644) != 0) return fail("chmod temp file");
  if (!WriteAll(fd, text)) return fail("write temp file");
  if (::fsync(fd) != 0) return fail("fsync temp file");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("close temp file");
  if (::rename(tmp.c_str(), file.c_str()) != 0) return fail("rename");
  SyncDirectory(dir);
  return OkStatus();
}

}  // namespace

std::string FormatSpecJson(const Spec& spec, int indent) {
  return SpecJson(spec).dump(indent);
}

Status WriteSpecFile(const Spec& spec, const std::filesystem::path& file) {
  if (file.filename().empty()) {
    return InvalidArgumentError("cdi spec " + file.string() +
                                ": file name is empty");
  }
  std::error_code error;
  std::filesystem::path dir = file.parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, error);
  if (error) {
    return InternalError("cdi spec " + file.string() +
                         ": create directory: " + error.message());
  }
  std::optional<Spec> versioned;
  if (spec.cdi_version.empty()) {
    versioned = spec;
    versioned->cdi_version = MinimumRequiredVersion(spec);
  }
  const Spec& written = versioned ? *versioned : spec;
  if (Status valid = ValidateSpec(written); !valid.ok()) {
    return InvalidArgumentError("cdi spec " + file.string() + ": " +
                                valid.message());
  }
  std::string text = FormatSpecJson(written);
  text.push_back('\n');
  return ReplaceFileAtomically(file, text);
}

}  // namespace dralloc::cdi
