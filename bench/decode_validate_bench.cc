// Decode + validate of a full ResourceSlice: 128 devices, 30 attributes each
// (10 strings, 10 ints, 5 bools, 5 versions) plus a memory capacity.
// Goal (issue #2): under 1 ms for JSON input. Attribute names are written
// sorted, as Go (drivers, the API server) writes map keys.
#include <benchmark/benchmark.h>

#include <string>

#include "api/codec.h"
#include "api/validation/validation.h"
#include "encoding/document_reader.h"
#include "encoding/yaml_writer.h"

namespace dralloc {
namespace {

// `qualified`: attribute names carry the driver domain
// ("gpu.example.com/attr7") instead of the short form drivers usually publish
// ("attr7").
api::Json MakeSlice(bool qualified = false) {
  api::Json devices = api::Json::array();
  for (int d = 0; d < 128; ++d) {
    nlohmann::json attributes = nlohmann::json::object();  // sorted keys
    for (int a = 0; a < 30; ++a) {
      const std::string name =
          (qualified ? "gpu.example.com/attr" : "attr") + std::to_string(a);
      if (a < 10) {
        attributes[name] = {
            {"string", "value-" + std::to_string(a) + "-" + std::to_string(d)}};
      } else if (a < 20) {
        attributes[name] = {{"int", a * d}};
      } else if (a < 25) {
        attributes[name] = {{"bool", (a + d) % 2 == 0}};
      } else {
        attributes[name] = {
            {"version", "1." + std::to_string(a) + "." + std::to_string(d)}};
      }
    }
    devices.push_back({{"name", "gpu-" + std::to_string(d)},
                       {"attributes", attributes},
                       {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  }
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceSlice"},
      {"metadata", {{"name", "node-a-gpus"}}},
      {"spec",
       {{"driver", "gpu.example.com"},
        {"nodeName", "node-a"},
        {"pool",
         {{"name", "node-a"}, {"generation", 1}, {"resourceSliceCount", 1}}},
        {"devices", devices}}}};
}

void DecodeAndValidate(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    std::vector<api::DecodeResult> decoded;
    Status status = encoding::VisitDocuments(
        text, "bench",
        [&](const encoding::Document&, simdjson::dom::element root) {
          decoded = api::DecodeElement(root);
        });
    if (!status.ok() || decoded.size() != 1 || !decoded[0].object.has_value()) {
      state.SkipWithError("read or decode failed");
      break;
    }
    api::ErrorList errors = api::Validate(*decoded[0].object);
    if (!errors.empty()) {
      state.SkipWithError(errors[0].ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(errors);
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(text.size()));
}

void BM_DecodeValidateSliceJson(benchmark::State& state) {
  DecodeAndValidate(state, MakeSlice().dump());
}
BENCHMARK(BM_DecodeValidateSliceJson)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

void BM_DecodeValidateSliceJsonQualifiedNames(benchmark::State& state) {
  DecodeAndValidate(state, MakeSlice(/*qualified=*/true).dump());
}
BENCHMARK(BM_DecodeValidateSliceJsonQualifiedNames)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

void BM_DecodeValidateSliceYaml(benchmark::State& state) {
  DecodeAndValidate(state, encoding::ToYaml(MakeSlice()));
}
BENCHMARK(BM_DecodeValidateSliceYaml)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

void BM_DecodeSliceJsonOnly(benchmark::State& state) {
  const std::string text = MakeSlice().dump();
  for (auto _ : state) {
    auto decoded = api::DecodeDocument(text);
    benchmark::DoNotOptimize(decoded);
  }
}
BENCHMARK(BM_DecodeSliceJsonOnly)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

void BM_ValidateSliceOnly(benchmark::State& state) {
  auto decoded = api::DecodeDocument(MakeSlice().dump());
  for (auto _ : state) {
    api::ErrorList errors = api::Validate(*decoded[0].object);
    benchmark::DoNotOptimize(errors);
  }
}
BENCHMARK(BM_ValidateSliceOnly)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

void BM_EncodeSliceJson(benchmark::State& state) {
  auto decoded = api::DecodeDocument(MakeSlice().dump());
  for (auto _ : state) {
    auto json = api::EncodeObject(*decoded[0].object, api::kResourceV1);
    benchmark::DoNotOptimize(json->dump());
  }
}
BENCHMARK(BM_EncodeSliceJson)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

}  // namespace
}  // namespace dralloc

namespace dralloc {
namespace {

void BM_ReadDocumentsJsonOnly(benchmark::State& state) {
  const std::string text = MakeSlice().dump();
  for (auto _ : state) {
    auto documents = encoding::ReadDocuments(text, "bench");
    benchmark::DoNotOptimize(documents);
  }
}
BENCHMARK(BM_ReadDocumentsJsonOnly)
    ->Unit(benchmark::kMicrosecond)
    ->MinWarmUpTime(0.2);

}  // namespace
}  // namespace dralloc
