// Decoding of Kubernetes protobuf request bodies
// (`Content-Type: application/vnd.kubernetes.protobuf`).
//
// client-go's typed clients, and so kubectl for commands built on them
// (`kubectl create namespace`), send core/v1 objects in the Kubernetes
// protobuf envelope: the 4-byte magic "k8s\0" followed by a runtime.Unknown
// message {typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3,
// contentType=4} whose `raw` field holds the object's own protobuf encoding.
//
// The decoder turns such a body into the JSON object a client would have
// sent for the same object, so the request then takes the ordinary JSON
// create/update path (defaulting, validation, admission). It knows the
// fields dralloc's API model has for Namespace, Node, Pod and Event (their
// protobuf numbers are in the API types' field tables, api/reflect.h), and
// meta/v1 DeleteOptions (the body of a typed client's DELETE); every
// other field (known to upstream or not) is skipped by its wire type, as a
// protobuf parser skips unknown fields. Scalars that Go omits from JSON when
// empty (`omitempty`) are omitted here too, except fields that Go models as
// pointers, where presence on the wire means presence in JSON.
#ifndef DRALLOC_APISERVER_PROTOBUF_BODY_H_
#define DRALLOC_APISERVER_PROTOBUF_BODY_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/status.h"

namespace dralloc::apiserver {

// The media type of Kubernetes protobuf bodies.
inline constexpr std::string_view kProtobufMediaType =
    "application/vnd.kubernetes.protobuf";

// True if `content_type` (a Content-Type header value, parameters allowed)
// names the Kubernetes protobuf media type.
bool IsProtobufContentType(std::string_view content_type);

// True if DecodeProtobufBody can decode objects of `kind` (a core/v1 kind,
// or "DeleteOptions").
bool CanDecodeProtobufKind(std::string_view kind);

// Decodes a protobuf request body for an object of `expected_kind` into its
// JSON form, with `apiVersion` and `kind` taken from the envelope.
//
// Errors:
//   kInvalidArgument: the body is not a well-formed envelope or object
//     (wrong magic, truncated varint, length beyond the buffer, a field
//     with the wrong wire type, a timestamp outside years 0-9999), or the
//     envelope names a kind other than `expected_kind`. The message names
//     the field path where decoding stopped.
//   kUnimplemented: `expected_kind` has no protobuf schema here (e.g. the
//     resource.k8s.io kinds), or the envelope declares a content encoding.
// Never reads outside `body`, whatever its contents.
StatusOr<nlohmann::ordered_json> DecodeProtobufBody(
    std::string_view body, std::string_view expected_kind);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_PROTOBUF_BODY_H_
