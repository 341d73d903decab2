// Source text and error locations: the pieces of the syntax layer that every
// later stage (macro expansion, checking, planning) uses to report an error
// at a position in the user's expression.
#ifndef DRALLOC_CEL_SYNTAX_SOURCE_H_
#define DRALLOC_CEL_SYNTAX_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::cel {

// Source text with a line index, to turn byte offsets into "line:column"
// (both 1-based; the column counts code points, as cel-go does).
class Source {
 public:
  explicit Source(std::string text);
  const std::string& text() const { return text_; }
  int32_t Line(int32_t offset) const;
  int32_t Column(int32_t offset) const;

 private:
  std::string text_;
  std::vector<int32_t> line_starts_;
};

// "ERROR: <input>:LINE:COL: <message>\n | <source line>\n | <dots>^" where
// the dots stand for the code points before the column. Offsets outside the
// text are clamped to it.
std::string FormatLocatedError(const Source& source, int32_t offset,
                               std::string_view message);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_SYNTAX_SOURCE_H_
