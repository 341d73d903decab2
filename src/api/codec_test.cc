// Tests of DecodeDocument and EncodeObject: strictness, error paths, nulls,
// lists, version lookup, lossless pass-through of unmodeled fields, and the
// value types with special rules (quantities, raw JSON, nullable attributes).
#include "api/codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dralloc::api {
namespace {

// Decodes `json` and expects exactly one result.
DecodeResult DecodeOne(std::string_view json, DecodeOptions options = {}) {
  std::vector<DecodeResult> results = DecodeDocument(json, options);
  EXPECT_EQ(results.size(), 1u) << json;
  return results.empty() ? DecodeResult{} : std::move(results[0]);
}

// The same JSON value, whatever the key order and spacing.
nlohmann::json ParseText(std::string_view json) {
  return nlohmann::json::parse(json);
}
nlohmann::json Normalized(const Json& json) {
  return nlohmann::json::parse(json.dump());
}

const char kSliceHead[] =
    R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},)";

std::string Slice(std::string_view spec) {
  return std::string(kSliceHead) + R"("spec":)" + std::string(spec) + "}";
}

std::string SliceWithDevices(std::string_view devices) {
  return Slice(R"({"driver":"d.example.com","pool":{"name":"p","generation":1,)"
               R"("resourceSliceCount":1},"allNodes":true,"devices":)" +
               std::string(devices) + "}");
}

std::string Claim(std::string_view devices) {
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
         R"("metadata":{"name":"c","namespace":"ns"},"spec":{"devices":)" +
         std::string(devices) + "}}";
}

// ---- Strictness ----

TEST(CodecStrictTest, UnknownFieldIsAnErrorWithItsPath) {
  const DecodeResult result = DecodeOne(Claim(
      R"({"requests":[{"name":"r","exactly":{"deviceClassName":"c","colour":"red"}}]})"));
  ASSERT_EQ(result.errors.size(), 1u) << ToString(result.errors);
  EXPECT_EQ(result.errors[0].type, FieldErrorType::kUnknownField);
  EXPECT_EQ(result.errors[0].field, "spec.devices.requests[0].exactly.colour");
  EXPECT_FALSE(result.object.has_value());
  EXPECT_EQ(result.DisplayName(),
            "ResourceClaim ns/c");  // Known even when decoding failed.
}

TEST(CodecStrictTest, AllUnknownFieldsAreReportedInOnePass) {
  const DecodeResult result = DecodeOne(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","extra":1,)"
      R"("metadata":{"name":"x","nam":"y"},"spec":{"selectors":[{"cel":{"expression":"true",)"
      R"("x":1}}]}})");
  std::vector<std::string> fields;
  for (const FieldError& e : result.errors) fields.push_back(e.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"extra", "metadata.nam",
                                              "spec.selectors[0].cel.x"}));
}

TEST(CodecStrictTest, NonStrictUnknownFieldIsAWarningAndDropped) {
  const std::string json =
      Claim(R"({"requests":[{"name":"r","colour":"red"}]})");
  const DecodeResult result = DecodeOne(json, {.strict = false});
  EXPECT_TRUE(result.errors.empty()) << ToString(result.errors);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_EQ(result.warnings[0].type, FieldErrorType::kUnknownField);
  EXPECT_EQ(result.warnings[0].field, "spec.devices.requests[0].colour");
  ASSERT_TRUE(result.object.has_value());
  StatusOr<Json> encoded = EncodeObject(*result.object, kResourceV1);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(encoded->dump().find("colour"), std::string::npos);
}

TEST(CodecStrictTest, DuplicateFieldIsAnErrorWhenStrict) {
  const std::string json =
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",)"
      R"("metadata":{"name":"a","name":"b","labels":{"k":"1","k":"2"}},"spec":{}})";
  const DecodeResult strict = DecodeOne(json);
  std::vector<std::string> fields;
  for (const FieldError& e : strict.errors) {
    EXPECT_EQ(e.type, FieldErrorType::kDuplicate);
    fields.push_back(e.field);
  }
  EXPECT_EQ(fields,
            (std::vector<std::string>{"metadata.name", "metadata.labels[k]"}));
  EXPECT_FALSE(strict.object.has_value());

  // Lenient: warnings, and the last value wins (like encoding/json).
  const DecodeResult lenient = DecodeOne(json, {.strict = false});
  EXPECT_TRUE(lenient.errors.empty()) << ToString(lenient.errors);
  EXPECT_EQ(lenient.warnings.size(), 2u);
  ASSERT_TRUE(lenient.object.has_value());
  const DeviceClass& device_class = std::get<DeviceClass>(*lenient.object);
  EXPECT_EQ(device_class.metadata.name, "b");
  EXPECT_EQ(device_class.metadata.labels.at("k"), "2");
}

// ---- Types ----

TEST(CodecTypeTest, TypeMismatchesNameTheFieldAndTheExpectedType) {
  const DecodeResult result = DecodeOne(Slice(
      R"({"driver":5,"pool":{"name":"p","generation":"1","resourceSliceCount":1.5},)"
      R"("allNodes":"yes","devices":{}})"));
  ASSERT_EQ(result.errors.size(), 5u) << ToString(result.errors);
  struct Want {
    const char* field;
    const char* detail;
  };
  const Want want[] = {
      {"spec.driver", "expected string, got number 5"},
      {"spec.pool.generation", "expected integer, got string \"1\""},
      {"spec.pool.resourceSliceCount", "expected integer, got number 1.5"},
      {"spec.allNodes", "expected boolean, got string \"yes\""},
      {"spec.devices", "expected array, got object"},
  };
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(result.errors[i].type, FieldErrorType::kTypeInvalid);
    EXPECT_EQ(result.errors[i].field, want[i].field);
    EXPECT_EQ(result.errors[i].detail, want[i].detail);
  }
  EXPECT_FALSE(result.object.has_value());
}

TEST(CodecTypeTest, ObjectExpectedForStructsAndMaps) {
  const DecodeResult result = DecodeOne(Slice(
      R"({"driver":"d","pool":[],"devices":[{"name":"x","attributes":"a"}]})"));
  ASSERT_EQ(result.errors.size(), 2u) << ToString(result.errors);
  EXPECT_EQ(result.errors[0].field, "spec.pool");
  EXPECT_EQ(result.errors[0].detail, "expected object, got array");
  EXPECT_EQ(result.errors[1].field, "spec.devices[0].attributes");
}

TEST(CodecTypeTest, NullLeavesFieldsUnset) {
  const DecodeResult result = DecodeOne(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","labels":null,"creationTimestamp":null},)"
      R"("spec":{"devices":{"requests":[{"name":"r","exactly":null,)"
      R"("firstAvailable":null}],"constraints":null,"config":[{"requests":null,)"
      R"("opaque":{"driver":"d","parameters":null}}]}},"status":null})");
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const ResourceClaim& claim = std::get<ResourceClaim>(*result.object);
  EXPECT_TRUE(claim.metadata.labels.empty());
  EXPECT_FALSE(claim.metadata.creation_timestamp.has_value());
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  EXPECT_FALSE(claim.spec.devices.requests[0].exactly.has_value());
  EXPECT_TRUE(claim.spec.devices.requests[0].first_available.empty());
  EXPECT_TRUE(claim.spec.devices.constraints.empty());
  ASSERT_EQ(claim.spec.devices.config.size(), 1u);
  // Like runtime.RawExtension, null parameters are "no value" (validation
  // then reports them as required).
  EXPECT_TRUE(claim.spec.devices.config[0].opaque->parameters.empty());
  EXPECT_TRUE(claim.status == ResourceClaimStatus{});
}

TEST(CodecTypeTest, NullObjectFieldsAndNullListItems) {
  const DecodeResult result =
      DecodeOne(SliceWithDevices(R"([null,{"name":"d"}])"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const ResourceSlice& slice = std::get<ResourceSlice>(*result.object);
  ASSERT_EQ(slice.spec.devices.size(),
            2u);  // A null item is a zero value, as in Go.
  EXPECT_TRUE(slice.spec.devices[0] == Device{});
  EXPECT_EQ(slice.spec.devices[1].name, "d");
}

TEST(CodecTypeTest, QuantitiesAsStringsAndNumbers) {
  const DecodeResult result = DecodeOne(SliceWithDevices(
      R"([{"name":"d","capacity":{"a":{"value":"1Gi"},"b":{"value":4},"c":{"value":1.5},)"
      R"("d":{"value":"500m"},"e":{"value":"1e3"},"f":{"value":-2}}}])"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const Device& device =
      std::get<ResourceSlice>(*result.object).spec.devices.at(0);
  EXPECT_EQ(device.capacity.at("a").value, Quantity::FromInt64(1 << 30));
  EXPECT_EQ(device.capacity.at("b").value, Quantity::FromInt64(4));
  EXPECT_EQ(device.capacity.at("c").value, Quantity::FromMilli(1500));
  EXPECT_EQ(device.capacity.at("d").value, Quantity::FromMilli(500));
  EXPECT_EQ(device.capacity.at("e").value, Quantity::FromInt64(1000));
  EXPECT_EQ(device.capacity.at("f").value, Quantity::FromInt64(-2));

  // Encoding writes canonical strings.
  StatusOr<Json> encoded = EncodeObject(*result.object, kResourceV1);
  ASSERT_TRUE(encoded.ok());
  const Json& capacity = (*encoded)["spec"]["devices"][0]["capacity"];
  EXPECT_EQ(capacity["a"]["value"], "1Gi");
  EXPECT_EQ(capacity["b"]["value"], "4");
  EXPECT_EQ(capacity["c"]["value"], "1500m");
  EXPECT_EQ(capacity["d"]["value"], "500m");
  EXPECT_EQ(capacity["e"]["value"], "1e3");
  EXPECT_EQ(capacity["f"]["value"], "-2");
}

TEST(CodecTypeTest, BadQuantitiesAreErrorsAtTheirPath) {
  const DecodeResult result = DecodeOne(SliceWithDevices(
      R"([{"name":"d","capacity":{"a":{"value":"12 Gi"},"b":{"value":true},)"
      R"("c":{"value":"1Qi"}}}])"));
  ASSERT_EQ(result.errors.size(), 3u) << ToString(result.errors);
  EXPECT_EQ(result.errors[0].field, "spec.devices[0].capacity[a].value");
  EXPECT_EQ(result.errors[0].type, FieldErrorType::kInvalid);
  EXPECT_EQ(result.errors[1].field, "spec.devices[0].capacity[b].value");
  EXPECT_EQ(result.errors[1].type, FieldErrorType::kTypeInvalid);
  EXPECT_NE(result.errors[1].detail.find("quantity"), std::string::npos);
  EXPECT_EQ(result.errors[2].field, "spec.devices[0].capacity[c].value");
}

TEST(CodecTypeTest, OpaqueParametersAreKeptVerbatim) {
  const std::string parameters =
      R"({"apiVersion":"gpu.example.com/v1","kind":"Config","n":1.50,"big":12345678901234567890,)"
      R"("list":[true,null,{"x":"é\"q"}],"empty":{}})";
  const DecodeResult result = DecodeOne(Claim(
      R"({"config":[{"opaque":{"driver":"gpu.example.com","parameters":)" +
      parameters + "}}]}"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const ResourceClaim& claim = std::get<ResourceClaim>(*result.object);
  const RawJson& raw = claim.spec.devices.config.at(0).opaque->parameters;
  EXPECT_EQ(raw, RawJson{parameters});
  EXPECT_EQ(ParseText(raw.json), ParseText(parameters));

  StatusOr<Json> encoded = EncodeObject(*result.object, kResourceV1);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(
      Normalized(
          (*encoded)["spec"]["devices"]["config"][0]["opaque"]["parameters"]),
      ParseText(parameters));
  // And through v1beta1, which shares the type.
  encoded = EncodeObject(*result.object, kResourceV1beta1);
  ASSERT_TRUE(encoded.ok());
  const DecodeResult again = DecodeOne(encoded->dump());
  ASSERT_TRUE(again.object.has_value()) << ToString(again.errors);
  EXPECT_TRUE(*again.object == *result.object);
}

TEST(CodecTypeTest, NullableDeviceAttributeNullMeansDelete) {
  const DecodeResult result = DecodeOne(
      R"({"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceSlicePatch",)"
      R"("metadata":{"name":"p"},"spec":{"devices":{"attributes":{)"
      R"("gone":null,"also-gone":{"null":{}},"kept":{"int":3}}}}})");
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const auto& attributes =
      std::get<ResourceSlicePatch>(*result.object).spec.devices.attributes;
  ASSERT_EQ(attributes.size(), 3u);
  EXPECT_TRUE(attributes.at("gone").null_value.has_value());
  EXPECT_TRUE(attributes.at("also-gone").null_value.has_value());
  EXPECT_FALSE(attributes.at("kept").null_value.has_value());
  EXPECT_EQ(attributes.at("kept").int_value, 3);

  StatusOr<Json> encoded = EncodeObject(*result.object, kResourceV1alpha3);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  const Json& out = (*encoded)["spec"]["devices"]["attributes"];
  EXPECT_EQ(Normalized(out["gone"]), ParseText(R"({"null":{}})"));
  EXPECT_EQ(Normalized(out["kept"]), ParseText(R"({"int":3})"));
}

// ---- Pass-through of unmodeled fields ----

TEST(CodecUnknownFieldsTest, PodRoundTripsLosslessly) {
  const std::string pod = R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "trainer-0", "namespace": "ml", "labels": {"app": "train"}},
    "spec": {
      "restartPolicy": "Never",
      "terminationGracePeriodSeconds": 30,
      "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}}],
      "containers": [{
        "name": "main",
        "image": "registry.example.com/train:1.2",
        "command": ["python", "-m", "train"],
        "args": ["--epochs=3"],
        "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
        "env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        "resources": {"limits": {"cpu": "2"}, "claims": [{"name": "gpu", "request": "big"}]},
        "securityContext": {"runAsNonRoot": true}
      }],
      "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "inference"}],
      "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname"}]}}
    },
    "status": {"phase": "Pending", "qosClass": "Burstable", "hostIP": "10.0.0.1"}
  })";
  const DecodeResult result = DecodeOne(pod);
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  EXPECT_TRUE(result.warnings.empty());
  const Pod& decoded = std::get<Pod>(*result.object);
  ASSERT_EQ(decoded.spec.containers.size(), 1u);
  const Container& container = decoded.spec.containers[0];
  EXPECT_EQ(container.image, "registry.example.com/train:1.2");
  ASSERT_EQ(container.resources.claims.size(), 1u);
  EXPECT_EQ(container.resources.claims[0].request, "big");
  std::vector<std::string> kept;
  for (const auto& [key, raw] : container.unknown_fields) kept.push_back(key);
  EXPECT_EQ(kept,
            (std::vector<std::string>{"command", "args", "env", "volumeMounts",
                                      "securityContext"}));
  ASSERT_EQ(container.ports.size(), 1u);
  EXPECT_EQ(container.ports[0].container_port, 8080);
  ASSERT_TRUE(decoded.spec.affinity.has_value());
  ASSERT_TRUE(decoded.spec.affinity->pod_anti_affinity.has_value());
  EXPECT_EQ(decoded.spec.affinity->pod_anti_affinity
                ->required_during_scheduling_ignored_during_execution.at(0)
                .topology_key,
            "kubernetes.io/hostname");

  StatusOr<Json> encoded = EncodeObject(*result.object, kCoreV1);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(Normalized(*encoded), ParseText(pod));
  const DecodeResult again = DecodeOne(encoded->dump());
  ASSERT_TRUE(again.object.has_value()) << ToString(again.errors);
  EXPECT_TRUE(*again.object == *result.object);
  EXPECT_EQ(*EncodeObjectText(*result.object, kCoreV1), encoded->dump());
}

TEST(CodecTextTest, TextEncodingEscapesAsTheTreeDoes) {
  const std::string claim = R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "n",
      "annotations": {"quote\"back\\slash": "tab\tnl\ncr\rbs\bff\fctl\u0001\u001f del\u007f é ✓ 😀 /"}},
    "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu",
      "selectors": [{"cel": {"expression": "device.attributes[\"x\"].v == 'a\\b'"}}]}}]}}
  })";
  const DecodeResult result = DecodeOne(claim);
  ASSERT_TRUE(result.object.has_value()) << ToString(result.errors);
  StatusOr<Json> tree = EncodeObject(*result.object, "resource.k8s.io/v1");
  ASSERT_TRUE(tree.ok());
  StatusOr<std::string> text =
      EncodeObjectText(*result.object, "resource.k8s.io/v1");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, tree->dump());
  EXPECT_EQ(EncodeObjectText(*result.object, "v1").status().code(),
            StatusCode::kInvalidArgument);
}

// ---- Documents, lists and versions ----

TEST(CodecDocumentTest, ListYieldsEveryItem) {
  const std::vector<DecodeResult> results = DecodeDocument(
      R"({"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"1"},"items":[)"
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"}},)"
      R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"b","namespace":"ns"},"spec":{"devices":{"requests":[)"
      R"({"name":"r","deviceClassName":"a"}]}}},)"
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"},"bogus":1}]})");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].errors.empty());
  EXPECT_EQ(results[0].DisplayName(), "DeviceClass a");
  EXPECT_TRUE(results[1].errors.empty()) << ToString(results[1].errors);
  EXPECT_EQ(results[1].api_version, kResourceV1beta1);
  EXPECT_EQ(results[1].DisplayName(), "ResourceClaim ns/b");
  ASSERT_TRUE(results[1].object.has_value());
  EXPECT_TRUE(std::get<ResourceClaim>(*results[1].object)
                  .spec.devices.requests.at(0)
                  .exactly.has_value());
  // Items fail on their own, with paths relative to the item.
  ASSERT_EQ(results[2].errors.size(), 1u);
  EXPECT_EQ(results[2].errors[0].field, "bogus");
  EXPECT_FALSE(results[2].object.has_value());
}

TEST(CodecDocumentTest, TypedListsExpandToo) {
  const std::vector<DecodeResult> results = DecodeDocument(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimList","metadata":{},"items":[)"
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"a"}},)"
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"b"}}]})");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "a");
  EXPECT_EQ(results[1].name, "b");
  EXPECT_TRUE(results[1].object.has_value());
}

TEST(CodecDocumentTest, EmptyAndNullListsYieldNothing) {
  EXPECT_TRUE(DecodeDocument(R"({"apiVersion":"v1","kind":"List","items":[]})")
                  .empty());
  EXPECT_TRUE(
      DecodeDocument(R"({"apiVersion":"v1","kind":"List","items":null})")
          .empty());
  EXPECT_TRUE(DecodeDocument(R"({"apiVersion":"v1","kind":"List"})").empty());
}

TEST(CodecDocumentTest, ListItemsMustBeAnArrayAndListsDoNotNest) {
  const DecodeResult bad =
      DecodeOne(R"({"apiVersion":"v1","kind":"List","items":{}})");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].field, "items");

  const DecodeResult nested = DecodeOne(
      R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List",)"
      R"("items":[]}]})");
  ASSERT_EQ(nested.errors.size(), 1u);
  EXPECT_NE(nested.errors[0].detail.find(R"(no matches for kind "List")"),
            std::string::npos);
}

TEST(CodecDocumentTest, UnknownKindOrVersionIsNoMatch) {
  struct Case {
    const char* api_version;
    const char* kind;
  };
  const Case cases[] = {
      {"example.com/v1", "Widget"},
      {"resource.k8s.io/v1", "Widget"},
      {"resource.k8s.io/v1alpha3", "ResourceSlice"},  // Not served any more.
      {"resource.k8s.io/v2", "ResourceClaim"},
      {"resource.k8s.io/v1", "Pod"},
      {"v1", "DeviceClass"},
  };
  for (const Case& c : cases) {
    const std::string json = std::string(R"({"apiVersion":")") + c.api_version +
                             R"(","kind":")" + c.kind +
                             R"(","metadata":{"name":"x"}})";
    const DecodeResult result = DecodeOne(json);
    ASSERT_EQ(result.errors.size(), 1u) << json;
    EXPECT_EQ(result.errors[0].detail, std::string("no matches for kind \"") +
                                           c.kind + "\" in version \"" +
                                           c.api_version + "\"");
    EXPECT_EQ(result.kind, c.kind);
    EXPECT_EQ(result.name, "x");
    EXPECT_FALSE(result.object.has_value());
  }
}

TEST(CodecDocumentTest, MissingApiVersionOrKind) {
  const DecodeResult no_kind =
      DecodeOne(R"({"apiVersion":"resource.k8s.io/v1"})");
  ASSERT_EQ(no_kind.errors.size(), 1u);
  EXPECT_EQ(no_kind.errors[0].type, FieldErrorType::kRequired);
  EXPECT_EQ(no_kind.errors[0].field, "kind");

  const DecodeResult no_version =
      DecodeOne(R"({"kind":"DeviceClass","metadata":{"name":"n"}})");
  ASSERT_EQ(no_version.errors.size(), 1u);
  EXPECT_EQ(no_version.errors[0].type, FieldErrorType::kRequired);
  EXPECT_EQ(no_version.errors[0].field, "apiVersion");
  EXPECT_EQ(no_version.DisplayName(), "DeviceClass n");

  const DecodeResult neither = DecodeOne(R"({"kind":5,"metadata":{}})");
  EXPECT_EQ(neither.errors.size(), 2u);
}

TEST(CodecDocumentTest, NonObjectAndMalformedDocuments) {
  const DecodeResult array = DecodeOne("[1,2]");
  ASSERT_EQ(array.errors.size(), 1u);
  EXPECT_NE(array.errors[0].detail.find("expected a JSON object"),
            std::string::npos);

  const DecodeResult malformed = DecodeOne(R"({"apiVersion":)");
  ASSERT_EQ(malformed.errors.size(), 1u);
  EXPECT_NE(malformed.errors[0].detail.find("malformed JSON"),
            std::string::npos);
}

TEST(CodecDocumentTest, DecodedObjectsAreInTheHubVersion) {
  for (const char* version : {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                              "resource.k8s.io/v1beta1"}) {
    const DecodeResult result =
        DecodeOne(std::string(R"({"apiVersion":")") + version +
                  R"(","kind":"DeviceClass","metadata":{"name":"g"}})");
    ASSERT_TRUE(result.object.has_value()) << version;
    EXPECT_EQ(result.api_version, version);
    const DeviceClass& device_class = std::get<DeviceClass>(*result.object);
    EXPECT_EQ(device_class.api_version, kResourceV1);
    EXPECT_EQ(device_class.kind, "DeviceClass");
  }
}

// ---- Encoding ----

TEST(CodecEncodeTest, HeaderFirstInTheRequestedVersion) {
  DeviceTaintRule rule;
  rule.metadata.name = "r";
  rule.spec.taint = {.key = "k", .effect = "NoSchedule"};
  for (std::string_view version :
       {kResourceV1, kResourceV1beta2, kResourceV1alpha3}) {
    StatusOr<Json> encoded = EncodeObject(rule, version);
    ASSERT_TRUE(encoded.ok()) << encoded.status();
    auto it = encoded->begin();
    EXPECT_EQ(it.key(), "apiVersion");
    EXPECT_EQ(it.value(), std::string(version));
    ++it;
    EXPECT_EQ(it.key(), "kind");
    EXPECT_EQ(it.value(), "DeviceTaintRule");
  }
}

TEST(CodecEncodeTest, UnservedVersionIsInvalidArgument) {
  StatusOr<Json> encoded = EncodeObject(Pod{}, kResourceV1);
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(encoded.status().message().find("Pod"), std::string::npos);
  EXPECT_FALSE(EncodeObject(ResourceSlicePatch{}, kResourceV1).ok());
  EXPECT_FALSE(EncodeObject(DeviceClass{}, "resource.k8s.io/v2").ok());
}

TEST(CodecEncodeTest, ServedAndPreferredVersions) {
  // By name: both families' versions; by object: its own family's.
  EXPECT_EQ(
      ServedVersions("ResourceClaim"),
      (std::vector<std::string_view>{kResourceV1, kResourceV1beta2,
                                     kResourceV1beta1, kResourceV1alpha2}));
  EXPECT_EQ(ServedVersions(Object(ResourceClaim{})),
            (std::vector<std::string_view>{kResourceV1, kResourceV1beta2,
                                           kResourceV1beta1}));
  EXPECT_EQ(ServedVersions("DeviceTaintRule"),
            (std::vector<std::string_view>{kResourceV1, kResourceV1beta2,
                                           kResourceV1alpha3}));
  EXPECT_EQ(ServedVersions("Pod"), (std::vector<std::string_view>{kCoreV1}));
  EXPECT_TRUE(ServedVersions("Widget").empty());
  EXPECT_EQ(PreferredVersion(ResourceSlice{}), kResourceV1);
  EXPECT_EQ(PreferredVersion(ResourceSlicePatch{}), kResourceV1alpha3);
  EXPECT_EQ(PreferredVersion(Node{}), kCoreV1);
}

TEST(CodecEncodeTest, RequiredFieldsAreAlwaysWrittenAndEmptyOnesOmitted) {
  ResourceSlice slice;
  slice.metadata.name = "s";
  slice.spec.devices.push_back(
      {.name = "d", .capacity = {{"m", {.value = Quantity()}}}});
  StatusOr<Json> encoded = EncodeObject(slice, kResourceV1);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(
      Normalized(*encoded),
      ParseText(
          R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",)"
          R"("metadata":{"name":"s"},"spec":{"driver":"","pool":{"name":"",)"
          R"("generation":0,"resourceSliceCount":0},)"
          R"("devices":[{"name":"d","capacity":{"m":{"value":"0"}}}]}})"));
}

}  // namespace
}  // namespace dralloc::api

namespace dralloc::api {
namespace {

// Device attributes live in a FlatMap: any key order decodes to sorted
// entries, and duplicates behave as for every other map.
TEST(CodecFlatMapTest, UnsortedKeysAreSorted) {
  const DecodeResult result = DecodeOne(SliceWithDevices(
      R"([{"name":"d","attributes":{"z":{"int":1},"a":{"int":2},"m":{"int":3}}}])"));
  ASSERT_TRUE(result.errors.empty()) << ToString(result.errors);
  const auto& attributes =
      std::get<ResourceSlice>(*result.object).spec.devices[0].attributes;
  std::vector<std::string> keys;
  for (const auto& [key, value] : attributes) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "m", "z"}));
  EXPECT_EQ(attributes.at("z").int_value, 1);
  EXPECT_EQ(attributes.at("a").int_value, 2);
}

TEST(CodecFlatMapTest, DuplicateKeysFirstWinsStrictLastWinsLenient) {
  const std::string json = SliceWithDevices(
      R"([{"name":"d","attributes":{"b":{"int":1},"a":{"int":2},"b":{"int":3}}}])");
  const DecodeResult strict = DecodeOne(json);
  ASSERT_EQ(strict.errors.size(), 1u);
  EXPECT_EQ(strict.errors[0].type, FieldErrorType::kDuplicate);
  EXPECT_EQ(strict.errors[0].field, "spec.devices[0].attributes[b]");

  const DecodeResult lenient = DecodeOne(json, {.strict = false});
  ASSERT_TRUE(lenient.errors.empty());
  ASSERT_EQ(lenient.warnings.size(), 1u);
  const auto& attributes =
      std::get<ResourceSlice>(*lenient.object).spec.devices[0].attributes;
  ASSERT_EQ(attributes.size(), 2u);
  EXPECT_EQ(attributes.at("b").int_value, 3);
}

TEST(CodecFlatMapTest, ManyUnsortedKeysDecodeQuickly) {
  std::string attributes = "{";
  for (int i = 20000; i > 0; --i) {
    if (i != 20000) attributes += ',';
    attributes +=
        "\"k" + std::to_string(i) + "\":{\"int\":" + std::to_string(i) + "}";
  }
  attributes += "}";
  const DecodeResult result = DecodeOne(
      SliceWithDevices(R"([{"name":"d","attributes":)" + attributes + "}]"));
  ASSERT_TRUE(result.errors.empty());
  EXPECT_EQ(
      std::get<ResourceSlice>(*result.object).spec.devices[0].attributes.size(),
      20000u);
}

}  // namespace
}  // namespace dralloc::api
