// GoldenCase: what every golden-case runner needs before its own checks —
// the case files of a folder, a file's text, and the `# key: value` header
// comments at the top of a case (dialects: tests/golden/README.md).
#ifndef DRALLOC_TESTS_GOLDEN_CASE_H_
#define DRALLOC_TESTS_GOLDEN_CASE_H_

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::golden {

// The regular files under `root` (recursively) whose extension is one of
// `extensions` (".yaml"), sorted by path; empty when `root` does not exist.
std::vector<std::filesystem::path> CaseFiles(
    const std::filesystem::path& root,
    std::initializer_list<std::string_view> extensions);

// The whole file as bytes; empty when it cannot be read (the runner then
// fails on the missing header or content).
std::string ReadFile(const std::filesystem::path& path);

// `text` without leading blanks and tabs and trailing blanks, tabs and CRs.
std::string_view Trim(std::string_view text);

// The header of a case: the comment lines at its top, each without its '#'
// and otherwise untouched. The header ends at the first line that is neither
// a comment, blank, nor a document separator "---".
std::vector<std::string> HeaderComments(std::string_view text);

// For a header comment "<key>:<rest>" (blanks before the key allowed), the
// rest exactly as written (callers trim or tokenize it as their dialect
// says); nullopt when the comment does not start with `key` and ':'.
std::optional<std::string_view> HeaderValue(std::string_view comment,
                                            std::string_view key);

// A GoogleTest parameter name for `path`: every character that is not a
// letter or digit becomes '_'.
std::string TestName(std::string_view path);

}  // namespace dralloc::golden

#endif  // DRALLOC_TESTS_GOLDEN_CASE_H_
