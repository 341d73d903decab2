// The resource.k8s.io/v1alpha2 wire structs: every object of the golden
// files under tests/golden/v1alpha2 decodes strictly and encodes back to
// exactly its JSON; unknown fields are refused with their path.
#include "api/v1alpha2/types.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api/struct_codec.h"
#include "encoding/document_reader.h"

namespace dralloc::api::v1alpha2 {
namespace {

namespace fs = std::filesystem;

const char kGoldenRoot[] = "tests/golden/v1alpha2";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decodes `json` strictly as T and encodes it again; the errors otherwise.
template <typename T>
std::string RoundTrip(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(json).get(element) != simdjson::SUCCESS) return "bad json";
  DecodeContext ctx(DecodeOptions{.strict = true});
  std::optional<T> value = DecodeRoot<T>(element, ctx);
  if (!value.has_value()) return "errors: " + ToString(ctx.errors());
  return EncodeValue(*value).dump();
}

std::string RoundTripKind(const std::string& kind, const std::string& json) {
  if (kind == "ResourceClass") return RoundTrip<ResourceClass>(json);
  if (kind == "ResourceClaim") return RoundTrip<ResourceClaim>(json);
  if (kind == "ResourceClaimTemplate") {
    return RoundTrip<ResourceClaimTemplate>(json);
  }
  if (kind == "PodSchedulingContext") {
    return RoundTrip<PodSchedulingContext>(json);
  }
  if (kind == "ResourceSlice") return RoundTrip<ResourceSlice>(json);
  if (kind == "ResourceClaimParameters") {
    return RoundTrip<ResourceClaimParameters>(json);
  }
  if (kind == "ResourceClassParameters") {
    return RoundTrip<ResourceClassParameters>(json);
  }
  return "unknown kind " + kind;
}

TEST(V1alpha2TypesTest, GoldenObjectsRoundTripExactly) {
  std::vector<std::string> kinds;
  for (const auto& entry : fs::directory_iterator(kGoldenRoot)) {
    if (entry.path().extension() != ".yaml") continue;
    auto documents =
        encoding::ReadDocuments(ReadFile(entry.path()), entry.path().string());
    ASSERT_TRUE(documents.ok()) << documents.status();
    for (const encoding::Document& document : *documents) {
      const nlohmann::json input = nlohmann::json::parse(document.json);
      const std::string kind = input.value("kind", "");
      kinds.push_back(kind);
      EXPECT_EQ(input.value("apiVersion", ""), kApiVersion);
      const std::string output = RoundTripKind(kind, document.json);
      ASSERT_TRUE(nlohmann::json::accept(output))
          << entry.path() << " " << kind << ": " << output;
      EXPECT_EQ(nlohmann::json::parse(output), input)
          << entry.path() << " " << kind;
    }
  }
  // Every kind of 1.30's v1alpha2 has a golden object.
  for (const char* kind :
       {"ResourceClass", "ResourceClaim", "ResourceClaimTemplate",
        "PodSchedulingContext", "ResourceSlice", "ResourceClaimParameters",
        "ResourceClassParameters"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  }
}

TEST(V1alpha2TypesTest, UnknownFieldsAreRefusedWithTheirPath) {
  const std::string claim = R"({"apiVersion":"resource.k8s.io/v1alpha2",
    "kind":"ResourceClaim","metadata":{"name":"c"},
    "spec":{"resourceClassNme":"gpu"}})";
  const std::string result = RoundTrip<ResourceClaim>(claim);
  EXPECT_NE(result.find("errors: "), std::string::npos) << result;
  EXPECT_NE(result.find("spec.resourceClassNme"), std::string::npos) << result;
}

TEST(V1alpha2TypesTest, RequiredFieldsAreWrittenEvenWhenEmpty) {
  ResourceSlice slice;
  slice.named_resources.emplace();
  EXPECT_EQ(
      EncodeValue(slice).dump(),
      R"({"metadata":{},"driverName":"","namedResources":{"instances":[]}})");
  ResourceClaimConsumerReference pod;
  EXPECT_EQ(EncodeValue(pod).dump(), R"({"resource":"","name":"","uid":""})");
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
