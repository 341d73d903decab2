#include "auth/csv_reader.h"

#include <fmt/format.h>

namespace dralloc::auth {

Status CsvReader::ErrorAt(std::string_view what) const {
  return InvalidArgumentError(fmt::format("{}:{}: {}", source_, line_, what));
}

bool CsvReader::AtLineEnd() const {
  if (pos_ >= text_.size()) return true;
  if (text_[pos_] == '\n') return true;
  return text_[pos_] == '\r' && pos_ + 1 < text_.size() &&
         text_[pos_ + 1] == '\n';
}

void CsvReader::SkipLineEnd() {
  if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '\n') {
    ++pos_;
    ++line_;
  }
}

StatusOr<std::string> CsvReader::ReadUnquotedField() {
  std::string field;
  while (pos_ < text_.size() && text_[pos_] != ',' && !AtLineEnd()) {
    if (text_[pos_] == '"') {
      return ErrorAt("bare \" in non-quoted field");
    }
    field += text_[pos_++];
  }
  return field;
}

// At the opening quote. Ends after the closing quote, which must be
// followed by a comma or the end of the line.
StatusOr<std::string> CsvReader::ReadQuotedField() {
  std::string field;
  ++pos_;
  while (true) {
    if (pos_ >= text_.size()) {
      return ErrorAt("extraneous or missing \" in quoted field");
    }
    const char c = text_[pos_++];
    if (c == '\n') ++line_;
    if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') continue;
    if (c != '"') {
      field += c;
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {
      field += '"';
      ++pos_;
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] != ',' && !AtLineEnd()) {
      return ErrorAt("extraneous or missing \" in quoted field");
    }
    return field;
  }
}

StatusOr<std::optional<CsvRecord>> CsvReader::Next() {
  while (pos_ < text_.size() && AtLineEnd()) SkipLineEnd();
  if (pos_ >= text_.size()) return std::optional<CsvRecord>();
  CsvRecord record;
  record.line = line_;
  while (true) {
    StatusOr<std::string> field =
        text_[pos_] == '"' ? ReadQuotedField() : ReadUnquotedField();
    if (!field.ok()) return field.status();
    record.fields.push_back(std::move(*field));
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      if (pos_ >= text_.size()) {
        record.fields.emplace_back();
        break;
      }
      continue;
    }
    break;
  }
  SkipLineEnd();
  return std::optional<CsvRecord>(std::move(record));
}

}  // namespace dralloc::auth
