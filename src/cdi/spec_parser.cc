#include "cdi/spec_parser.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "cdi/internal/spec_decoder.h"
#include "cdi/spec_validator.h"
#include "encoding/document_reader.h"

namespace dralloc::cdi {
namespace {

// True when the document reader will read `text` as JSON (its rule).
bool LooksLikeJson(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos &&
         (text[first] == '{' || text[first] == '[');
}

Status WithOrigin(const Status& status, std::string_view origin) {
  return Status(status.code(),
                fmt::format("cdi spec {}: {}", origin, status.message()));
}

// The file's bytes, refusing files larger than kMaxSpecFileBytes.
StatusOr<std::string> ReadFileBytes(const std::filesystem::path& file) {
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(file, error);
  if (error) {
    return UnavailableError(
        fmt::format("cdi spec {}: {}", file.string(), error.message()));
  }
  if (size > kMaxSpecFileBytes) {
    return ResourceExhaustedError(
        fmt::format("cdi spec {}: {} bytes is larger than the limit of {}",
                    file.string(), size, kMaxSpecFileBytes));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in.is_open()) {
    return UnavailableError(
        fmt::format("cdi spec {}: cannot open the file", file.string()));
  }
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  // The file may have shrunk since file_size; keep what was read.
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

StatusOr<Spec> ParseSpec(std::string_view text, std::string_view origin) {
  encoding::ReadLimits limits;
  limits.max_input_bytes = kMaxSpecFileBytes;
  limits.max_document_bytes = kMaxSpecFileBytes;
  limits.max_depth = 32;
  internal::DecodeOptions options{.yaml = !LooksLikeJson(text)};
  int documents = 0;
  std::optional<StatusOr<Spec>> decoded;
  Status read = encoding::VisitDocuments(
      text, origin,
      [&](const encoding::Document&, simdjson::dom::element root) {
        if (++documents == 1) decoded = internal::DecodeSpec(root, options);
      },
      limits);
  // The reader's messages already begin with the origin.
  if (!read.ok()) {
    return Status(read.code(), fmt::format("cdi spec {}", read.message()));
  }
  if (documents == 0) {
    return InvalidArgumentError(
        fmt::format("cdi spec {}: the file holds no spec", origin));
  }
  if (documents > 1) {
    return InvalidArgumentError(fmt::format(
        "cdi spec {}: the file holds {} documents; a spec file holds one",
        origin, documents));
  }
  if (!decoded->ok()) return WithOrigin(decoded->status(), origin);
  if (Status valid = ValidateSpec(**decoded); !valid.ok()) {
    return WithOrigin(valid, origin);
  }
  return std::move(*decoded);
}

StatusOr<Spec> ParseSpecFile(const std::filesystem::path& file) {
  ASSIGN_OR_RETURN(std::string text, ReadFileBytes(file));
  return ParseSpec(text, file.string());
}

}  // namespace dralloc::cdi
