#include "allocator/slice_patcher.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/codec.h"
#include "common/quantity.h"
#include "encoding/document_reader.h"

namespace dralloc::allocator {
namespace {

template <typename T>
T Decode(const std::string& yaml) {
  auto documents = encoding::ReadDocuments(yaml, "test");
  if (!documents.ok() || documents->size() != 1) {
    ADD_FAILURE() << "bad YAML: " << yaml;
    return T{};
  }
  std::vector<api::DecodeResult> decoded =
      api::DecodeDocument((*documents)[0].json);
  if (decoded.size() != 1 || !decoded[0].object.has_value() ||
      !std::holds_alternative<T>(*decoded[0].object)) {
    ADD_FAILURE() << "decode failed: "
                  << (decoded.empty() ? "" : api::ToString(decoded[0].errors))
                  << "\n"
                  << yaml;
    return T{};
  }
  return std::get<T>(*decoded[0].object);
}

// A patch named `name` with `body` as the YAML of spec.devices (indented by
// four spaces) and optional metadata extras.
api::ResourceSlicePatch Patch(const std::string& name, const std::string& body,
                              const std::string& metadata_extra = "") {
  return Decode<api::ResourceSlicePatch>(
      "apiVersion: resource.k8s.io/v1alpha3\n"
      "kind: ResourceSlicePatch\n"
      "metadata: {name: " +
      name + metadata_extra +
      "}\n"
      "spec:\n"
      "  devices:\n" +
      body);
}

// A v1alpha3 rule (which still has deviceClassName and selectors); an empty
// `selector` leaves spec.deviceSelector unset.
api::DeviceTaintRule Rule(const std::string& name, const std::string& selector,
                          const std::string& key = "example.com/tainted") {
  std::string yaml =
      "apiVersion: resource.k8s.io/v1alpha3\n"
      "kind: DeviceTaintRule\n"
      "metadata: {name: " +
      name +
      "}\n"
      "spec:\n";
  if (!selector.empty()) yaml += "  deviceSelector: " + selector + "\n";
  yaml += "  taint: {key: " + key + ", effect: NoSchedule}\n";
  return Decode<api::DeviceTaintRule>(yaml);
}

const char kSlice1[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.example.com
  pool: {name: worker-1, generation: 1, resourceSliceCount: 1}
  nodeName: worker-1
  devices:
  - name: gpu-0
    attributes:
      model: {string: A100}
      gpu.example.com/memoryType: {string: HBM2}
      example.com/rack: {string: r1}
    capacity:
      memory: {value: 40Gi}
    taints:
    - {key: example.com/own, effect: NoSchedule}
  - name: gpu-1
    attributes:
      model: {string: H100}
    capacity:
      memory: {value: 80Gi}
)";

const char kSlice2[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s2}
spec:
  driver: gpu.example.com
  pool: {name: worker-2, generation: 1, resourceSliceCount: 1}
  nodeName: worker-2
  devices:
  - name: gpu-0
    attributes:
      model: {string: A100}
)";

const char kSlice3[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s3}
spec:
  driver: nic.example.com
  pool: {name: worker-1, generation: 1, resourceSliceCount: 1}
  nodeName: worker-1
  devices:
  - name: nic-0
    attributes:
      model: {string: A100}
)";

class SlicePatcherTest : public ::testing::Test {
 protected:
  SlicePatcherTest() {
    slices_ = {Decode<api::ResourceSlice>(kSlice1),
               Decode<api::ResourceSlice>(kSlice2),
               Decode<api::ResourceSlice>(kSlice3)};
    AddClass("a100",
             {R"(device.driver == "gpu.example.com")",
              R"(device.attributes["gpu.example.com"].model == "A100")"});
    AddClass("broken", {R"(device.attributes["gpu.example.com"].nope == 1)"});
  }

  void AddClass(const std::string& name,
                const std::vector<std::string>& expressions) {
    api::DeviceClass& c = classes_[name];
    c.metadata.name = name;
    for (const std::string& e : expressions) {
      c.spec.selectors.push_back({api::CELDeviceSelector{e}});
    }
  }

  ClassLookup Lookup() const {
    return [this](std::string_view name) -> const api::DeviceClass* {
      auto it = classes_.find(std::string(name));
      return it == classes_.end() ? nullptr : &it->second;
    };
  }

  SlicePatcher Make(std::vector<api::ResourceSlicePatch> patches,
                    std::vector<api::DeviceTaintRule> rules = {}) const {
    return SlicePatcher(std::move(patches), std::move(rules), Lookup());
  }

  // Applies `patcher` to all slices.
  std::vector<api::ResourceSlice> ApplyAll(const SlicePatcher& patcher) {
    std::vector<api::ResourceSlice> out;
    for (const api::ResourceSlice& s : slices_) {
      out.push_back(patcher.Apply(s, problems_));
    }
    return out;
  }

  // The patched device "<driver>/<pool>/<name>" of the first ApplyAll.
  const api::Device& DeviceOf(const std::vector<api::ResourceSlice>& slices,
                              const std::string& id) {
    for (const api::ResourceSlice& s : slices) {
      for (const api::Device& d : s.spec.devices) {
        if (s.spec.driver + "/" + s.spec.pool.name + "/" + d.name == id) {
          return d;
        }
      }
    }
    ADD_FAILURE() << "no device " << id;
    static const api::Device kNone;
    return kNone;
  }

  std::vector<api::ResourceSlice> slices_;
  std::map<std::string, api::DeviceClass> classes_;
  std::vector<PatchProblem> problems_;
};

constexpr char kS1Gpu0[] = "gpu.example.com/worker-1/gpu-0";
constexpr char kS1Gpu1[] = "gpu.example.com/worker-1/gpu-1";
constexpr char kS2Gpu0[] = "gpu.example.com/worker-2/gpu-0";
constexpr char kS3Nic0[] = "nic.example.com/worker-1/nic-0";

struct FilterCase {
  std::string name;
  std::string filter;  // YAML flow mapping; empty = no filter
  std::set<std::string> matched;
};

const std::vector<FilterCase>& FilterCases() {
  static const std::vector<FilterCase> cases = {
      {"None", "", {kS1Gpu0, kS1Gpu1, kS2Gpu0, kS3Nic0}},
      {"Empty", "{}", {kS1Gpu0, kS1Gpu1, kS2Gpu0, kS3Nic0}},
      {"Driver", "{driver: gpu.example.com}", {kS1Gpu0, kS1Gpu1, kS2Gpu0}},
      {"Pool", "{pool: worker-1}", {kS1Gpu0, kS1Gpu1, kS3Nic0}},
      {"Device", "{device: gpu-0}", {kS1Gpu0, kS2Gpu0}},
      {"DriverPoolDevice",
       "{driver: gpu.example.com, pool: worker-1, device: gpu-0}",
       {kS1Gpu0}},
      {"NoSuchDriver", "{driver: other.example.com}", {}},
      {"Selector",
       R"({selectors: [{cel: {expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100"'}}]})",
       {kS1Gpu0, kS2Gpu0}},
      {"AllSelectorsMustMatch",
       R"({selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}, {cel: {expression: '"rack" in device.attributes["example.com"]'}}]})",
       {kS1Gpu0}},
      {"SelectorNoMatch", R"({selectors: [{cel: {expression: 'false'}}]})", {}},
      {"DeviceClass", "{deviceClassName: a100}", {kS1Gpu0, kS2Gpu0}},
      {"DeviceClassAndSelector",
       R"({deviceClassName: a100, selectors: [{cel: {expression: '"rack" in device.attributes["example.com"]'}}]})",
       {kS1Gpu0}},
      {"DeviceClassAndPool",
       "{deviceClassName: a100, pool: worker-2}",
       {kS2Gpu0}},
  };
  return cases;
}

class PatchFilterTest : public SlicePatcherTest,
                        public ::testing::WithParamInterface<FilterCase> {};

TEST_P(PatchFilterTest, PatchAppliesToMatchingDevices) {
  const FilterCase& c = GetParam();
  std::string body;
  if (!c.filter.empty()) body += "    filter: " + c.filter + "\n";
  body += "    attributes:\n      example.com/patched: {bool: true}\n";
  SlicePatcher patcher = Make({Patch("p", body)});
  EXPECT_FALSE(patcher.empty());
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  EXPECT_TRUE(problems_.empty()) << problems_[0].message;
  std::set<std::string> matched;
  for (const api::ResourceSlice& s : out) {
    for (const api::Device& d : s.spec.devices) {
      if (d.attributes.contains("example.com/patched")) {
        matched.insert(s.spec.driver + "/" + s.spec.pool.name + "/" + d.name);
      }
    }
  }
  EXPECT_EQ(matched, c.matched);
}

TEST_P(PatchFilterTest, TaintRuleAppliesToMatchingDevices) {
  const FilterCase& c = GetParam();
  SlicePatcher patcher = Make({}, {Rule("r", c.filter)});
  EXPECT_FALSE(patcher.empty());
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  EXPECT_TRUE(problems_.empty()) << problems_[0].message;
  std::set<std::string> matched;
  for (const api::ResourceSlice& s : out) {
    for (const api::Device& d : s.spec.devices) {
      for (const api::DeviceTaint& t : d.taints) {
        if (t.key == "example.com/tainted") {
          matched.insert(s.spec.driver + "/" + s.spec.pool.name + "/" + d.name);
        }
      }
    }
  }
  EXPECT_EQ(matched, c.matched);
}

INSTANTIATE_TEST_SUITE_P(Filters, PatchFilterTest,
                         ::testing::ValuesIn(FilterCases()),
                         [](const ::testing::TestParamInfo<FilterCase>& info) {
                           return info.param.name;
                         });

TEST_F(SlicePatcherTest, EmptyPatcherIsIdentity) {
  SlicePatcher patcher = Make({}, {});
  EXPECT_TRUE(patcher.empty());
  for (const api::ResourceSlice& s : slices_) {
    EXPECT_EQ(patcher.Apply(s, problems_), s);
  }
  EXPECT_TRUE(problems_.empty());
}

TEST_F(SlicePatcherTest, NonMatchingPatcherIsIdentity) {
  SlicePatcher patcher =
      Make({Patch("p",
                  "    filter: {driver: other.example.com}\n"
                  "    attributes: {example.com/x: {int: 1}}\n")},
           {Rule("r", "{pool: nowhere}")});
  for (const api::ResourceSlice& s : slices_) {
    EXPECT_EQ(patcher.Apply(s, problems_), s);
  }
  EXPECT_TRUE(problems_.empty());
}

TEST_F(SlicePatcherTest, NullRemovesAttributes) {
  SlicePatcher patcher =
      Make({Patch("p",
                  "    filter: {device: gpu-0}\n"
                  "    attributes:\n"
                  "      gpu.example.com/model: null\n"
                  "      gpu.example.com/memoryType: {null: "
                  "{}}\n"
                  "      example.com/rack: {null: {}}\n"
                  "      example.com/absent: {null: {}}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  const api::Device& d = DeviceOf(out, kS1Gpu0);
  EXPECT_TRUE(d.attributes.empty());
  EXPECT_EQ(d.capacity.size(), 1u);
  // gpu-1 is not selected.
  EXPECT_EQ(DeviceOf(out, kS1Gpu1).attributes.size(), 1u);
  EXPECT_TRUE(problems_.empty());
}

// Patch attribute names in the driver's domain address the device's
// unprefixed attributes too.
struct AliasCase {
  std::string name;
  std::string patch_key;
  std::string driver_of_device;  // kS1Gpu0 or kS3Nic0
  std::string expected_key;      // where the value ends up
  std::vector<std::string> absent_keys;
  size_t attribute_count;
};

class AliasTest : public SlicePatcherTest,
                  public ::testing::WithParamInterface<AliasCase> {};

TEST_P(AliasTest, StoresUnderTheDevicesKeyForm) {
  const AliasCase& c = GetParam();
  SlicePatcher patcher = Make({Patch(
      "p", "    attributes: {" + c.patch_key + ": {string: patched}}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  const api::Device& d = DeviceOf(out, c.driver_of_device);
  auto it = d.attributes.find(c.expected_key);
  ASSERT_NE(it, d.attributes.end());
  EXPECT_EQ(it->second.string_value, "patched");
  for (const std::string& key : c.absent_keys) {
    EXPECT_FALSE(d.attributes.contains(key)) << key;
  }
  EXPECT_EQ(d.attributes.size(), c.attribute_count);
}

INSTANTIATE_TEST_SUITE_P(
    DriverDomain, AliasTest,
    ::testing::Values(AliasCase{"OverridesUnprefixed",
                                "gpu.example.com/model",
                                kS1Gpu0,
                                "model",
                                {"gpu.example.com/model"},
                                3},
                      AliasCase{"OverridesQualified",
                                "gpu.example.com/memoryType",
                                kS1Gpu0,
                                "gpu.example.com/memoryType",
                                {"memoryType"},
                                3},
                      AliasCase{"NewInDriverDomainIsUnprefixed",
                                "gpu.example.com/serial",
                                kS1Gpu0,
                                "serial",
                                {"gpu.example.com/serial"},
                                4},
                      AliasCase{"OtherDomainStaysQualified",
                                "example.com/model",
                                kS1Gpu0,
                                "example.com/model",
                                {},
                                4},
                      AliasCase{"OtherDomainOverridesQualified",
                                "example.com/rack",
                                kS1Gpu0,
                                "example.com/rack",
                                {"rack"},
                                3},
                      AliasCase{"OtherDriverNotAliased",
                                "gpu.example.com/model",
                                kS3Nic0,
                                "gpu.example.com/model",
                                {},
                                2}),
    [](const ::testing::TestParamInfo<AliasCase>& info) {
      return info.param.name;
    });

TEST_F(SlicePatcherTest, CapacityOverrideAndAdd) {
  SlicePatcher patcher =
      Make({Patch("p",
                  "    filter: {driver: gpu.example.com, pool: worker-1}\n"
                  "    capacity:\n"
                  "      gpu.example.com/memory: {value: 48Gi}\n"
                  "      example.com/power: {value: 300}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  for (const char* id : {kS1Gpu0, kS1Gpu1}) {
    const api::Device& d = DeviceOf(out, id);
    ASSERT_EQ(d.capacity.size(), 2u) << id;
    EXPECT_EQ(d.capacity.at("memory").value, *Quantity::Parse("48Gi")) << id;
    EXPECT_EQ(d.capacity.at("example.com/power").value,
              Quantity::FromInt64(300))
        << id;
  }
  EXPECT_EQ(DeviceOf(out, kS2Gpu0).capacity.size(), 0u);
}

// Two patches set example.com/winner (to their own name, or null when the
// name is in `removes`); which one is left?
struct PrecedenceCase {
  std::string name;
  std::string a_meta;  // extra metadata of patch "a"
  std::string a_priority;
  std::string b_meta;
  std::string b_priority;
  std::string winner;  // "a", "b" or "" (removed)
  std::set<std::string> removes = {};
};

class PrecedenceTest : public SlicePatcherTest,
                       public ::testing::WithParamInterface<PrecedenceCase> {};

TEST_P(PrecedenceTest, WinnerIsAppliedLast) {
  const PrecedenceCase& c = GetParam();
  auto make = [&c](const std::string& name, const std::string& meta,
                   const std::string& priority) {
    std::string body;
    if (!priority.empty()) body += "    priority: " + priority + "\n";
    body += "    filter: {device: gpu-0}\n";
    body +=
        c.removes.contains(name)
            ? "    attributes: {example.com/winner: null}\n"
            : "    attributes: {example.com/winner: {string: " + name + "}}\n";
    return Patch(name, body, meta);
  };
  // Both input orders must give the same result.
  for (bool a_first : {true, false}) {
    std::vector<api::ResourceSlicePatch> patches = {
        make("a", c.a_meta, c.a_priority), make("b", c.b_meta, c.b_priority)};
    if (!a_first) std::swap(patches[0], patches[1]);
    std::vector<api::ResourceSlice> out = ApplyAll(Make(std::move(patches)));
    const api::Device& d = DeviceOf(out, kS1Gpu0);
    auto it = d.attributes.find("example.com/winner");
    if (c.winner.empty()) {
      EXPECT_EQ(it, d.attributes.end()) << "a_first=" << a_first;
    } else {
      ASSERT_NE(it, d.attributes.end()) << "a_first=" << a_first;
      EXPECT_EQ(it->second.string_value, c.winner) << "a_first=" << a_first;
    }
  }
}

constexpr char kOld[] = ", creationTimestamp: \"2025-01-01T00:00:00Z\"";
constexpr char kNew[] = ", creationTimestamp: \"2025-06-01T00:00:00Z\"";

INSTANTIATE_TEST_SUITE_P(
    Order, PrecedenceTest,
    ::testing::Values(
        PrecedenceCase{"HigherPriorityWins", kOld, "1", kNew, "2", "b"},
        PrecedenceCase{"HigherPriorityWinsOverAge", kOld, "-1", kNew, "", "b"},
        PrecedenceCase{"UnsetPriorityIsZero", kOld, "", kNew, "0", "a"},
        PrecedenceCase{"EqualPriorityOlderWins", kNew, "5", kOld, "5", "b"},
        PrecedenceCase{"MissingTimestampIsNewest", "", "", kNew, "", "b"},
        PrecedenceCase{"TimeZonesCompared",
                       ", creationTimestamp: \"2025-06-01T12:00:00+02:00\"", "",
                       ", creationTimestamp: \"2025-06-01T11:00:00Z\"", "",
                       "a"},
        PrecedenceCase{"FractionalSecondsCompared",
                       ", creationTimestamp: \"2025-06-01T11:00:00.5Z\"", "",
                       ", creationTimestamp: \"2025-06-01T11:00:00.25Z\"", "",
                       "b"},
        PrecedenceCase{"SameTimeSmallerNameWins", kOld, "", kOld, "", "a"},
        PrecedenceCase{"NoTimestampsSmallerNameWins", "", "", "", "", "a"},
        PrecedenceCase{"WinnerRemoves", "", "3", "", "1", "", {"a"}},
        PrecedenceCase{"LoserRemoves", "", "3", "", "1", "a", {"b"}}),
    [](const ::testing::TestParamInfo<PrecedenceCase>& info) {
      return info.param.name;
    });

TEST_F(SlicePatcherTest, PatchesFromDifferentNamesMerge) {
  SlicePatcher patcher = Make(
      {Patch("a",
             "    priority: 1\n    attributes: {example.com/a: {int: 1}}\n"),
       Patch("b", "    capacity: {example.com/b: {value: 2}}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  const api::Device& d = DeviceOf(out, kS2Gpu0);
  EXPECT_EQ(d.attributes.at("example.com/a").int_value, 1);
  EXPECT_EQ(d.capacity.at("example.com/b").value, Quantity::FromInt64(2));
}

TEST_F(SlicePatcherTest, SelectorsSeeTheOriginalDevice) {
  // "rename" changes the model with higher precedence; "tag" still selects
  // the device by its original model.
  SlicePatcher patcher =
      Make({Patch("rename",
                  "    priority: 10\n"
                  "    attributes: {gpu.example.com/model: {string: Z}}\n"),
            Patch("tag",
                  "    filter: {deviceClassName: a100}\n"
                  "    attributes: {example.com/tag: {bool: true}}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  const api::Device& d = DeviceOf(out, kS1Gpu0);
  EXPECT_EQ(d.attributes.at("model").string_value, "Z");
  EXPECT_TRUE(d.attributes.contains("example.com/tag"));
  EXPECT_TRUE(problems_.empty());
}

struct ProblemCase {
  std::string name;
  std::string filter;
  std::vector<std::string> devices;  // devices with a problem
  std::string message_prefix;
  std::string message_part;
};

class PatchProblemTest : public SlicePatcherTest,
                         public ::testing::WithParamInterface<ProblemCase> {};

TEST_P(PatchProblemTest, ProblemReportedAndPatchNotApplied) {
  const ProblemCase& c = GetParam();
  // "bad" fails; "good" (no filter) still applies everywhere.
  SlicePatcher patcher =
      Make({Patch("bad", "    filter: " + c.filter +
                             "\n    attributes: {example.com/bad: {int: 1}}\n"),
            Patch("good", "    attributes: {example.com/good: {int: 1}}\n")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  for (const api::ResourceSlice& s : out) {
    for (const api::Device& d : s.spec.devices) {
      EXPECT_FALSE(d.attributes.contains("example.com/bad")) << d.name;
      EXPECT_TRUE(d.attributes.contains("example.com/good")) << d.name;
    }
  }
  ASSERT_EQ(problems_.size(), c.devices.size());
  for (size_t i = 0; i < problems_.size(); ++i) {
    EXPECT_EQ(problems_[i].object, "ResourceSlicePatch bad");
    EXPECT_EQ(problems_[i].device, c.devices[i]);
    EXPECT_TRUE(problems_[i].message.starts_with(c.message_prefix))
        << problems_[i].message;
    EXPECT_NE(problems_[i].message.find(c.message_part), std::string::npos)
        << problems_[i].message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Problems, PatchProblemTest,
    ::testing::Values(
        ProblemCase{
            "CelRuntimeError",
            R"({pool: worker-1, driver: gpu.example.com, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].x == 1'}}]})",
            {kS1Gpu0, kS1Gpu1},
            "selector #0: CEL runtime error: ",
            "no such key: x"},
        ProblemCase{
            "CelNotBool",
            R"({device: gpu-1, selectors: [{cel: {expression: 'true'}}, {cel: {expression: 'device.attributes["gpu.example.com"].model'}}]})",
            {kS1Gpu1},
            "selector #1: CEL runtime error: ",
            "could not be converted to bool"},
        ProblemCase{
            "CelCompileError",
            R"({device: gpu-1, selectors: [{cel: {expression: 'device.('}}]})",
            {kS1Gpu1},
            "selector #0: CEL compile error: ",
            ""},
        ProblemCase{"UnknownClass",
                    "{deviceClassName: nope, pool: worker-2}",
                    {kS2Gpu0},
                    "device class \"nope\" not found",
                    ""},
        ProblemCase{"ClassSelectorError",
                    "{deviceClassName: broken, device: gpu-1}",
                    {kS1Gpu1},
                    "device class \"broken\" selector #0: CEL runtime error: ",
                    "no such key: nope"}),
    [](const ::testing::TestParamInfo<ProblemCase>& info) {
      return info.param.name;
    });

TEST_F(SlicePatcherTest, TaintRuleProblemNamesTheRule) {
  SlicePatcher patcher =
      Make({}, {Rule("r", "{deviceClassName: nope, device: nic-0}")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  EXPECT_TRUE(DeviceOf(out, kS3Nic0).taints.empty());
  ASSERT_EQ(problems_.size(), 1u);
  EXPECT_EQ(problems_[0], (PatchProblem{"DeviceTaintRule r", kS3Nic0,
                                        "device class \"nope\" not found"}));
}

TEST_F(SlicePatcherTest, TaintsAppendedAfterOwnInNameOrder) {
  SlicePatcher patcher =
      Make({}, {Rule("rule-b", "", "example.com/b"),
                Rule("rule-a", "{device: gpu-0}", "example.com/a"),
                Rule("rule-c", "{pool: worker-1}", "example.com/c")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  auto keys = [](const api::Device& d) {
    std::vector<std::string> out;
    for (const api::DeviceTaint& t : d.taints) out.push_back(t.key);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(keys(DeviceOf(out, kS1Gpu0)),
            (V{"example.com/own", "example.com/a", "example.com/b",
               "example.com/c"}));
  EXPECT_EQ(keys(DeviceOf(out, kS1Gpu1)),
            (V{"example.com/b", "example.com/c"}));
  EXPECT_EQ(keys(DeviceOf(out, kS2Gpu0)),
            (V{"example.com/a", "example.com/b"}));
  EXPECT_EQ(keys(DeviceOf(out, kS3Nic0)),
            (V{"example.com/b", "example.com/c"}));
  EXPECT_EQ(DeviceOf(out, kS1Gpu1).taints[0].effect, "NoSchedule");
}

TEST_F(SlicePatcherTest, PatchesAndRulesTogether) {
  SlicePatcher patcher =
      Make({Patch("p",
                  "    filter: {device: gpu-1}\n"
                  "    attributes: {example.com/x: {int: 7}}\n")},
           {Rule("r", "{device: gpu-1}")});
  std::vector<api::ResourceSlice> out = ApplyAll(patcher);
  const api::Device& d = DeviceOf(out, kS1Gpu1);
  EXPECT_EQ(d.attributes.at("example.com/x").int_value, 7);
  ASSERT_EQ(d.taints.size(), 1u);
  EXPECT_EQ(d.taints[0].key, "example.com/tainted");
  // Everything else of the slice is untouched.
  api::ResourceSlice expected = slices_[0];
  expected.spec.devices[1] = d;
  EXPECT_EQ(out[0], expected);
}

}  // namespace
}  // namespace dralloc::allocator
