// Strict decoding of one parsed JSON document into a cdi::Spec: the shape
// the CDI library's Go structs accept with UnmarshalStrict, nothing else.
#ifndef DRALLOC_CDI_INTERNAL_SPEC_DECODER_H_
#define DRALLOC_CDI_INTERNAL_SPEC_DECODER_H_

#include <simdjson.h>

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi::internal {

struct DecodeOptions {
  // The document came from YAML: an integer field also accepts an octal
  // string such as "0644" (YAML 1.1 octal, which the Go YAML decoder reads as
  // a number but the repo's YAML reader keeps as text).
  bool yaml = false;
};

// Decodes `root` into a Spec. Unknown and duplicate fields, wrong JSON
// types and out-of-range numbers are errors; null is the same as absent.
// Returns kInvalidArgument "<field path>: <problem>" for the first problem.
// Does not validate values (see cdi/spec_validator.h).
StatusOr<Spec> DecodeSpec(simdjson::dom::element root,
                          const DecodeOptions& options);

}  // namespace dralloc::cdi::internal

#endif  // DRALLOC_CDI_INTERNAL_SPEC_DECODER_H_
