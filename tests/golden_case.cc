#include "golden_case.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

namespace dralloc::golden {

namespace fs = std::filesystem;

std::vector<fs::path> CaseFiles(
    const fs::path& root, std::initializer_list<std::string_view> extensions) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string extension = it->path().extension().string();
    if (std::find(extensions.begin(), extensions.end(), extension) !=
        extensions.end()) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  text.remove_prefix(first);
  return text.substr(0, text.find_last_not_of(" \t\r") + 1);
}

std::vector<std::string> HeaderComments(std::string_view text) {
  std::vector<std::string> comments;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.starts_with('#')) {
      comments.emplace_back(line.substr(1));
      continue;
    }
    if (!Trim(line).empty() && line != "---") break;
  }
  return comments;
}

std::optional<std::string_view> HeaderValue(std::string_view comment,
                                            std::string_view key) {
  const size_t start = comment.find_first_not_of(" \t");
  if (start == std::string_view::npos) return std::nullopt;
  const std::string_view body = comment.substr(start);
  if (!body.starts_with(key) || body.substr(key.size(), 1) != ":") {
    return std::nullopt;
  }
  return body.substr(key.size() + 1);
}

std::string TestName(std::string_view path) {
  std::string name(path);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace dralloc::golden
