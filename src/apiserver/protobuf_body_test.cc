// Tests of protobuf request-body decoding. The test vectors are built here
// with protobuf's CodedOutputStream, field by field, from the field numbers
// of the upstream messages (no generated code).
#include "apiserver/protobuf_body.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <gtest/gtest.h>

#include <random>

#include "apiserver/api_server.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

using google::protobuf::internal::WireFormatLite;

// Builds one protobuf message field by field.
class ProtoWriter {
 public:
  ProtoWriter& Varint(int field, uint64_t value) {
    Write([&](google::protobuf::io::CodedOutputStream& out) {
      out.WriteTag(
          WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_VARINT));
      out.WriteVarint64(value);
    });
    return *this;
  }
  ProtoWriter& Bytes(int field, std::string_view value) {
    Write([&](google::protobuf::io::CodedOutputStream& out) {
      out.WriteTag(WireFormatLite::MakeTag(
          field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
      out.WriteVarint32(static_cast<uint32_t>(value.size()));
      out.WriteRaw(value.data(), static_cast<int>(value.size()));
    });
    return *this;
  }
  ProtoWriter& Message(int field, const ProtoWriter& nested) {
    return Bytes(field, nested.bytes());
  }
  ProtoWriter& Fixed64(int field, uint64_t value) {
    Write([&](google::protobuf::io::CodedOutputStream& out) {
      out.WriteTag(
          WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_FIXED64));
      out.WriteLittleEndian64(value);
    });
    return *this;
  }
  ProtoWriter& Fixed32(int field, uint32_t value) {
    Write([&](google::protobuf::io::CodedOutputStream& out) {
      out.WriteTag(
          WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_FIXED32));
      out.WriteLittleEndian32(value);
    });
    return *this;
  }
  // Appends bytes as they are (for malformed input).
  ProtoWriter& Raw(std::string_view bytes) {
    bytes_.append(bytes);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  template <typename F>
  void Write(F write) {
    google::protobuf::io::StringOutputStream stream(&bytes_);
    google::protobuf::io::CodedOutputStream out(&stream);
    write(out);
  }
  std::string bytes_;
};

ProtoWriter MapEntry(std::string_view key, std::string_view value) {
  return std::move(ProtoWriter().Bytes(1, key).Bytes(2, value));
}
ProtoWriter QuantityEntry(std::string_view key, std::string_view value) {
  return std::move(
      ProtoWriter().Bytes(1, key).Message(2, ProtoWriter().Bytes(1, value)));
}
ProtoWriter Timestamp(int64_t seconds, int32_t nanos = 0) {
  ProtoWriter time;
  time.Varint(1, static_cast<uint64_t>(seconds));
  if (nanos != 0) time.Varint(2, static_cast<uint64_t>(nanos));
  return time;
}

// The Kubernetes envelope: magic, then runtime.Unknown.
std::string Envelope(std::string_view api_version, std::string_view kind,
                     const ProtoWriter& object) {
  ProtoWriter unknown;
  unknown.Message(1, ProtoWriter().Bytes(1, api_version).Bytes(2, kind));
  unknown.Bytes(2, object.bytes());
  unknown.Bytes(3, "");
  unknown.Bytes(4, "");
  return std::string("k8s\0", 4) + unknown.bytes();
}

// ObjectMeta as gogo-protobuf writes it for a new object: every non-pointer
// field present, empty, and the zero creationTimestamp as an empty message.
ProtoWriter NewObjectMeta(std::string_view name) {
  return std::move(ProtoWriter()
                       .Bytes(1, name)
                       .Bytes(2, "")
                       .Bytes(3, "")
                       .Bytes(4, "")
                       .Bytes(5, "")
                       .Bytes(6, "")
                       .Varint(7, 0)
                       .Message(8, ProtoWriter()));
}

using Json = nlohmann::ordered_json;

// Equality of JSON values regardless of the order of object keys.
void ExpectSameJson(const Json& actual, const Json& expected) {
  EXPECT_EQ(nlohmann::json::parse(actual.dump()),
            nlohmann::json::parse(expected.dump()))
      << actual.dump();
}

TEST(ProtobufBodyTest, NamespaceAsKubectlCreateSendsIt) {
  const std::string body =
      Envelope("v1", "Namespace",
               ProtoWriter()
                   .Message(1, NewObjectMeta("team-x"))
                   .Message(2, ProtoWriter())
                   .Message(3, ProtoWriter().Bytes(1, "")));
  auto decoded = DecodeProtobufBody(body, "Namespace");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(
      decoded->dump(),
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-x"},)"
      R"("spec":{},"status":{}})");
}

TEST(ProtobufBodyTest, ObjectMetaFields) {
  ProtoWriter meta = NewObjectMeta("ns1");
  meta.Message(8, Timestamp(1700000000, 5))
      .Message(9, Timestamp(1700000060))
      .Varint(10, 0)  // a pointer field: kept although zero
      .Message(11, MapEntry("team", "a"))
      .Message(11, MapEntry("empty", ""))
      .Message(11, MapEntry("team", "b"))  // the last value of a key wins
      .Message(12, MapEntry("note", "hi"))
      .Message(13, ProtoWriter()
                       .Bytes(1, "Pod")
                       .Bytes(3, "owner")
                       .Bytes(4, "uid-1")
                       .Bytes(5, "v1")
                       .Varint(6, 1))
      .Bytes(14, "kubernetes")
      .Bytes(14, "example.com/x")
      .Varint(7, 3);
  const std::string body =
      Envelope("v1", "Namespace",
               ProtoWriter().Message(1, meta).Message(
                   2, ProtoWriter().Bytes(1, "kubernetes")));
  auto decoded = DecodeProtobufBody(body, "Namespace");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Namespace",
    "metadata": {
      "name": "ns1", "generation": 3,
      "creationTimestamp": "2023-11-14T22:13:20Z",
      "deletionTimestamp": "2023-11-14T22:14:20Z",
      "deletionGracePeriodSeconds": 0,
      "labels": {"team": "b", "empty": ""},
      "annotations": {"note": "hi"},
      "ownerReferences": [{"kind": "Pod", "name": "owner", "uid": "uid-1",
                           "apiVersion": "v1", "controller": true}],
      "finalizers": ["kubernetes", "example.com/x"]},
    "spec": {"finalizers": ["kubernetes"]}})");
  ExpectSameJson(*decoded, expected);
}

TEST(ProtobufBodyTest, PodFieldsAndSkippedUnknownFields) {
  ProtoWriter container;
  container.Bytes(1, "main")
      .Bytes(2, "busybox")
      .Bytes(3, "sleep")  // command: not modelled, skipped
      .Message(8, ProtoWriter()
                      .Message(1, QuantityEntry("cpu", "500m"))
                      .Message(2, QuantityEntry("memory", "1Gi"))
                      .Message(3, ProtoWriter().Bytes(1, "gpu").Bytes(2, "")));
  ProtoWriter spec;
  spec.Message(1, ProtoWriter().Bytes(1, "vol"))  // volumes: skipped
      .Message(2, container)
      .Bytes(3, "Always")  // restartPolicy: skipped
      .Varint(4, 30)       // terminationGracePeriodSeconds: skipped
      .Message(7, MapEntry("zone", "a"))
      .Bytes(10, "")
      .Message(18, ProtoWriter().Message(
                       1, ProtoWriter()
                              .Message(1, ProtoWriter().Message(
                                              1, ProtoWriter().Message(
                                                     1, ProtoWriter()
                                                            .Bytes(1, "zone")
                                                            .Bytes(2, "In")
                                                            .Bytes(3, "a")
                                                            .Bytes(3, "b"))))
                              .Message(2, ProtoWriter().Varint(1, 5).Message(
                                              2, ProtoWriter()))))
      .Bytes(19, "default-scheduler")
      .Message(22, ProtoWriter()
                       .Bytes(1, "gpu")
                       .Bytes(2, "Exists")
                       .Bytes(3, "")
                       .Bytes(4, "NoSchedule")
                       .Varint(5, 60))
      .Message(39, ProtoWriter().Bytes(1, "gpu").Bytes(4, "gpu-template"))
      .Fixed64(1000, 42)  // unknown fields of every wire type
      .Fixed32(1001, 7)
      .Varint(1002, 1)
      .Bytes(1003, "x");
  ProtoWriter status;
  status.Bytes(1, "Pending")
      .Message(2, ProtoWriter()
                      .Bytes(1, "PodScheduled")
                      .Varint(7, 1)  // observedGeneration: skipped
                      .Bytes(2, "False")
                      .Message(3, ProtoWriter())
                      .Message(4, Timestamp(0))
                      .Bytes(5, "Unschedulable")
                      .Bytes(6, ""))
      .Message(15, ProtoWriter().Bytes(1, "gpu").Bytes(2, "p-gpu"));
  const std::string body = Envelope("v1", "Pod",
                                    ProtoWriter()
                                        .Message(1, NewObjectMeta("p"))
                                        .Message(2, spec)
                                        .Message(3, status));
  auto decoded = DecodeProtobufBody(body, "Pod");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
    "spec": {
      "containers": [{"name": "main", "image": "busybox",
        "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "1Gi"},
                      "claims": [{"name": "gpu"}]}}],
      "nodeSelector": {"zone": "a"},
      "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "preference": {}}]}},
      "schedulerName": "default-scheduler",
      "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule",
                       "tolerationSeconds": 60}],
      "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]},
    "status": {
      "phase": "Pending",
      "conditions": [{"type": "PodScheduled", "status": "False",
                      "lastTransitionTime": "1970-01-01T00:00:00Z",
                      "reason": "Unschedulable"}],
      "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]}})");
  ExpectSameJson(*decoded, expected);
}

TEST(ProtobufBodyTest, NodeFields) {
  ProtoWriter spec;
  spec.Bytes(1, "10.0.0.0/24")  // podCIDR: skipped
      .Bytes(3, "")
      .Varint(4, 1)
      .Message(5, ProtoWriter()
                      .Bytes(1, "gpu")
                      .Bytes(2, "")
                      .Bytes(3, "NoSchedule")
                      .Message(4, Timestamp(86400)));
  ProtoWriter status;
  status.Message(1, QuantityEntry("cpu", "8"))
      .Message(1, ProtoWriter().Bytes(1, "pods"))  // a zero Quantity
      .Message(2, QuantityEntry("cpu", "7500m"))
      .Bytes(3, "Running");  // phase: skipped
  const std::string body = Envelope("v1", "Node",
                                    ProtoWriter()
                                        .Message(1, NewObjectMeta("n1"))
                                        .Message(2, spec)
                                        .Message(3, status));
  auto decoded = DecodeProtobufBody(body, "Node");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    "spec": {"unschedulable": true,
             "taints": [{"key": "gpu", "effect": "NoSchedule",
                         "timeAdded": "1970-01-02T00:00:00Z"}]},
    "status": {"capacity": {"cpu": "8", "pods": "0"},
               "allocatable": {"cpu": "7500m"}}})");
  ExpectSameJson(*decoded, expected);
}

TEST(ProtobufBodyTest, EventFields) {
  ProtoWriter event;
  event.Message(1, NewObjectMeta("e1"))
      .Message(2, ProtoWriter()
                      .Bytes(1, "Pod")
                      .Bytes(2, "default")
                      .Bytes(3, "p")
                      .Bytes(4, "")
                      .Bytes(5, "v1"))
      .Bytes(3, "Scheduled")
      .Bytes(4, "assigned")
      .Message(5, ProtoWriter().Bytes(1, "scheduler").Bytes(2, ""))
      .Message(6, ProtoWriter())
      .Message(7, ProtoWriter())
      .Varint(8, 2)
      .Bytes(9, "Normal")
      .Message(10, Timestamp(1700000000, 123456789))
      .Message(11, ProtoWriter().Varint(1, 2))  // series: skipped
      .Bytes(12, "Binding")
      .Bytes(14, "default-scheduler")
      .Bytes(15, "");
  auto decoded = DecodeProtobufBody(Envelope("v1", "Event", event), "Event");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p",
                       "apiVersion": "v1"},
    "reason": "Scheduled", "message": "assigned",
    "source": {"component": "scheduler"}, "count": 2, "type": "Normal",
    "eventTime": "2023-11-14T22:13:20.123456Z", "action": "Binding",
    "reportingComponent": "default-scheduler"})");
  ExpectSameJson(*decoded, expected);
}

// client-go's leader election writes Leases as protobuf.
TEST(ProtobufBodyTest, LeaseFields) {
  ProtoWriter lease;
  lease.Message(1, NewObjectMeta("kube-scheduler"))
      .Message(2, ProtoWriter()
                      .Bytes(1, "host-a_1")
                      .Varint(2, 15)
                      .Message(3, Timestamp(1700000000, 1000))
                      .Message(4, Timestamp(1700000002, 123456789))
                      .Varint(5, 3));
  auto decoded = DecodeProtobufBody(
      Envelope("coordination.k8s.io/v1", "Lease", lease), "Lease");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Json expected = Json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "kube-scheduler"},
    "spec": {"holderIdentity": "host-a_1", "leaseDurationSeconds": 15,
             "acquireTime": "2023-11-14T22:13:20.000001Z",
             "renewTime": "2023-11-14T22:13:22.123456Z",
             "leaseTransitions": 3}})");
  ExpectSameJson(*decoded, expected);
}

// `kubectl create secret` sends Secrets as protobuf: `data` is
// map<string, bytes> (raw bytes on the wire, base64 in JSON), `stringData`
// map<string, string>.
TEST(ProtobufBodyTest, SecretBytes) {
  ProtoWriter secret;
  secret.Message(1, NewObjectMeta("creds"))
      .Message(2, MapEntry("key", std::string("\x00\xff\x10", 3)))
      .Message(2, MapEntry("empty", ""))
      .Bytes(3, "Opaque")
      .Message(4, MapEntry("user", "admin"))
      .Varint(5, 1);
  auto decoded = DecodeProtobufBody(Envelope("v1", "Secret", secret), "Secret");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameJson(*decoded, Json::parse(R"({
    "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"},
    "immutable": true, "data": {"key": "AP8Q", "empty": ""},
    "stringData": {"user": "admin"}, "type": "Opaque"})"));
}

// `kubectl create token NAME --audience A --duration 10m
// --bound-object-kind Pod --bound-object-name P`.
TEST(ProtobufBodyTest, TokenRequest) {
  ProtoWriter request;
  request.Message(1, NewObjectMeta("gpu-driver"))
      .Message(
          2, ProtoWriter()
                 .Bytes(1, "vault")
                 .Message(3, ProtoWriter().Bytes(1, "Pod").Bytes(2, "v1").Bytes(
                                 3, "plugin-0"))
                 .Varint(4, 600));
  auto decoded = DecodeProtobufBody(
      Envelope("authentication.k8s.io/v1", "TokenRequest", request),
      "TokenRequest");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameJson(*decoded, Json::parse(R"({
    "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
    "metadata": {"name": "gpu-driver"},
    "spec": {"audiences": ["vault"], "expirationSeconds": 600,
             "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                "name": "plugin-0"}}})"));
}

TEST(ProtobufBodyTest, DeleteOptions) {
  ProtoWriter options;
  options.Varint(1, 0)
      .Message(2, ProtoWriter().Bytes(1, "uid-1"))
      .Bytes(4, "Background")
      .Bytes(5, "All");
  auto decoded = DecodeProtobufBody(
      Envelope("meta.k8s.io/v1", "DeleteOptions", options), "DeleteOptions");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameJson(*decoded, Json::parse(R"({
    "apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions",
    "gracePeriodSeconds": 0, "preconditions": {"uid": "uid-1"},
    "propagationPolicy": "Background", "dryRun": ["All"]})"));
}

TEST(ProtobufBodyTest, NegativeIntegersAndTimesBeforeTheEpoch) {
  ProtoWriter meta;
  meta.Bytes(1, "n")
      .Varint(10, static_cast<uint64_t>(int64_t{-1}))
      .Message(8, Timestamp(-1, -500000000));
  auto decoded = DecodeProtobufBody(
      Envelope("v1", "Namespace", ProtoWriter().Message(1, meta)), "Namespace");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ((*decoded)["metadata"]["deletionGracePeriodSeconds"], -1);
  EXPECT_EQ((*decoded)["metadata"]["creationTimestamp"],
            "1969-12-31T23:59:58Z");
}

TEST(ProtobufBodyTest, GoZeroTimeIsAbsent) {
  ProtoWriter meta;
  meta.Bytes(1, "n").Message(8, Timestamp(-62135596800));
  auto decoded = DecodeProtobufBody(
      Envelope("v1", "Namespace", ProtoWriter().Message(1, meta)), "Namespace");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_FALSE((*decoded)["metadata"].contains("creationTimestamp"));
}

// Expects `body` to fail with `code` and a message containing `needle`.
void ExpectError(const std::string& body, std::string_view kind,
                 StatusCode code, std::string_view needle) {
  SCOPED_TRACE(needle);
  auto decoded = DecodeProtobufBody(body, kind);
  ASSERT_FALSE(decoded.ok()) << decoded->dump();
  EXPECT_EQ(decoded.status().code(), code) << decoded.status();
  EXPECT_NE(decoded.status().message().find(needle), std::string::npos)
      << decoded.status();
}

TEST(ProtobufBodyTest, WrongMagic) {
  ExpectError("", "Namespace", StatusCode::kInvalidArgument, "magic");
  ExpectError("k8s", "Namespace", StatusCode::kInvalidArgument, "magic");
  ExpectError(std::string("k9s\0", 4) + "\x0a\x00", "Namespace",
              StatusCode::kInvalidArgument, "magic");
  ExpectError(R"({"kind":"Namespace"})", "Namespace",
              StatusCode::kInvalidArgument, "magic");
}

TEST(ProtobufBodyTest, TruncatedVarint) {
  // generation (field 7) whose varint never ends.
  ProtoWriter meta;
  meta.Bytes(1, "n").Raw("\x38\x80\x80");
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Message(1, meta)),
              "Namespace", StatusCode::kInvalidArgument,
              "metadata.generation: a truncated varint");
  // A tag cut short in the envelope itself.
  ExpectError(std::string("k8s\0", 4) + "\x80", "Namespace",
              StatusCode::kInvalidArgument, "field tag");
}

TEST(ProtobufBodyTest, LengthBeyondBuffer) {
  // metadata.name claims 100 bytes where 3 are left.
  ProtoWriter meta;
  meta.Raw(
      "\x0a\x64"
      "abc");
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Message(1, meta)),
              "Namespace", StatusCode::kInvalidArgument,
              "metadata.name: a length of 100 bytes where only 3 are left");
  // The envelope's raw field longer than the body.
  ExpectError(std::string("k8s\0", 4) + "\x12\x7f\x0a", "Namespace",
              StatusCode::kInvalidArgument, "raw: a length of 127 bytes");
  // A length varint that overflows 32 bits.
  ExpectError(std::string("k8s\0", 4) + "\x12\xff\xff\xff\xff\xff\x01",
              "Namespace", StatusCode::kInvalidArgument, "raw");
}

TEST(ProtobufBodyTest, InvalidTagsAndWireTypes) {
  // Field number 0.
  ExpectError(Envelope("v1", "Namespace",
                       ProtoWriter().Raw(std::string_view("\x00\x01", 2))),
              "Namespace", StatusCode::kInvalidArgument, "field tag");
  // Metadata sent as a varint.
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Varint(1, 5)),
              "Namespace", StatusCode::kInvalidArgument,
              "metadata: wire type 0 where 2 was expected");
  // An unknown field with the invalid wire type 7.
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Raw("\xff\x01")),
              "Namespace", StatusCode::kInvalidArgument, "field 31");
  // An unknown fixed64 field cut short.
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Raw("\x21\x01\x02")),
              "Namespace", StatusCode::kInvalidArgument, "field 4");
  // An unterminated group.
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Raw("\x23\x08\x01")),
              "Namespace", StatusCode::kInvalidArgument, "field 4");
}

TEST(ProtobufBodyTest, MismatchedAndUnsupportedKinds) {
  ExpectError(Envelope("v1", "Pod", ProtoWriter()), "Namespace",
              StatusCode::kInvalidArgument,
              "the kind in the data (Pod) does not match the expected kind "
              "(Namespace)");
  ExpectError(Envelope("resource.k8s.io/v1", "ResourceClaim", ProtoWriter()),
              "ResourceClaim", StatusCode::kUnimplemented,
              "send ResourceClaim as application/json");
  ProtoWriter gzipped;
  gzipped.Message(1, ProtoWriter().Bytes(1, "v1").Bytes(2, "Namespace"))
      .Bytes(2, "")
      .Bytes(3, "gzip");
  ExpectError(std::string("k8s\0", 4) + gzipped.bytes(), "Namespace",
              StatusCode::kUnimplemented, "gzip");
}

TEST(ProtobufBodyTest, TimestampOutOfRange) {
  ProtoWriter meta;
  meta.Bytes(1, "n").Message(8, Timestamp(int64_t{1} << 50));
  ExpectError(Envelope("v1", "Namespace", ProtoWriter().Message(1, meta)),
              "Namespace", StatusCode::kInvalidArgument,
              "metadata.creationTimestamp");
}

TEST(ProtobufBodyTest, ManagedFieldsMustHoldJson) {
  ProtoWriter entry;
  entry.Bytes(1, "kubectl").Message(7, ProtoWriter().Bytes(1, "{"));
  ExpectError(Envelope("v1", "Namespace",
                       ProtoWriter().Message(
                           1, ProtoWriter().Bytes(1, "n").Message(17, entry))),
              "Namespace", StatusCode::kInvalidArgument,
              "metadata.managedFields[0].fieldsV1");
}

// Every prefix and many corruptions of a valid body decode or fail cleanly.
TEST(ProtobufBodyTest, TruncationsAndCorruptionsNeverCrash) {
  ProtoWriter meta = NewObjectMeta("p");
  meta.Message(11, MapEntry("a", "b")).Message(8, Timestamp(1700000000));
  const std::string body = Envelope(
      "v1", "Pod",
      ProtoWriter().Message(1, meta).Message(
          2,
          ProtoWriter().Message(
              2, ProtoWriter().Bytes(1, "c").Message(
                     8, ProtoWriter().Message(1, QuantityEntry("cpu", "1"))))));
  ASSERT_TRUE(DecodeProtobufBody(body, "Pod").ok());
  int failures = 0;
  for (size_t length = 0; length < body.size(); ++length) {
    if (!DecodeProtobufBody(body.substr(0, length), "Pod").ok()) ++failures;
  }
  EXPECT_GT(failures, 0);
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string corrupted = body;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      corrupted[4 + rng() % (corrupted.size() - 4)] =
          static_cast<char>(rng() & 0xff);
    }
    auto decoded = DecodeProtobufBody(corrupted, "Pod");
    if (decoded.ok()) {
      // Whatever decodes must serialise.
      EXPECT_FALSE(decoded->dump(-1, ' ', false, Json::error_handler_t::replace)
                       .empty());
    }
  }
}

TEST(ProtobufBodyTest, ContentTypes) {
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(IsProtobufContentType(
      "application/vnd.kubernetes.protobuf; charset=utf-8"));
  EXPECT_TRUE(IsProtobufContentType("Application/VND.Kubernetes.Protobuf"));
  EXPECT_FALSE(IsProtobufContentType("application/json"));
  EXPECT_FALSE(IsProtobufContentType(""));
  EXPECT_FALSE(
      IsProtobufContentType("application/vnd.kubernetes.protobuf+json"));
  EXPECT_TRUE(CanDecodeProtobufKind("Namespace"));
  EXPECT_FALSE(CanDecodeProtobufKind("ResourceClaim"));
}

// Through the server: the decoded object takes the ordinary create path.
class Recorder : public ResponseWriter {
 public:
  void AddHeader(std::string, std::string) override {}
  void Send(int status, std::string, std::string text) override {
    code = status;
    body = std::move(text);
  }
  bool StartStream(std::string) override { return false; }
  bool WriteChunk(std::string_view) override { return false; }
  int code = 0;
  std::string body;
};

TEST(ProtobufBodyTest, ServerCreatesUpdatesAndDeletesFromProtobuf) {
  store::MemoryStore store;
  ApiServer server({}, store);
  const auto send = [&](std::string method, std::string path,
                        std::string body) {
    HttpRequest request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.content_type = "application/vnd.kubernetes.protobuf";
    request.body = std::move(body);
    Recorder recorder;
    server.Handle(request, recorder);
    return recorder;
  };
  const std::string namespace_body = Envelope(
      "v1", "Namespace",
      ProtoWriter()
          .Message(1,
                   NewObjectMeta("team-x").Message(11, MapEntry("team", "x")))
          .Message(2, ProtoWriter())
          .Message(3, ProtoWriter()));
  Recorder created = send("POST", "/api/v1/namespaces", namespace_body);
  ASSERT_EQ(created.code, 201) << created.body;
  const Json object = Json::parse(created.body);
  EXPECT_EQ(object["metadata"]["name"], "team-x");
  EXPECT_EQ(object["metadata"]["labels"]["team"], "x");
  EXPECT_EQ(object["status"]["phase"], "Active");

  Recorder updated =
      send("PUT", "/api/v1/namespaces/team-x",
           Envelope("v1", "Namespace",
                    ProtoWriter().Message(1, NewObjectMeta("team-x").Message(
                                                 11, MapEntry("team", "y")))));
  ASSERT_EQ(updated.code, 200) << updated.body;
  EXPECT_EQ(Json::parse(updated.body)["metadata"]["labels"]["team"], "y");

  Recorder pod =
      send("POST", "/api/v1/namespaces/team-x/pods",
           Envelope("v1", "Pod",
                    ProtoWriter()
                        .Message(1, NewObjectMeta("p"))
                        .Message(2, ProtoWriter().Message(
                                        2, ProtoWriter().Bytes(1, "c").Bytes(
                                               2, "busybox")))));
  ASSERT_EQ(pod.code, 201) << pod.body;
  EXPECT_EQ(Json::parse(pod.body)["metadata"]["namespace"], "team-x");

  Recorder malformed =
      send("POST", "/api/v1/namespaces",
           namespace_body.substr(0, namespace_body.size() - 3));
  EXPECT_EQ(malformed.code, 400) << malformed.body;
  EXPECT_NE(malformed.body.find("malformed"), std::string::npos);

  Recorder claim =
      send("POST", "/apis/resource.k8s.io/v1/namespaces/team-x/resourceclaims",
           Envelope("resource.k8s.io/v1", "ResourceClaim", ProtoWriter()));
  EXPECT_EQ(claim.code, 415) << claim.body;
  EXPECT_NE(claim.body.find("UnsupportedMediaType"), std::string::npos);

  Recorder deleted = send(
      "DELETE", "/api/v1/namespaces/team-x/pods/p",
      Envelope("v1", "DeleteOptions",
               ProtoWriter().Message(2, ProtoWriter().Bytes(1, "wrong-uid"))));
  EXPECT_EQ(deleted.code, 409) << deleted.body;
  deleted = send("DELETE", "/api/v1/namespaces/team-x/pods/p", "");
  EXPECT_EQ(deleted.code, 200) << deleted.body;
}

}  // namespace
}  // namespace dralloc::apiserver
