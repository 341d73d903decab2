// The YAML half of ReadDocuments: a YAML stream to one compact JSON text per
// document, with the scalar resolution, tag, alias and limit rules described
// in encoding/document_reader.h.
#ifndef DRALLOC_ENCODING_INTERNAL_YAML_READER_H_
#define DRALLOC_ENCODING_INTERNAL_YAML_READER_H_

#include <string_view>
#include <vector>

#include "common/status.h"
#include "encoding/document_reader.h"

namespace dralloc::encoding::internal {

// `text` has no byte order mark. Errors are those of ReadDocuments, worded
// "<source>: line L column C: ...".
StatusOr<std::vector<Document>> ReadYamlStream(std::string_view text,
                                               std::string_view source,
                                               const ReadLimits& limits);

}  // namespace dralloc::encoding::internal

#endif  // DRALLOC_ENCODING_INTERNAL_YAML_READER_H_
