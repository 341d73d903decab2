#include "encoding/document_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "encoding/internal/read_errors.h"
#include "encoding/internal/yaml_reader.h"

namespace dralloc::encoding {
namespace {

using internal::DepthMessage;
using internal::DocumentTooLarge;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// ---------------------------------------------------------------------------
// JSON streams.

// Returns the index just past the string literal that starts at text[pos]
// (a '"'), or text.size() if it is not closed.
size_t SkipJsonString(std::string_view text, size_t pos) {
  ++pos;
  while (true) {
    const size_t quote = text.find('"', pos);  // memchr: fast on long strings
    if (quote == std::string_view::npos) return text.size();
    // The quote is escaped if an odd number of backslashes precede it. The
    // backslashes lie after `pos`, so every byte is looked at once or twice.
    size_t backslashes = 0;
    while (quote - backslashes > pos && text[quote - backslashes - 1] == '\\') {
      ++backslashes;
    }
    if (backslashes % 2 == 0) return quote + 1;
    pos = quote + 1;
  }
}

// Fast path for the common case of an input that is exactly one JSON value
// within the limits: one vectorized parse instead of the byte-wise scan
// below. Returns nullopt for anything else (streams, errors, deep or large
// documents), which the scan then handles and words exactly.
// `buffer` must be followed by simdjson::SIMDJSON_PADDING readable bytes.
std::optional<Document> ReadSingleJsonValue(std::string_view buffer,
                                            std::string_view source,
                                            const ReadLimits& limits) {
  if (buffer.size() > limits.max_document_bytes || limits.max_depth <= 0) {
    return std::nullopt;
  }
  thread_local simdjson::dom::parser parser;
  const size_t depth = static_cast<size_t>(limits.max_depth);
  if (parser.max_depth() != depth || parser.capacity() < buffer.size()) {
    if (parser.allocate(std::max(buffer.size(), parser.capacity()), depth) !=
        simdjson::SUCCESS) {
      return std::nullopt;
    }
  }
  simdjson::dom::element root;
  if (parser.parse(buffer.data(), buffer.size(), /*realloc_if_needed=*/false)
          .get(root) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  Document document;
  document.json.resize(buffer.size() + simdjson::SIMDJSON_PADDING);
  size_t size = 0;
  if (simdjson::minify(buffer.data(), buffer.size(), document.json.data(),
                       size) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  document.json.resize(size);
  document.source = std::string(source);
  const size_t first = buffer.find_first_not_of(" \t\r\n");
  document.line = 1 + static_cast<int>(std::count(
                          buffer.begin(), buffer.begin() + first, '\n'));
  return document;
}

StatusOr<std::vector<Document>> ReadJsonStream(std::string_view text,
                                               std::string_view source,
                                               const ReadLimits& limits) {
  std::vector<Document> documents;
  auto json_error = [&](int document_number, std::string_view message) {
    return InvalidArgumentError(std::string(source) + ": document " +
                                std::to_string(document_number) +
                                ": json: " + std::string(message));
  };

  // One padded copy of the whole input: every value is parsed in place.
  simdjson::padded_string padded(text.data(), text.size());
  if (padded.data() == nullptr && !text.empty()) {
    return ResourceExhaustedError(std::string(source) + ": out of memory");
  }
  const std::string_view buffer(padded.data(), text.size());
  if (std::optional<Document> single =
          ReadSingleJsonValue(buffer, source, limits)) {
    if (single->json != "null") documents.push_back(*std::move(single));
    return documents;
  }
  simdjson::dom::parser parser;
  // Our own scan below enforces max_depth exactly; simdjson's count differs
  // slightly (empty containers), so give it some slack.
  const size_t simdjson_depth =
      static_cast<size_t>(std::max(limits.max_depth, 0)) + 2;
  if (parser.allocate(std::min<size_t>(buffer.size(), 1u << 16),
                      simdjson_depth) != simdjson::SUCCESS) {
    return ResourceExhaustedError(std::string(source) + ": out of memory");
  }

  size_t pos = 0;
  size_t line_pos = 0;  // `line` is the line of byte line_pos
  int line = 1;
  int document_number = 0;
  std::string minified;
  while (true) {
    while (pos < buffer.size() && IsJsonSpace(buffer[pos])) ++pos;
    if (pos == buffer.size()) break;
    line += static_cast<int>(
        std::count(buffer.begin() + line_pos, buffer.begin() + pos, '\n'));
    line_pos = pos;
    ++document_number;

    // Find the end of the value that starts at pos.
    const size_t start = pos;
    const char first = buffer[pos];
    if (first == '{' || first == '[') {
      int depth = 0;
      while (pos < buffer.size()) {
        const char c = buffer[pos];
        if (c == '"') {
          pos = SkipJsonString(buffer, pos);
          continue;
        }
        ++pos;
        if (c == '{' || c == '[') {
          if (++depth > limits.max_depth) {
            return json_error(document_number, DepthMessage(limits.max_depth));
          }
        } else if (c == '}' || c == ']') {
          if (--depth == 0) break;
        }
      }
    } else if (first == '"') {
      pos = SkipJsonString(buffer, pos);
    } else if (first == '}' || first == ']' || first == ',' || first == ':') {
      ++pos;
    } else {
      while (pos < buffer.size() && !IsJsonSpace(buffer[pos]) &&
             std::string_view("{}[],:\"").find(buffer[pos]) ==
                 std::string_view::npos) {
        ++pos;
      }
    }
    const std::string_view piece = buffer.substr(start, pos - start);

    // Minify first: a document that is too large is rejected before parsing.
    minified.resize(piece.size() + simdjson::SIMDJSON_PADDING);
    size_t minified_size = 0;
    const simdjson::error_code minify_error = simdjson::minify(
        piece.data(), piece.size(), minified.data(), minified_size);
    if (minify_error == simdjson::SUCCESS &&
        minified_size > limits.max_document_bytes) {
      return DocumentTooLarge(source, document_number, line,
                              limits.max_document_bytes);
    }
    auto element = parser.parse(piece.data(), piece.size(),
                                /*realloc_if_needed=*/false);
    if (element.error() == simdjson::DEPTH_ERROR) {
      return json_error(document_number, DepthMessage(limits.max_depth));
    }
    if (element.error() != simdjson::SUCCESS) {
      return json_error(document_number,
                        simdjson::error_message(element.error()));
    }
    if (minify_error != simdjson::SUCCESS) {
      return json_error(document_number, simdjson::error_message(minify_error));
    }
    minified.resize(minified_size);
    if (minified == "null") continue;
    Document document;
    document.json = minified;
    document.source = std::string(source);
    document.index = static_cast<int>(documents.size());
    document.line = line;
    documents.push_back(std::move(document));
  }
  return documents;
}

}  // namespace

StatusOr<std::vector<Document>> ReadDocuments(std::string_view bytes,
                                              std::string_view source,
                                              const ReadLimits& limits) {
  if (bytes.size() > limits.max_input_bytes) {
    return ResourceExhaustedError(
        std::string(source) + ": input is " + std::to_string(bytes.size()) +
        " bytes, more than the limit of " +
        std::to_string(limits.max_input_bytes) + " bytes");
  }
  try {
    std::string_view text = bytes;
    if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) {
      text.remove_prefix(kUtf8Bom.size());
    }
    size_t first = 0;
    while (first < text.size() && IsJsonSpace(text[first])) ++first;
    if (first < text.size() && (text[first] == '{' || text[first] == '[')) {
      return ReadJsonStream(text, source, limits);
    }
    return internal::ReadYamlStream(text, source, limits);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError(std::string(source) + ": out of memory");
  } catch (const std::exception& e) {
    return InternalError(std::string(source) + ": " + e.what());
  }
}

}  // namespace dralloc::encoding

namespace dralloc::encoding {
namespace {

// Parses `text` as a single JSON value within `limits`, or returns false
// (anything else, including errors, is left to ReadDocuments to word).
bool ParseSingleJsonValue(std::string_view text, const ReadLimits& limits,
                          std::string& padded, simdjson::dom::parser& parser,
                          simdjson::dom::element& root) {
  if (text.size() > limits.max_document_bytes || limits.max_depth <= 0) {
    return false;
  }
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) {
    text.remove_prefix(kUtf8Bom.size());
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos ||
      (text[first] != '{' && text[first] != '[')) {
    return false;
  }
  // simdjson reads up to SIMDJSON_PADDING bytes past the end; the reused
  // buffer's capacity provides them without a fresh allocation per call.
  padded.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  padded.assign(text);
  const size_t depth = static_cast<size_t>(limits.max_depth);
  if (parser.max_depth() != depth || parser.capacity() < padded.size()) {
    if (parser.allocate(std::max(padded.size(), parser.capacity()), depth) !=
        simdjson::SUCCESS) {
      return false;
    }
  }
  return parser.parse(padded.data(), padded.size(), /*realloc_if_needed=*/false)
             .get(root) == simdjson::SUCCESS;
}

}  // namespace

Status VisitDocuments(std::string_view bytes, std::string_view source,
                      const DocumentVisitor& visit, const ReadLimits& limits) {
  thread_local simdjson::dom::parser parser;
  thread_local std::string
      padded;  // reused input buffer, see ParseSingleJsonValue
  simdjson::dom::element root;
  if (ParseSingleJsonValue(bytes, limits, padded, parser, root)) {
    Document document;
    document.source = std::string(source);
    const std::string_view text(padded.data(), padded.size());
    const size_t first = text.find_first_of("{[");
    document.line = 1 + static_cast<int>(std::count(
                            text.begin(), text.begin() + first, '\n'));
    visit(document, root);
    return OkStatus();
  }
  StatusOr<std::vector<Document>> documents =
      ReadDocuments(bytes, source, limits);
  if (!documents.ok()) return documents.status();
  // Documents from ReadDocuments are within max_depth by its own count;
  // simdjson counts slightly differently, hence the slack.
  size_t largest = 0;
  for (const Document& document : *documents) {
    largest = std::max(largest, document.json.size());
  }
  simdjson::dom::parser document_parser;
  if (document_parser.allocate(
          largest, static_cast<size_t>(std::max(limits.max_depth, 0)) + 2) !=
      simdjson::SUCCESS) {
    return ResourceExhaustedError(std::string(source) + ": out of memory");
  }
  for (const Document& document : *documents) {
    simdjson::padded_string document_padded(document.json);
    if (document_parser.parse(document_padded).get(root) != simdjson::SUCCESS) {
      return InternalError(std::string(source) +
                           ": a document read back is not valid JSON");
    }
    visit(document, root);
  }
  return OkStatus();
}

}  // namespace dralloc::encoding
