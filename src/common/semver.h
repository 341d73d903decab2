// SemVer: a version number per Semantic Versioning 2.0.0 (https://semver.org).
//
//   <version>    ::= <major> "." <minor> "." <patch>
//                    [ "-" <pre-release> ] [ "+" <build> ]
//   <pre-release> and <build> are non-empty dot-separated identifiers of
//   [0-9A-Za-z-]. Numeric identifiers (major, minor, patch and all-digit
//   pre-release identifiers) have no leading zeros; build identifiers may.
#ifndef DRALLOC_COMMON_SEMVER_H_
#define DRALLOC_COMMON_SEMVER_H_

#include <compare>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc {

struct SemVer {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  // Pre-release identifiers, e.g. {"rc", "1"} for "-rc.1"; empty for a
  // release. Numeric identifiers are kept as their digits.
  std::vector<std::string> pre_release;
  // Build metadata without the '+', e.g. "build.5"; empty if none.
  std::string build;

  // Parses exactly the grammar above: no "v" prefix, no whitespace, all three
  // numbers present, each fitting in uint64. Errors are kInvalidArgument and
  // name the offending part, e.g.
  //   invalid semantic version "1.02.3": minor number "02" has a leading zero
  static StatusOr<SemVer> ParseStrict(std::string_view text);

  // True exactly when ParseStrict(text) succeeds, without allocating: the
  // fast check for validating many version attributes.
  static bool IsStrict(std::string_view text);

  // Accepts common informal spellings, then parses strictly: trims leading and
  // trailing whitespace, drops one leading 'v' or 'V', fills in a missing
  // minor and patch with 0, and drops leading zeros from major, minor and
  // patch. "v1.2" -> 1.2.0, " 01.02.03 " -> 1.2.3, "1-rc.1" -> 1.0.0-rc.1.
  // Pre-release and build are not altered.
  static StatusOr<SemVer> ParseTolerant(std::string_view text);

  // Precedence per semver 2.0.0 section 11: -1, 0 or 1. Numbers compare
  // numerically; a pre-release ranks below its release; pre-release
  // identifiers compare numerically when both are numeric, a numeric one
  // ranks below an alphanumeric one, others compare in ASCII order; a shorter
  // list ranks below a longer one it prefixes. Build metadata is ignored.
  int Compare(const SemVer& other) const;

  // "major.minor.patch[-pre.release][+build]".
  std::string ToString() const;

  // Precedence comparisons: versions differing only in build metadata are
  // equivalent (==) though their ToString() differs.
  friend bool operator==(const SemVer& a, const SemVer& b) {
    return a.Compare(b) == 0;
  }
  friend std::weak_ordering operator<=>(const SemVer& a, const SemVer& b) {
    return a.Compare(b) <=> 0;
  }
};

// Writes v.ToString().
std::ostream& operator<<(std::ostream& os, const SemVer& v);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_SEMVER_H_
