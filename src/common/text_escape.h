// Text escaping shared by the encoders and error messages: JSON string
// literals (RFC 8259) and Go's %q / strconv.Quote.
#ifndef DRALLOC_COMMON_TEXT_ESCAPE_H_
#define DRALLOC_COMMON_TEXT_ESCAPE_H_

#include <string>
#include <string_view>

namespace dralloc {

// Appends `text` to `out` as a JSON string literal, quotes included. Only
// '"', '\\' and the control characters below 0x20 are escaped (\b \f \n \r \t
// by name, the others as \u00XX); every other byte, including non-ASCII and
// invalid UTF-8, is copied as is. Runs of plain bytes are copied with one
// append, so ASCII-heavy text costs little more than a memcpy.
void AppendJsonString(std::string& out, std::string_view text);

// Go's strconv.Quote (fmt's %q on a string): '"' and '\\' escaped; \a \b \f
// \n \r \t \v by name; other ASCII controls and DEL as \xXX; bytes that are
// not valid UTF-8 (overlong forms, surrogates, past U+10FFFF, truncated) as
// \xXX one byte at a time; non-ASCII runes Go does not print (C1 controls,
// format characters, separators, private use, noncharacters) as \uXXXX or
// \UXXXXXXXX; other runes verbatim. Hex digits are lower case.
std::string GoQuote(std::string_view text);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_TEXT_ESCAPE_H_
