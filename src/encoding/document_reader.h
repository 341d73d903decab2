// Reading user files (YAML or JSON streams) into one JSON text per document.
//
// The input is a JSON stream when its first non-whitespace byte (after an
// optional UTF-8 byte order mark) is '{' or '['; it is then one or more JSON
// values separated by optional whitespace. Otherwise the input is a YAML
// stream of zero or more documents.
//
// YAML scalars resolve like this (a safe subset of sigs.k8s.io/yaml):
//  - quoted and block scalars are strings;
//  - plain `null`, `Null`, `NULL`, `~` and the empty scalar are null;
//  - plain `true`, `True`, `TRUE`, `false`, `False`, `FALSE` are booleans;
//  - plain decimal integers without leading zeros (optionally signed) that fit
//    in int64 are numbers;
//  - every other plain scalar (1.5, 1e3, .inf, 0123, 0x1F, yes, off, ...) is a
//    string holding the exact source text.
// Tags: `!!str` and `!` force a string, `!!int`, `!!bool` and `!!null` must
// resolve as said above (else an error), `!!float` gives the text as a string,
// any other tag is ignored. Mapping keys must be scalars; a key becomes the
// string of its text (a null key becomes "null"). Aliases are expanded; merge
// keys (`<<`) are not interpreted and stay ordinary keys. Duplicate keys are
// kept in the output. Documents that are empty or null are skipped.
//
// Error messages begin with the source name, then either
// "line L column C: " (YAML) or "document K: " (JSON, K counts all documents
// of the stream from 1).
#ifndef DRALLOC_ENCODING_DOCUMENT_READER_H_
#define DRALLOC_ENCODING_DOCUMENT_READER_H_

#include <simdjson.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::encoding {

struct ReadLimits {
  // Size of the whole input.
  size_t max_input_bytes = 256u << 20;
  // Size of one document (like kube-apiserver's 3 MiB request limit), both of
  // its YAML source text and of the JSON produced for it (expanded aliases
  // count there too).
  size_t max_document_bytes = 3u << 20;
  // Nesting of arrays and objects.
  int max_depth = 256;
};

struct Document {
  std::string json;    // compact JSON text of one document (UTF-8)
  std::string source;  // e.g. the file name, used in messages
  int index = 0;  // 0-based position among the non-empty documents of source
  int line = 1;   // 1-based line where the document starts in the source
};

// Splits `bytes` into documents and converts each to compact JSON.
// Errors: InvalidArgument for malformed input (syntax, encoding, nesting deeper
// than limits.max_depth, unresolvable tags, non-scalar keys, undefined
// aliases); ResourceExhausted when the input or one document is larger than
// the limits allow.
StatusOr<std::vector<Document>> ReadDocuments(std::string_view bytes,
                                              std::string_view source,
                                              const ReadLimits& limits = {});

// Receives one document and its parsed value. `element` (and the memory it
// points into) is valid only during the call. `document.json` is empty when
// the input was a single JSON value parsed in place (no compact copy made).
using DocumentVisitor = std::function<void(const Document& document,
                                           simdjson::dom::element element)>;

// Like ReadDocuments, but hands every document to `visit` already parsed, so
// callers that walk the values parse each byte once. The common case of an
// input that is one JSON value within the limits is parsed exactly once and
// not copied. Errors are those of ReadDocuments; on error no document is
// visited. Uses per-thread buffers: `visit` must not call VisitDocuments.
Status VisitDocuments(std::string_view bytes, std::string_view source,
                      const DocumentVisitor& visit,
                      const ReadLimits& limits = {});

}  // namespace dralloc::encoding

#endif  // DRALLOC_ENCODING_DOCUMENT_READER_H_
