// Reading the quota usage case files under tests/quota (test-only): the
// "# usage: <resource>=<quantity>" header lines, comma lists, and the one
// object a case holds.
#ifndef DRALLOC_QUOTA_USAGE_CASE_TEST_UTIL_H_
#define DRALLOC_QUOTA_USAGE_CASE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/types/resource_quota.h"
#include "encoding/document_reader.h"
#include "golden_case.h"

namespace dralloc::quota::usage_case {

// The non-empty, trimmed parts of `text` between `separator`s.
inline std::vector<std::string> SplitList(std::string_view text,
                                          char separator = ',') {
  std::vector<std::string> parts;
  std::istringstream in{std::string(text)};
  for (std::string part; std::getline(in, part, separator);) {
    if (!golden::Trim(part).empty()) parts.emplace_back(golden::Trim(part));
  }
  return parts;
}

// Adds "<resource>=<quantity>" (the value of a "# usage:" line) to `usage`;
// a malformed line fails the test.
inline void AddUsageLine(std::string_view line, api::ResourceList& usage) {
  const size_t eq = line.rfind('=');
  EXPECT_NE(eq, std::string_view::npos) << line;
  if (eq == std::string_view::npos) return;
  StatusOr<Quantity> quantity = Quantity::Parse(line.substr(eq + 1));
  EXPECT_TRUE(quantity.ok()) << line;
  if (quantity.ok()) {
    usage.emplace(std::string(golden::Trim(line.substr(0, eq))), *quantity);
  }
}

// The one object of kind T the case file holds, defaulted as the API server
// stores it when `defaulted`; nullopt when it holds anything else.
template <typename T>
std::optional<T> DecodeCaseObject(const std::filesystem::path& path,
                                  const std::string& text, bool defaulted) {
  auto documents = encoding::ReadDocuments(text, path.string());
  if (!documents.ok() || documents->size() != 1) return std::nullopt;
  std::vector<api::DecodeResult> decoded =
      api::DecodeDocument((*documents)[0].json);
  if (decoded.size() != 1 || !decoded[0].errors.empty()) return std::nullopt;
  api::Object object = *decoded[0].object;
  if (defaulted) api::ApplyDefaults(object);
  const auto* found = std::get_if<T>(&object);
  if (found == nullptr) return std::nullopt;
  return *found;
}

}  // namespace dralloc::quota::usage_case

#endif  // DRALLOC_QUOTA_USAGE_CASE_TEST_UTIL_H_
