// CsvReader: records of CSV text as Go's encoding/csv Reader returns them
// with its defaults (comma separator, no comments, strict quotes, variable
// field counts), which is how upstream reads --token-auth-file.
#ifndef DRALLOC_AUTH_CSV_READER_H_
#define DRALLOC_AUTH_CSV_READER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::auth {

struct CsvRecord {
  int line = 0;  // 1-based line the record starts on
  std::vector<std::string> fields;
};

class CsvReader {
 public:
  // `source` prefixes errors: "source:line: ...".
  CsvReader(std::string_view text, std::string_view source)
      : text_(text), source_(source) {}

  // The next record; nullopt at the end of the text. "\r\n" ends a line
  // like "\n"; empty lines are skipped.
  StatusOr<std::optional<CsvRecord>> Next();

 private:
  StatusOr<std::string> ReadQuotedField();
  StatusOr<std::string> ReadUnquotedField();
  Status ErrorAt(std::string_view what) const;
  bool AtLineEnd() const;
  void SkipLineEnd();

  std::string_view text_;
  std::string source_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_CSV_READER_H_
