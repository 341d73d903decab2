// Registry: the CDI devices defined by the spec files of some directories,
// and their resolution into container edits (the CDI library's Cache).
//
// A Registry is built once by Load and is immutable afterwards, so every
// const method may be called from any number of threads at once. To see
// changed files, Load again.
#ifndef DRALLOC_CDI_REGISTRY_H_
#define DRALLOC_CDI_REGISTRY_H_

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi {

// A spec file, or a device in it, that Load ignored, and why.
struct SpecFileError {
  std::filesystem::path file;
  std::string message;  // "cdi spec <file>: ..."
  friend bool operator==(const SpecFileError&, const SpecFileError&) = default;
};

// A device the registry resolves, for diagnostics.
struct RegisteredDevice {
  std::string qualified_name;  // "vendor/class=name"
  std::filesystem::path spec_file;
  int priority = 0;  // index of the spec file's directory in Load's list
  friend bool operator==(const RegisteredDevice&,
                         const RegisteredDevice&) = default;
};

class Registry {
 public:
  // An empty registry.
  Registry() = default;

  // Reads every "*.json" and "*.yaml" file (sorted by name, not recursing)
  // in each of `dirs`. A missing directory is empty. A file that cannot be
  // read or parsed (see ParseSpec) is recorded in errors() and skipped;
  // loading never fails as a whole. Later directories have higher priority:
  // a device defined again in a later directory replaces the earlier
  // definition. A device defined by two files of the same directory is a
  // conflict: that directory's definitions are dropped (an earlier
  // directory's definition is not restored) and each file gets an error.
  static Registry Load(const std::vector<std::filesystem::path>& dirs);

  // The edits for a container given CDI devices "vendor/class=name": for
  // each spec touched, its spec-level edits once (when its first device is
  // reached), then each device's edits, in request order, merged by
  // MergeEdits (cdi/edits_merge.h). A device named twice applies once.
  // Unless every name exists, kNotFound
  // "unresolvable CDI devices: a, b" naming each missing one in order.
  StatusOr<ContainerEdits> Resolve(
      std::span<const std::string> qualified_names) const;

  // Every resolvable device, sorted by qualified name.
  std::vector<RegisteredDevice> Devices() const;

  // Problems met by Load, in the order met.
  const std::vector<SpecFileError>& errors() const { return errors_; }

 private:
  struct LoadedSpec {
    std::filesystem::path file;
    int priority = 0;
    Spec spec;
  };
  // Where a device is defined: specs_[spec].devices[device].
  struct DeviceRef {
    size_t spec = 0;
    size_t device = 0;
  };

  void LoadDirectory(const std::filesystem::path& dir, int priority);
  // Parses `file` into specs_; records an error and returns false if bad.
  bool LoadFile(const std::filesystem::path& file, int priority);
  void RecordConflict(const std::string& name,
                      const std::vector<DeviceRef>& definitions);

  std::vector<LoadedSpec> specs_;
  std::map<std::string, DeviceRef, std::less<>> devices_;
  std::vector<SpecFileError> errors_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_REGISTRY_H_
