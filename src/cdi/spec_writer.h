// Encoding a CDI Spec as JSON and writing spec files atomically.
//
// The JSON has the field order and omissions of the CDI library's Go structs
// (cdiVersion, kind, annotations, devices, containerEdits; empty lists,
// strings and absent numbers left out), so files we write look like the ones
// real drivers write. WriteSpecFile is declared in cdi/spec.h.
#ifndef DRALLOC_CDI_SPEC_WRITER_H_
#define DRALLOC_CDI_SPEC_WRITER_H_

#include <string>

#include "cdi/spec.h"

namespace dralloc::cdi {

// The spec as JSON text, as written (cdi_version exactly as given, even
// when empty). `indent` < 0 gives compact text, else pretty-printed.
std::string FormatSpecJson(const Spec& spec, int indent = 2);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_WRITER_H_
