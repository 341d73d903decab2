// CDI names: the kind "vendor.com/class" of a spec, the device names inside
// it, and the fully-qualified device name "vendor.com/class=name" that DRA
// drivers return in cdi_device_ids and runtimes receive as CDI devices.
//
// The rules are the CDI library's (pkg/parser), with the SPEC.md length
// limits added:
//   vendor  starts with a letter, ends with a letter or digit, letters,
//           digits, '-', '_' and '.' between; at most 253 bytes;
//   class   the same characters; at most 63 bytes ('.' needs spec 0.6.0,
//           which the spec parser checks, not this file);
//   device  starts and ends with a letter or digit, letters, digits, '-',
//           '_', '.' and ':' between (a leading digit needs spec 0.5.0).
#ifndef DRALLOC_CDI_QUALIFIED_NAME_H_
#define DRALLOC_CDI_QUALIFIED_NAME_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::cdi {

// The two halves of a kind "vendor/class".
struct Kind {
  std::string vendor;
  std::string class_name;
  std::string ToString() const { return vendor + "/" + class_name; }
  friend bool operator==(const Kind&, const Kind&) = default;
};

struct QualifiedDeviceName {
  Kind kind;
  std::string device;
  // "vendor/class=device".
  std::string ToString() const;
  friend bool operator==(const QualifiedDeviceName&,
                         const QualifiedDeviceName&) = default;
};

// Each returns OK or kInvalidArgument whose message is the problem alone
// (e.g. `must start with a letter`), for callers to put after the field.
Status ValidateVendorName(std::string_view vendor);
Status ValidateClassName(std::string_view class_name);
Status ValidateDeviceName(std::string_view device);
// "vendor/class" with both parts valid; the message names the bad part.
Status ValidateKind(std::string_view kind);

// Splits and validates "vendor/class". Errors (kInvalidArgument) read
// `invalid CDI kind "x": <problem>`.
StatusOr<Kind> ParseKind(std::string_view kind);

// Splits and validates "vendor/class=device". Errors (kInvalidArgument) read
// `invalid CDI device name "x": <problem>`.
StatusOr<QualifiedDeviceName> ParseQualifiedName(std::string_view text);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_QUALIFIED_NAME_H_
