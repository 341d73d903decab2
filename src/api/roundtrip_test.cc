// Every object in examples/ and tests/golden/ round-trips losslessly:
// decode → encode (preferred version) → decode gives an equal object, and so
// does the trip through every other served version (v1 ↔ v1beta1 ↔ v1beta2),
// through YAML as well as JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec.h"
#include "encoding/document_reader.h"
#include "encoding/yaml_writer.h"

namespace dralloc::api {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> ManifestFiles() {
  std::vector<fs::path> files;
  for (const char* root : {"examples", "tests/golden"}) {
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() &&
          (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decodes `text` (one document) and expects exactly one object.
Object DecodeOne(const std::string& text, const std::string& what) {
  auto documents = encoding::ReadDocuments(text, what);
  EXPECT_TRUE(documents.ok()) << what << ": " << documents.status();
  if (!documents.ok() || documents->size() != 1) {
    ADD_FAILURE() << what << ": expected one document";
    return Object();
  }
  std::vector<DecodeResult> decoded = DecodeDocument((*documents)[0].json);
  if (decoded.size() != 1 || !decoded[0].object.has_value()) {
    ADD_FAILURE() << what << ": decode failed: "
                  << (decoded.empty() ? "" : ToString(decoded[0].errors));
    return Object();
  }
  return *decoded[0].object;
}

class RoundTripTest : public testing::TestWithParam<fs::path> {};

TEST_P(RoundTripTest, EveryServedVersionIsLossless) {
  const fs::path& path = GetParam();
  auto documents = encoding::ReadDocuments(ReadAll(path), path.string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  int objects = 0;
  for (const encoding::Document& document : *documents) {
    for (const DecodeResult& result : DecodeDocument(document.json)) {
      if (!result.object.has_value())
        continue;  // Broken on purpose; not a round-trip case.
      ++objects;
      const Object& original = *result.object;
      for (std::string_view version : ServedVersions(original)) {
        SCOPED_TRACE(path.string() + ": " + result.DisplayName() + " via " +
                     std::string(version));
        StatusOr<Json> encoded = EncodeObject(original, version);
        if (!encoded.ok()) continue;  // The version cannot express this object.
        StatusOr<std::string> text = EncodeObjectText(original, version);
        ASSERT_TRUE(text.ok()) << text.status();
        EXPECT_EQ(*text, encoded->dump());
        const Object from_json = DecodeOne(encoded->dump(), "json");
        EXPECT_TRUE(from_json == original);
        const Object from_yaml = DecodeOne(encoding::ToYaml(*encoded), "yaml");
        EXPECT_TRUE(from_yaml == original);
      }
    }
  }
  SUCCEED() << objects << " objects";
}

INSTANTIATE_TEST_SUITE_P(Manifests, RoundTripTest,
                         testing::ValuesIn(ManifestFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.string();
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           }
                           return name;
                         });

TEST(RoundTripCorpus, CoversExamplesAndGoldenCases) {
  EXPECT_GE(ManifestFiles().size(), 60u);
}

}  // namespace
}  // namespace dralloc::api
