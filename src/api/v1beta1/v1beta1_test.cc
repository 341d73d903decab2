// Tests of resource.k8s.io/v1beta1: the golden conversion pairs under
// tests/golden/conversion, randomized round trips over every field, and the
// conversion rules one by one.
//
// Golden files are named <name>.<version>.yaml; all files of one name hold
// equivalent objects (a List holds several). A file whose first line starts
// with "# non-canonical" is not what dralloc would write for its objects; the
// others must be reproduced exactly (as JSON values) by encoding.
#include "api/v1beta1/v1beta1.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "api/codec.h"
#include "api/v1beta1/types.h"
#include "encoding/document_reader.h"

namespace dralloc::api {
namespace {

namespace fs = std::filesystem;

const char kGoldenRoot[] = "tests/golden/conversion";
constexpr std::string_view kVersions[] = {kResourceV1, kResourceV1beta1,
                                          kResourceV1beta2};

// ---- Helpers ----

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string Show(const Object& object) {
  StatusOr<Json> json = EncodeObject(object, kResourceV1);
  return json.ok() ? json->dump(2) : json.status().ToString();
}

// Decodes one JSON document strictly; every result must succeed.
std::vector<Object> DecodeAll(std::string_view json, const std::string& what) {
  std::vector<Object> objects;
  for (DecodeResult& result : DecodeDocument(json)) {
    EXPECT_TRUE(result.errors.empty())
        << what << ": " << ToString(result.errors);
    if (result.object.has_value()) objects.push_back(std::move(*result.object));
  }
  return objects;
}

// The objects of a golden file and the JSON of each, as written.
struct GoldenFile {
  fs::path path;
  std::string api_version;  // resource.k8s.io/<version from the file name>
  bool canonical = true;
  std::vector<Object> objects;
  std::vector<nlohmann::json> items;
};

GoldenFile LoadGolden(const fs::path& path) {
  GoldenFile file;
  file.path = path;
  file.api_version =
      "resource.k8s.io/" + path.stem().extension().string().substr(1);
  const std::string text = ReadFile(path);
  file.canonical = !text.starts_with("# non-canonical");
  auto documents = encoding::ReadDocuments(text, path.string());
  EXPECT_TRUE(documents.ok()) << documents.status();
  if (!documents.ok()) return file;
  for (const encoding::Document& document : *documents) {
    for (Object& object : DecodeAll(document.json, path.string())) {
      file.objects.push_back(std::move(object));
    }
    nlohmann::json json = nlohmann::json::parse(document.json);
    if (json.value("kind", "") == "List") {
      for (auto& item : json["items"]) file.items.push_back(std::move(item));
    } else {
      file.items.push_back(std::move(json));
    }
  }
  return file;
}

// Golden file groups by name: name → files of all versions.
std::map<std::string, std::vector<fs::path>> GoldenGroups() {
  std::map<std::string, std::vector<fs::path>> groups;
  if (!fs::exists(kGoldenRoot)) return groups;
  for (const auto& entry : fs::directory_iterator(kGoldenRoot)) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || path.extension() != ".yaml") continue;
    groups[path.stem().stem().string()].push_back(path);
  }
  for (auto& [name, files] : groups) std::sort(files.begin(), files.end());
  return groups;
}

std::vector<std::string> GoldenNames() {
  std::vector<std::string> names;
  for (const auto& [name, files] : GoldenGroups()) names.push_back(name);
  return names;
}

// Encodes `object` in `api_version`, decodes the result and expects `object`.
void ExpectRoundTrip(const Object& object, std::string_view api_version) {
  SCOPED_TRACE(std::string(api_version));
  StatusOr<Json> encoded = EncodeObject(object, api_version);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  ASSERT_GE(encoded->size(), 2u);
  EXPECT_EQ(encoded->begin().key(), "apiVersion");
  EXPECT_EQ(std::next(encoded->begin()).key(), "kind");
  EXPECT_EQ((*encoded)["apiVersion"], std::string(api_version));
  const std::string text = encoded->dump();
  std::vector<DecodeResult> decoded = DecodeDocument(text);
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_TRUE(decoded[0].errors.empty()) << ToString(decoded[0].errors) << "\n"
                                         << text;
  EXPECT_TRUE(*decoded[0].object == object)
      << "encoded:\n"
      << encoded->dump(2) << "\ndecoded (v1):\n"
      << Show(*decoded[0].object) << "\nwant (v1):\n"
      << Show(object);
}

// ---- Golden pairs ----

class ConversionGoldenTest : public testing::TestWithParam<std::string> {
 protected:
  std::vector<GoldenFile> Files() {
    std::vector<GoldenFile> files;
    const auto groups = GoldenGroups();
    for (const fs::path& path : groups.at(GetParam())) {
      files.push_back(LoadGolden(path));
    }
    return files;
  }
};

TEST_P(ConversionGoldenTest, AllVersionsDecodeToTheSameHubObjects) {
  const std::vector<GoldenFile> files = Files();
  ASSERT_GE(files.size(), 2u)
      << "a conversion case needs at least two versions";
  const GoldenFile& first = files[0];
  ASSERT_FALSE(first.objects.empty());
  for (const GoldenFile& file : files) {
    SCOPED_TRACE(file.path.string());
    ASSERT_EQ(file.objects.size(), first.objects.size());
    for (size_t i = 0; i < file.objects.size(); ++i) {
      EXPECT_TRUE(file.objects[i] == first.objects[i])
          << "object " << i << " differs from " << first.path << "\ngot:\n"
          << Show(file.objects[i]) << "\nwant:\n"
          << Show(first.objects[i]);
    }
  }
}

TEST_P(ConversionGoldenTest, EncodingInEveryVersionDecodesToTheSameObjects) {
  for (const GoldenFile& file : Files()) {
    SCOPED_TRACE(file.path.string());
    for (const Object& object : file.objects) {
      for (std::string_view version : kVersions) {
        if (IsServed(version, object)) ExpectRoundTrip(object, version);
      }
    }
  }
}

TEST_P(ConversionGoldenTest, EncodingReproducesCanonicalFiles) {
  for (const GoldenFile& file : Files()) {
    if (!file.canonical) continue;
    SCOPED_TRACE(file.path.string());
    ASSERT_EQ(file.objects.size(), file.items.size());
    for (size_t i = 0; i < file.objects.size(); ++i) {
      StatusOr<Json> encoded = EncodeObject(file.objects[i], file.api_version);
      ASSERT_TRUE(encoded.ok()) << encoded.status();
      const nlohmann::json got = nlohmann::json::parse(encoded->dump());
      EXPECT_EQ(got, file.items[i]) << "got:\n"
                                    << got.dump(2) << "\nwant:\n"
                                    << file.items[i].dump(2);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Pairs, ConversionGoldenTest,
                         testing::ValuesIn(GoldenNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ConversionGoldenTest);

TEST(ConversionGoldenCorpus, HasPairsForEveryServedKind) {
  const auto groups = GoldenGroups();
  EXPECT_GE(groups.size(), 8u);
  std::map<std::string, int> v1beta1_kinds;
  size_t with_v1beta2 = 0;
  for (const auto& [name, files] : groups) {
    for (const fs::path& path : files) {
      const GoldenFile file = LoadGolden(path);
      if (file.api_version == kResourceV1beta2) ++with_v1beta2;
      if (file.api_version != kResourceV1beta1) continue;
      for (const Object& object : file.objects)
        ++v1beta1_kinds[std::string(KindOf(object))];
    }
  }
  for (const char* kind : {"DeviceClass", "ResourceSlice", "ResourceClaim",
                           "ResourceClaimTemplate"}) {
    EXPECT_GT(v1beta1_kinds[kind], 0) << kind;
  }
  EXPECT_GE(with_v1beta2, 3u);
}

// ---- Randomized round trips ----

// Fills any reflected struct with random values: every field of every type is
// reached through the field tables, so new fields are covered automatically.
class RandomFiller {
 public:
  // full: every optional set and every list and map non-empty.
  RandomFiller(uint32_t seed, bool full) : rng_(seed), full_(full) {}

  template <typename T>
  void Fill(T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      v = Word();
    } else if constexpr (std::is_same_v<T, bool>) {
      v = Below(2) == 0;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      static constexpr int64_t kInts[] = {
          0, 1, -1, 7, 1'000'000'007, INT64_MAX, INT64_MIN};
      v = Below(3) == 0 ? kInts[Below(std::size(kInts))]
                        : static_cast<int64_t>(rng_());
    } else if constexpr (std::is_same_v<T, int32_t>) {
      v = static_cast<int32_t>(rng_());
    } else if constexpr (std::is_same_v<T, Quantity>) {
      static constexpr const char* kQuantities[] = {
          "0",   "1",  "500m",   "1Gi", "80Gi", "10G", "1e3",
          "2.5", "-4", "1536Mi", "7n",  "12Ki", "132"};
      v = *Quantity::Parse(kQuantities[Below(std::size(kQuantities))]);
    } else if constexpr (std::is_same_v<T, RawJson>) {
      static constexpr const char* kRaw[] = {
          R"({"a":1})",
          R"([1,2.5,"x"])",
          R"({"nested":{"list":[true,false,null],"s":"é"}})",
          R"("text")",
          R"(42)",
          R"({})"};
      v.json = kRaw[Below(std::size(kRaw))];
    } else if constexpr (std::is_same_v<T, UnknownFields>) {
      v.clear();  // Resource kinds have none.
    } else if constexpr (IsOptional<T>::value) {
      if (full_ || Below(2) == 0) {
        Fill(v.emplace());
      } else {
        v.reset();
      }
    } else if constexpr (IsVector<T>::value) {
      v.clear();
      const int n = full_ ? 1 + Below(2) : Below(3);
      for (int i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, std::vector<bool>>) {
          v.push_back(Below(2) == 0);
        } else {
          Fill(v.emplace_back());
        }
      }
    } else if constexpr (IsStringMap<T>::value) {
      v.clear();
      const int n = full_ ? 1 + Below(2) : Below(3);
      for (int i = 0; i < n; ++i) Fill(v[Word()]);
    } else {
      static_assert(Reflected<T>, "no field table");
      ForEachField<T>([&](const auto& field) { Fill(v.*(field.member)); });
    }
  }

 private:
  int Below(size_t n) { return static_cast<int>(rng_() % n); }

  std::string Word() {
    static constexpr const char* kWords[] = {"gpu",
                                             "node-1",
                                             "example.com/model",
                                             "H100",
                                             "a\"quoted\"",
                                             "ünï",
                                             "with space",
                                             "line\nbreak",
                                             "1.2.3",
                                             "2025-06-01T10:00:00Z",
                                             "true",
                                             "gpu.example.com",
                                             "x"};
    if (!full_ && Below(6) == 0) return "";
    return kWords[Below(std::size(kWords))] + std::to_string(Below(3));
  }

  std::mt19937 rng_;
  bool full_;
};

// A random hub object of kind T that every served version can express.
template <typename T>
T RandomHub(uint32_t seed, bool full) {
  T object;
  RandomFiller(seed, full).Fill(object);
  object.api_version = std::string(kResourceV1);
  if constexpr (std::is_same_v<T, ResourceSlice>) {
    object.kind = "ResourceSlice";
    // v1beta1 cannot say "set to empty" for these (an error when encoding).
    if (object.spec.node_name.has_value() && object.spec.node_name->empty()) {
      object.spec.node_name = "node-1";
    }
    if (object.spec.all_nodes.has_value()) object.spec.all_nodes = true;
  } else if constexpr (std::is_same_v<T, ResourceClaim>) {
    object.kind = "ResourceClaim";
  } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
    object.kind = "ResourceClaimTemplate";
  } else {
    object.kind = "DeviceClass";
  }
  return object;
}

constexpr int kRandomObjectsPerKind = 150;

template <typename T>
void RoundTripRandomHubObjects() {
  for (int i = 0; i < kRandomObjectsPerKind; ++i) {
    SCOPED_TRACE("seed " + std::to_string(i));
    const Object object =
        RandomHub<T>(static_cast<uint32_t>(i), /*full=*/i < 10);
    for (std::string_view version : kVersions) {
      ExpectRoundTrip(object, version);
      if (testing::Test::HasFailure())
        return;  // One failing seed is enough to report.
    }
  }
}

TEST(V1beta1RandomTest, ResourceSliceRoundTripsThroughEveryVersion) {
  RoundTripRandomHubObjects<ResourceSlice>();
}

TEST(V1beta1RandomTest, ResourceClaimRoundTripsThroughEveryVersion) {
  RoundTripRandomHubObjects<ResourceClaim>();
}

TEST(V1beta1RandomTest, ResourceClaimTemplateRoundTripsThroughEveryVersion) {
  RoundTripRandomHubObjects<ResourceClaimTemplate>();
}

TEST(V1beta1RandomTest, DeviceClassRoundTripsThroughEveryVersion) {
  RoundTripRandomHubObjects<DeviceClass>();
}

// Struct level: hub → v1beta1 → hub is the identity, and so is v1beta1 →
// hub → v1beta1 for v1beta1 objects in the form dralloc writes.
template <typename Hub>
void ConvertRandomHubObjects() {
  for (int i = 0; i < kRandomObjectsPerKind; ++i) {
    SCOPED_TRACE("seed " + std::to_string(i));
    const Hub hub =
        RandomHub<Hub>(static_cast<uint32_t>(1000 + i), /*full=*/i < 10);
    auto wire = v1beta1::FromHub(hub);
    if constexpr (std::is_same_v<Hub, ResourceSlice>) {
      ASSERT_TRUE(wire.ok()) << wire.status();
      EXPECT_TRUE(v1beta1::ToHub(*wire) == hub);
      auto again = v1beta1::FromHub(v1beta1::ToHub(*wire));
      ASSERT_TRUE(again.ok());
      EXPECT_TRUE(*again == *wire);
    } else {
      EXPECT_TRUE(v1beta1::ToHub(wire) == hub);
      EXPECT_TRUE(v1beta1::FromHub(v1beta1::ToHub(wire)) == wire);
    }
  }
}

TEST(V1beta1RandomTest, StructConversionIsLosslessBothWays) {
  ConvertRandomHubObjects<ResourceSlice>();
  ConvertRandomHubObjects<ResourceClaim>();
  ConvertRandomHubObjects<ResourceClaimTemplate>();
}

// Any v1beta1 object, canonical or not: converting to the hub is stable
// under a further round trip through v1beta1.
template <typename Wire>
void ConvertRandomWireObjects() {
  for (int i = 0; i < kRandomObjectsPerKind; ++i) {
    SCOPED_TRACE("seed " + std::to_string(i));
    Wire wire;
    RandomFiller(static_cast<uint32_t>(2000 + i), /*full=*/i < 10).Fill(wire);
    const auto hub = v1beta1::ToHub(wire);
    auto back = v1beta1::FromHub(hub);
    if constexpr (std::is_same_v<Wire, v1beta1::ResourceSlice>) {
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE(v1beta1::ToHub(*back) == hub);
    } else {
      EXPECT_TRUE(v1beta1::ToHub(back) == hub);
    }
  }
}

TEST(V1beta1RandomTest, AnyV1beta1ObjectConvertsStably) {
  ConvertRandomWireObjects<v1beta1::ResourceSlice>();
  ConvertRandomWireObjects<v1beta1::ResourceClaim>();
  ConvertRandomWireObjects<v1beta1::ResourceClaimTemplate>();
}

// ---- Conversion rules ----

// Decodes one object from JSON text (strict unless told otherwise).
DecodeResult DecodeOne(std::string_view json, DecodeOptions options = {}) {
  std::vector<DecodeResult> results = DecodeDocument(json, options);
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? DecodeResult{} : std::move(results[0]);
}

std::string V1beta1Claim(std::string_view request) {
  return R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim",)"
         R"("metadata":{"name":"c"},"spec":{"devices":{"requests":[)" +
         std::string(request) + "]}}}";
}

std::string V1beta1Slice(std::string_view spec_extra,
                         std::string_view devices) {
  return R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice",)"
         R"("metadata":{"name":"s"},"spec":{"driver":"d.example.com",)"
         R"("pool":{"name":"p","generation":1,"resourceSliceCount":1})" +
         std::string(spec_extra) + R"(,"devices":[)" + std::string(devices) +
         "]}}";
}

const DeviceRequest& FirstRequest(const DecodeResult& result) {
  return std::get<ResourceClaim>(*result.object).spec.devices.requests.at(0);
}

TEST(V1beta1DecodeTest, AnyExactFieldMakesAnExactlyRequest) {
  const char* kRequests[] = {
      R"({"name":"r","deviceClassName":"c"})",
      R"({"name":"r","selectors":[]})",
      R"({"name":"r","allocationMode":"All"})",
      R"({"name":"r","count":2})",
      R"({"name":"r","adminAccess":false})",
      R"({"name":"r","tolerations":[]})",
      R"({"name":"r","capacity":{}})",
  };
  for (const char* request : kRequests) {
    SCOPED_TRACE(request);
    const DecodeResult result = DecodeOne(V1beta1Claim(request));
    ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
    EXPECT_TRUE(FirstRequest(result).exactly.has_value());
    EXPECT_TRUE(FirstRequest(result).first_available.empty());
  }
}

TEST(V1beta1DecodeTest, NullListsAndEmptyValuesDoNotMakeAnExactlyRequest) {
  const DecodeResult result = DecodeOne(V1beta1Claim(
      R"({"name":"r","deviceClassName":"","selectors":null,"tolerations":null,"count":0,)"
      R"("allocationMode":"","firstAvailable":[{"name":"a","deviceClassName":"c"}]})"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const DeviceRequest& request = FirstRequest(result);
  EXPECT_EQ(request.name, "r");
  EXPECT_FALSE(request.exactly.has_value());
  ASSERT_EQ(request.first_available.size(), 1u);
  EXPECT_EQ(request.first_available[0].device_class_name, "c");
}

TEST(V1beta1DecodeTest, ExactFieldsAndFirstAvailableAreBothKept) {
  const DecodeResult result = DecodeOne(V1beta1Claim(
      R"({"name":"r","deviceClassName":"c","count":3,"adminAccess":true,)"
      R"("tolerations":[{"operator":"Exists"}],"capacity":{"requests":{"memory":"1Gi"}},)"
      R"("selectors":[{"cel":{"expression":"true"}}],"allocationMode":"ExactCount",)"
      R"("firstAvailable":[{"name":"a","deviceClassName":"c2"}]})"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const DeviceRequest& request = FirstRequest(result);
  ASSERT_TRUE(request.exactly.has_value());
  EXPECT_EQ(request.exactly->device_class_name, "c");
  EXPECT_EQ(request.exactly->count, 3);
  EXPECT_EQ(request.exactly->admin_access, true);
  EXPECT_EQ(request.exactly->allocation_mode, "ExactCount");
  ASSERT_EQ(request.exactly->selectors.size(), 1u);
  ASSERT_EQ(request.exactly->tolerations.size(), 1u);
  ASSERT_TRUE(request.exactly->capacity.has_value());
  EXPECT_EQ(request.exactly->capacity->requests.at("memory"),
            *Quantity::Parse("1Gi"));
  ASSERT_EQ(request.first_available.size(), 1u);

  // And back: both halves, flat.
  StatusOr<Json> encoded = EncodeObject(*result.object, kResourceV1beta1);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  const Json& out = (*encoded)["spec"]["devices"]["requests"][0];
  EXPECT_EQ(out["deviceClassName"], "c");
  EXPECT_EQ(out["count"], 3);
  EXPECT_EQ(out["firstAvailable"][0]["name"], "a");
  EXPECT_FALSE(out.contains("exactly"));
}

TEST(V1beta1EncodeTest, EmptyExactlyIsWrittenAsEmptySelectors) {
  ResourceClaim claim;
  claim.metadata.name = "c";
  claim.spec.devices.requests.push_back(
      {.name = "r", .exactly = ExactDeviceRequest{}});
  StatusOr<Json> encoded = EncodeObject(claim, kResourceV1beta1);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  const Json& request = (*encoded)["spec"]["devices"]["requests"][0];
  EXPECT_EQ(request,
            Json::parse(R"({"name":"r","deviceClassName":"","selectors":[]})"));

  // Non-empty exactly fields need no marker.
  claim.spec.devices.requests[0].exactly->count = 1;
  encoded = EncodeObject(claim, kResourceV1beta1);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ((*encoded)["spec"]["devices"]["requests"][0],
            Json::parse(R"({"name":"r","deviceClassName":"","count":1})"));
}

TEST(V1beta1EncodeTest, RequestWithoutExactlyWritesOnlyNameAndDeviceClassName) {
  DeviceRequest request{.name = "r"};
  request.first_available.push_back({.name = "a", .device_class_name = "c"});
  const v1beta1::DeviceRequest wire = v1beta1::FromHub(request);
  EXPECT_EQ(
      EncodeValue(wire),
      Json::parse(R"({"name":"r","deviceClassName":"",)"
                  R"("firstAvailable":[{"name":"a","deviceClassName":"c"}]})"));
  EXPECT_TRUE(v1beta1::ToHub(wire) == request);
}

TEST(V1beta1DecodeTest, DeviceWithoutBasicHasOnlyAName) {
  const DecodeResult result =
      DecodeOne(V1beta1Slice(R"(,"allNodes":true)", R"({"name":"d"})"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const ResourceSlice& slice = std::get<ResourceSlice>(*result.object);
  ASSERT_EQ(slice.spec.devices.size(), 1u);
  EXPECT_TRUE(slice.spec.devices[0] == Device{.name = "d"});
}

TEST(V1beta1EncodeTest, DeviceAlwaysGetsBasicLikeUpstream) {
  EXPECT_EQ(EncodeValue(v1beta1::FromHub(Device{.name = "d"})),
            Json::parse(R"({"name":"d","basic":{}})"));
  Device device{.name = "d", .node_name = "n", .all_nodes = false};
  EXPECT_EQ(
      EncodeValue(v1beta1::FromHub(device)),
      Json::parse(R"({"name":"d","basic":{"nodeName":"n","allNodes":false}})"));
  EXPECT_TRUE(v1beta1::ToHub(v1beta1::FromHub(device)) == device);
}

TEST(V1beta1DecodeTest, EmptyNodeNameAndFalseAllNodesMeanUnset) {
  const DecodeResult result = DecodeOne(V1beta1Slice(
      R"(,"nodeName":"","allNodes":false,"nodeSelector":{"nodeSelectorTerms":[]})",
      ""));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const ResourceSlice& slice = std::get<ResourceSlice>(*result.object);
  EXPECT_FALSE(slice.spec.node_name.has_value());
  EXPECT_FALSE(slice.spec.all_nodes.has_value());
  EXPECT_TRUE(slice.spec.node_selector.has_value());

  const DecodeResult set =
      DecodeOne(V1beta1Slice(R"(,"nodeName":"n1","allNodes":true)", ""));
  ASSERT_TRUE(set.errors.empty()) << ToString(set.errors);
  EXPECT_EQ(std::get<ResourceSlice>(*set.object).spec.node_name, "n1");
  EXPECT_EQ(std::get<ResourceSlice>(*set.object).spec.all_nodes, true);
}

TEST(V1beta1EncodeTest, SliceValuesV1beta1CannotExpressAreErrors) {
  ResourceSlice slice;
  slice.metadata.name = "s";
  slice.spec.all_nodes = false;
  StatusOr<Json> encoded = EncodeObject(slice, kResourceV1beta1);
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(encoded.status().message().find("spec.allNodes"),
            std::string::npos);

  slice.spec.all_nodes.reset();
  slice.spec.node_name = "";
  encoded = EncodeObject(slice, kResourceV1beta1);
  ASSERT_FALSE(encoded.ok());
  EXPECT_NE(encoded.status().message().find("spec.nodeName"),
            std::string::npos);

  // Unset values are written as nothing.
  slice.spec.node_name.reset();
  encoded = EncodeObject(slice, kResourceV1beta1);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_FALSE((*encoded)["spec"].contains("nodeName"));
  EXPECT_FALSE((*encoded)["spec"].contains("allNodes"));
}

TEST(V1beta1DecodeTest, UnknownFieldsHaveV1beta1Paths) {
  struct Case {
    std::string json;
    std::string path;
  };
  const Case cases[] = {
      {V1beta1Slice("", R"({"name":"d","basic":{"foo":1}})"),
       "spec.devices[0].basic.foo"},
      // v1's flat device fields are unknown in v1beta1.
      {V1beta1Slice("", R"({"name":"d","attributes":{}})"),
       "spec.devices[0].attributes"},
      // v1's `exactly` is unknown in v1beta1.
      {V1beta1Claim(R"({"name":"r","exactly":{"deviceClassName":"c"}})"),
       "spec.devices.requests[0].exactly"},
      {V1beta1Claim(
           R"({"name":"r","firstAvailable":[{"name":"a","bogus":true}]})"),
       "spec.devices.requests[0].firstAvailable[0].bogus"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    const DecodeResult strict = DecodeOne(c.json);
    ASSERT_EQ(strict.errors.size(), 1u) << ToString(strict.errors);
    EXPECT_EQ(strict.errors[0].type, FieldErrorType::kUnknownField);
    EXPECT_EQ(strict.errors[0].field, c.path);
    EXPECT_FALSE(strict.object.has_value());

    const DecodeResult lenient = DecodeOne(c.json, {.strict = false});
    EXPECT_TRUE(lenient.errors.empty()) << ToString(lenient.errors);
    ASSERT_EQ(lenient.warnings.size(), 1u);
    EXPECT_EQ(lenient.warnings[0].field, c.path);
    EXPECT_TRUE(lenient.object.has_value());
  }
}

TEST(V1beta1DecodeTest, TypeErrorsHaveV1beta1Paths) {
  const DecodeResult result =
      DecodeOne(V1beta1Claim(R"({"name":"r","count":"two"})"));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].field, "spec.devices.requests[0].count");
  EXPECT_EQ(result.errors[0].type, FieldErrorType::kTypeInvalid);
  EXPECT_NE(result.errors[0].detail.find("expected integer"),
            std::string::npos);

  const DecodeResult basic =
      DecodeOne(V1beta1Slice("", R"({"name":"d","basic":{"allNodes":"yes"}})"));
  ASSERT_EQ(basic.errors.size(), 1u);
  EXPECT_EQ(basic.errors[0].field, "spec.devices[0].basic.allNodes");
}

TEST(V1beta1DecodeTest, DecodedObjectsCarryTheHubVersion) {
  const DecodeResult result =
      DecodeOne(V1beta1Claim(R"({"name":"r","deviceClassName":"c"})"));
  ASSERT_TRUE(result.object.has_value());
  EXPECT_EQ(result.api_version, kResourceV1beta1);  // as written
  EXPECT_EQ(std::get<ResourceClaim>(*result.object).api_version, kResourceV1);
  EXPECT_EQ(std::get<ResourceClaim>(*result.object).kind, "ResourceClaim");
}

TEST(V1beta1Test, ServesOnlyTheFourKinds) {
  for (const char* kind : {"DeviceClass", "ResourceSlice", "ResourceClaim",
                           "ResourceClaimTemplate"}) {
    EXPECT_TRUE(v1beta1::Serves(kind)) << kind;
    EXPECT_TRUE(IsServed(kResourceV1beta1, kind)) << kind;
  }
  for (const char* kind :
       {"DeviceTaintRule", "ResourceSlicePatch", "Pod", "Node", "Bogus"}) {
    EXPECT_FALSE(v1beta1::Serves(kind)) << kind;
    EXPECT_FALSE(IsServed(kResourceV1beta1, kind)) << kind;
  }
}

TEST(V1beta1EncodeTest, UnservedKindsAreInvalidArgument) {
  const Object objects[] = {DeviceTaintRule{}, ResourceSlicePatch{}, Pod{},
                            Namespace{}};
  for (const Object& object : objects) {
    StatusOr<Json> direct = v1beta1::Encode(object);
    ASSERT_FALSE(direct.ok()) << KindOf(object);
    EXPECT_EQ(direct.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(direct.status().message().find(KindOf(object)),
              std::string::npos);
    StatusOr<Json> via_codec = EncodeObject(object, kResourceV1beta1);
    ASSERT_FALSE(via_codec.ok());
    EXPECT_EQ(via_codec.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(V1beta1DecodeTest, UnservedKindIsNoMatch) {
  const DecodeResult result = DecodeOne(
      R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"DeviceTaintRule","metadata":{"name":"x"}})");
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_NE(
      result.errors[0].detail.find(
          R"(no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta1")"),
      std::string::npos);
}

TEST(V1beta1EncodeTest, HeaderComesFirst) {
  DeviceClass device_class;
  device_class.api_version = std::string(kResourceV1);
  device_class.kind = "DeviceClass";
  device_class.metadata.name = "gpu";
  StatusOr<Json> encoded = v1beta1::Encode(device_class);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->dump(),
            R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"DeviceClass",)"
            R"("metadata":{"name":"gpu"},"spec":{}})");
}

}  // namespace
}  // namespace dralloc::api
