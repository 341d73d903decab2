// Kubernetes' CEL Semver library, version 1 (k8s.io/apiserver pkg/cel/library
// semverlib.go): the type kubernetes.Semver and
//
//   semver(string[, normalize bool]) -> Semver
//   isSemver(string[, normalize bool]) -> bool
//   v.major() / v.minor() / v.patch() -> int
//   v.isGreaterThan(v) / v.isLessThan(v) -> bool
//   v.compareTo(v) -> int                 (semver 2.0 precedence)
//
// Parsing is strict semver 2.0 with blang/semver's error messages. With
// normalize = true the text is first rewritten as upstream does: one leading
// "v" is dropped, leading zeros of major/minor/patch are dropped and a missing
// minor/patch becomes 0 ("v01.1" -> "1.1.0"); a short version must not carry
// a pre-release or build suffix.
#ifndef DRALLOC_CEL_LIB_SEMVER_LIBRARY_H_
#define DRALLOC_CEL_LIB_SEMVER_LIBRARY_H_

#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/semver.h"
#include "common/status.h"

namespace dralloc::cel {

class SemverValue final : public OpaqueValue {
 public:
  explicit SemverValue(SemVer v) : semver_(std::move(v)) {}

  const SemVer& semver() const { return semver_; }

  std::string_view TypeName() const override { return kSemverTypeName; }
  // By precedence: build metadata is ignored.
  bool Equals(const OpaqueValue& other) const override;
  // "1.2.3-rc.1+build".
  std::string DebugString() const override;

 private:
  SemVer semver_;
};

// Type::Opaque("kubernetes.Semver").
Type SemverType();
// An owned Value holding a new SemverValue.
Value MakeSemverValue(SemVer v);
// The version held by `v`, or null when `v` is not a kubernetes.Semver.
inline const SemVer* AsSemver(const Value& v) {
  // typeid compares vtable type-info: cheaper than matching type names.
  if (v.kind() != ValueKind::kOpaque) return nullptr;
  const OpaqueValue& o = v.opaque();
  if (typeid(o) != typeid(SemverValue)) return nullptr;
  return &static_cast<const SemverValue&>(o).semver();
}

// The parse behind semver(s[, normalize]); errors carry blang/semver's
// messages, e.g. "No Major.Minor.Patch elements found".
StatusOr<SemVer> ParseSemverForCel(std::string_view text, bool normalize);

void RegisterSemverLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_SEMVER_LIBRARY_H_
