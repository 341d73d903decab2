// Reading CDI spec files (JSON or YAML) strictly, as the CDI library's
// ReadSpec does: unknown fields, wrong types, invalid values, unsupported
// versions and versions below what the fields need are all errors.
#ifndef DRALLOC_CDI_SPEC_PARSER_H_
#define DRALLOC_CDI_SPEC_PARSER_H_

#include <filesystem>
#include <string_view>

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi {

// The largest spec file read (a spec is a few KiB; this bounds memory).
inline constexpr size_t kMaxSpecFileBytes = 4u << 20;

// Parses one spec from `text`, JSON when its first non-blank byte is '{',
// else YAML (one document). `origin` names the source in messages (usually
// the file path). Every error is kInvalidArgument (kResourceExhausted when
// larger than kMaxSpecFileBytes) and reads
//   cdi spec <origin>: <field path>: <problem>
// e.g. `cdi spec /etc/cdi/x.json: devices[0].name: Invalid value: "": ...`,
// or `cdi spec <origin>: line L column C: <syntax problem>` for bad YAML.
// The result has passed ValidateSpec (cdi/spec_validator.h).
StatusOr<Spec> ParseSpec(std::string_view text, std::string_view origin);

// Reads `file` and parses it with the path as origin. A file that cannot be
// read is kUnavailable ("cdi spec <file>: <reason>"), one larger than
// kMaxSpecFileBytes kResourceExhausted, without reading it.
StatusOr<Spec> ParseSpecFile(const std::filesystem::path& file);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_PARSER_H_
