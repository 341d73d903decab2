// Semantic validation of a CDI Spec: what the spec and the CDI library
// require beyond the JSON shape (names, paths, enums, versions).
#ifndef DRALLOC_CDI_SPEC_VALIDATOR_H_
#define DRALLOC_CDI_SPEC_VALIDATOR_H_

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi {

// Returns OK or kInvalidArgument for the first problem found, as
// "<field path>: <problem>" in Kubernetes' field-error style, e.g.
//   devices[0].name: Invalid value: "-x": must start with a letter or digit
//   cdiVersion: Unsupported value: "0.2.0": supported values: "0.3.0", ...
//   devices[0].containerEdits.mounts[0].type: Forbidden: requires cdiVersion
//     0.4.0 or later (the spec declares 0.3.0)
// The checks, in order: cdiVersion (required, one of the supported
// versions), kind (vendor/class), the declared version against the fields
// used, annotations, the spec-level edits, then each device (name, unique
// names, annotations, at least one edit, its edits). Edits: env entries
// "KEY=VALUE" with a non-empty key; deviceNodes path required and absolute,
// hostPath absolute, type one of b c u p, permissions "none" or letters of
// "rwm"; mounts hostPath required, containerPath required and absolute;
// hooks hookName one of the OCI hooks, path required and absolute, env as
// above, timeout > 0; intelRdt closID a valid resctrl group name; netDevices
// both names required and each unique within its list.
Status ValidateSpec(const Spec& spec);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_VALIDATOR_H_
