// Codec: JSON documents ↔ Objects, across every served API version.
//
// Decoding reads apiVersion and kind, decodes the version's wire shape and
// converts it to the hub (v1) form. A `List` document yields its items.
// Encoding converts the hub form to the requested version.
#ifndef DRALLOC_API_CODEC_H_
#define DRALLOC_API_CODEC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_error.h"
#include "api/object.h"
#include "api/struct_codec.h"
#include "common/status.h"

namespace dralloc::api {

inline constexpr std::string_view kResourceGroup = "resource.k8s.io";
inline constexpr std::string_view kResourceV1 = "resource.k8s.io/v1";
inline constexpr std::string_view kResourceV1beta1 = "resource.k8s.io/v1beta1";
inline constexpr std::string_view kResourceV1beta2 = "resource.k8s.io/v1beta2";
inline constexpr std::string_view kResourceV1alpha3 =
    "resource.k8s.io/v1alpha3";
inline constexpr std::string_view kResourceV1alpha2 =
    "resource.k8s.io/v1alpha2";
inline constexpr std::string_view kCoreV1 = "v1";

// The outcome of decoding one object. `object` is set iff `errors` is empty.
struct DecodeResult {
  std::string api_version;  // as written in the input
  std::string kind;
  std::string name;  // best effort (also when decoding failed), for messages
  std::string namespace_;
  std::optional<Object> object;
  ErrorList errors;
  ErrorList warnings;

  // "kind namespace/name", "kind name", or "kind" when there is no name.
  std::string DisplayName() const;
};

// Decodes one JSON document (compact text, e.g. from encoding::ReadDocuments).
// Returns one result per object: one for a plain object, one per item for a
// `List`. Malformed JSON gives a single result with an error.
std::vector<DecodeResult> DecodeDocument(std::string_view json,
                                         const DecodeOptions& options = {});

// The same for a document that is already parsed (encoding::VisitDocuments).
std::vector<DecodeResult> DecodeElement(JsonElement root,
                                        const DecodeOptions& options = {});

// Encodes `object` in `api_version` ("resource.k8s.io/v1beta1", "v1", ...).
// Errors: the kind is not served in that version, or the object uses a
// field that version cannot express.
StatusOr<Json> EncodeObject(const Object& object, std::string_view api_version);
// The same as compact JSON text: exactly EncodeObject(...)->dump(), written
// without building the tree.
StatusOr<std::string> EncodeObjectText(const Object& object,
                                       std::string_view api_version);

// The version we emit by default for an object's kind (v1 for resource kinds
// that have it, v1alpha3 for ResourceSlicePatch, v1alpha2 for the classic
// family, v1 for core kinds).
std::string_view PreferredVersion(const Object& object);

// True if `api_version` serves `kind`.
bool IsServed(std::string_view api_version, std::string_view kind);
// True if `api_version` serves the kind of `object` (its family: a v1alpha2
// ResourceClaim is not served in resource.k8s.io/v1).
bool IsServed(std::string_view api_version, const Object& object);

// All versions that serve the kind of `object`, preferred first.
std::vector<std::string_view> ServedVersions(const Object& object);
// All versions that serve a kind named `kind` (both families' versions for
// a shared name), preferred first.
std::vector<std::string_view> ServedVersions(std::string_view kind);

}  // namespace dralloc::api

#endif  // DRALLOC_API_CODEC_H_
