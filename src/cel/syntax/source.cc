#include "cel/syntax/source.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "cel/syntax/lexer.h"

namespace dralloc::cel {

Source::Source(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  // Offsets are int32_t; lines starting beyond that range are not indexed
  // (the parser rejects such inputs long before).
  const size_t limit = std::min<size_t>(
      text_.size(), static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  for (size_t i = 0; i < limit; ++i) {
    if (text_[i] == '\n') line_starts_.push_back(static_cast<int32_t>(i + 1));
  }
}

int32_t Source::Line(int32_t offset) const {
  const auto it =
      std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int32_t>(
      std::max<std::ptrdiff_t>(1, it - line_starts_.begin()));
}

int32_t Source::Column(int32_t offset) const {
  const int32_t size = static_cast<int32_t>(std::min<size_t>(
      text_.size(), static_cast<size_t>(std::numeric_limits<int32_t>::max())));
  offset = std::clamp(offset, 0, size);
  int32_t column = 1;
  for (int32_t i = line_starts_[Line(offset) - 1]; i < offset; ++i) {
    // Count code points: every byte except UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

std::string FormatLocatedError(const Source& source, int32_t offset,
                               std::string_view message) {
  const std::string& text = source.text();
  const int32_t size = static_cast<int32_t>(std::min<size_t>(
      text.size(), static_cast<size_t>(std::numeric_limits<int32_t>::max())));
  offset = std::clamp(offset, 0, size);
  const int32_t line = source.Line(offset);
  const int32_t column = source.Column(offset);
  size_t begin = static_cast<size_t>(offset);
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  size_t end = text.find('\n', static_cast<size_t>(offset));
  if (end == std::string::npos) end = text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  // The snippet stays valid UTF-8 even when the source is not.
  const std::string_view line_text =
      std::string_view(text).substr(begin, end - begin);
  std::string snippet;
  if (internal::FindInvalidUtf8(line_text) == line_text.size()) {
    snippet = line_text;
    begin = end;  // nothing to sanitize
  }
  for (size_t i = begin; i < end;) {
    char32_t cp;
    const size_t n = internal::DecodeUtf8(text, i, &cp);
    if (n == 0) {
      snippet += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      snippet.append(text, i, n);
      i += n;
    }
  }
  std::string out = "ERROR: <input>:" + std::to_string(line) + ":" +
                    std::to_string(column) + ": ";
  out += message;
  out += "\n | ";
  out += snippet;
  out += "\n | ";
  out.append(static_cast<size_t>(column - 1), '.');
  out += '^';
  return out;
}

}  // namespace dralloc::cel
