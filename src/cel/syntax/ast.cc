#include "cel/syntax/ast.h"

#include <algorithm>
#include <limits>
#include <utility>

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

}  // namespace dralloc::cel
