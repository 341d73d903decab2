// resource.k8s.io/v1alpha2 as Kubernetes 1.30 served it: the classic DRA
// protocol of KEP-3063 (ResourceClass, PodSchedulingContext, opaque
// parameters, resource handles) and 1.30's structured model (namedResources
// slices, ResourceClaimParameters, ResourceClassParameters).
//
// These are the wire structs of issue #27 (docs/classic-dra.md), validated
// by validation.h here. They are alternatives of api::Object (the classic
// family), served and stored in this shape: there is no hub and no
// conversion between them and the structured kinds of the same names.
//
// Required fields (no `omitempty` in upstream's JSON tags) are kAlways, so
// they are written even when empty, as Go writes them. Four lists upstream
// writes even when nil (`results`, `instances`, `ints`, `strings`) are
// kAlways too; dralloc writes such a list as `[]`, where Go writes `null`.
// Opaque vendor parameters (Go's runtime.RawExtension) are kept verbatim.
#ifndef DRALLOC_API_V1ALPHA2_TYPES_H_
#define DRALLOC_API_V1ALPHA2_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/node_selector.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api::v1alpha2 {

inline constexpr std::string_view kApiVersion = "resource.k8s.io/v1alpha2";
// Limits of 1.30's types.go.
inline constexpr size_t kResourceHandleDataMaxSize = 16 * 1024;
inline constexpr size_t kAllocationResultResourceHandlesMaxSize = 32;
inline constexpr size_t kResourceClaimReservedForMaxSize = 32;
inline constexpr size_t kPodSchedulingNodeListMaxSize = 128;
// The finalizer of claims the scheduler allocated (structured parameters).
inline constexpr std::string_view kBuiltinFinalizer =
    "dra.k8s.io/delete-protection";
inline constexpr std::string_view kAllocationModeWaitForFirstConsumer =
    "WaitForFirstConsumer";
inline constexpr std::string_view kAllocationModeImmediate = "Immediate";

// ---- References ----

struct ResourceClassParametersReference {
  std::string api_group;
  std::string kind;
  std::string name;
  std::string namespace_;
  friend bool operator==(const ResourceClassParametersReference&,
                         const ResourceClassParametersReference&) = default;
};
constexpr auto FieldsOf(const ResourceClassParametersReference*) {
  using T = ResourceClassParametersReference;
  return std::tuple{
      Field("apiGroup", &T::api_group), Field("kind", &T::kind, kAlways),
      Field("name", &T::name, kAlways), Field("namespace", &T::namespace_)};
}

// A claim's parameters live in the claim's namespace: no namespace field.
struct ResourceClaimParametersReference {
  std::string api_group;
  std::string kind;
  std::string name;
  friend bool operator==(const ResourceClaimParametersReference&,
                         const ResourceClaimParametersReference&) = default;
};
constexpr auto FieldsOf(const ResourceClaimParametersReference*) {
  using T = ResourceClaimParametersReference;
  return std::tuple{Field("apiGroup", &T::api_group),
                    Field("kind", &T::kind, kAlways),
                    Field("name", &T::name, kAlways)};
}

// ---- ResourceClass (cluster-scoped) ----

struct ResourceClass {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::string driver_name;
  std::optional<ResourceClassParametersReference> parameters_ref;
  std::optional<NodeSelector> suitable_nodes;
  std::optional<bool> structured_parameters;
  friend bool operator==(const ResourceClass&, const ResourceClass&) = default;
};
constexpr auto FieldsOf(const ResourceClass*) {
  using T = ResourceClass;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata),
                    Field("driverName", &T::driver_name, kAlways),
                    Field("parametersRef", &T::parameters_ref),
                    Field("suitableNodes", &T::suitable_nodes),
                    Field("structuredParameters", &T::structured_parameters)};
}

// ---- ResourceClaim ----

struct ResourceClaimSpec {
  std::string resource_class_name;
  std::optional<ResourceClaimParametersReference> parameters_ref;
  // "WaitForFirstConsumer" (the default) or "Immediate".
  std::string allocation_mode;
  friend bool operator==(const ResourceClaimSpec&,
                         const ResourceClaimSpec&) = default;
};
constexpr auto FieldsOf(const ResourceClaimSpec*) {
  using T = ResourceClaimSpec;
  return std::tuple{
      Field("resourceClassName", &T::resource_class_name, kAlways),
      Field("parametersRef", &T::parameters_ref),
      Field("allocationMode", &T::allocation_mode)};
}

struct NamedResourcesAllocationResult {
  std::string name;
  friend bool operator==(const NamedResourcesAllocationResult&,
                         const NamedResourcesAllocationResult&) = default;
};
constexpr auto FieldsOf(const NamedResourcesAllocationResult*) {
  return std::tuple{
      Field("name", &NamedResourcesAllocationResult::name, kAlways)};
}

// One result of a driver's structured allocation; the model
// (namedResources) is inlined in the JSON object.
struct DriverAllocationResult {
  std::optional<RawJson> vendor_request_parameters;
  std::optional<NamedResourcesAllocationResult> named_resources;
  friend bool operator==(const DriverAllocationResult&,
                         const DriverAllocationResult&) = default;
};
constexpr auto FieldsOf(const DriverAllocationResult*) {
  using T = DriverAllocationResult;
  return std::tuple{
      Field("vendorRequestParameters", &T::vendor_request_parameters),
      Field("namedResources", &T::named_resources)};
}

struct StructuredResourceHandle {
  std::optional<RawJson> vendor_class_parameters;
  std::optional<RawJson> vendor_claim_parameters;
  std::string node_name;
  std::vector<DriverAllocationResult> results;
  friend bool operator==(const StructuredResourceHandle&,
                         const StructuredResourceHandle&) = default;
};
constexpr auto FieldsOf(const StructuredResourceHandle*) {
  using T = StructuredResourceHandle;
  return std::tuple{Field("vendorClassParameters", &T::vendor_class_parameters),
                    Field("vendorClaimParameters", &T::vendor_claim_parameters),
                    Field("nodeName", &T::node_name),
                    Field("results", &T::results, kAlways).ListAtomic()};
}

// What a driver's kubelet plugin gets for the claim: opaque `data` written
// by a control-plane driver, or `structuredData` written by the scheduler.
struct ResourceHandle {
  std::string driver_name;
  std::string data;
  std::optional<StructuredResourceHandle> structured_data;
  friend bool operator==(const ResourceHandle&,
                         const ResourceHandle&) = default;
};
constexpr auto FieldsOf(const ResourceHandle*) {
  using T = ResourceHandle;
  return std::tuple{Field("driverName", &T::driver_name),
                    Field("data", &T::data),
                    Field("structuredData", &T::structured_data)};
}

struct AllocationResult {
  std::vector<ResourceHandle> resource_handles;
  std::optional<NodeSelector> available_on_nodes;
  bool shareable = false;
  friend bool operator==(const AllocationResult&,
                         const AllocationResult&) = default;
};
constexpr auto FieldsOf(const AllocationResult*) {
  using T = AllocationResult;
  return std::tuple{Field("resourceHandles", &T::resource_handles).ListAtomic(),
                    Field("availableOnNodes", &T::available_on_nodes),
                    Field("shareable", &T::shareable)};
}

struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;
  std::string name;
  std::string uid;
  friend bool operator==(const ResourceClaimConsumerReference&,
                         const ResourceClaimConsumerReference&) = default;
};
constexpr auto FieldsOf(const ResourceClaimConsumerReference*) {
  using T = ResourceClaimConsumerReference;
  return std::tuple{Field("apiGroup", &T::api_group),
                    Field("resource", &T::resource, kAlways),
                    Field("name", &T::name, kAlways),
                    Field("uid", &T::uid, kAlways)};
}

struct ResourceClaimStatus {
  std::string driver_name;
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  bool deallocation_requested = false;
  friend bool operator==(const ResourceClaimStatus&,
                         const ResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const ResourceClaimStatus*) {
  using T = ResourceClaimStatus;
  return std::tuple{Field("driverName", &T::driver_name),
                    Field("allocation", &T::allocation),
                    Field("reservedFor", &T::reserved_for).ListMap("uid"),
                    Field("deallocationRequested", &T::deallocation_requested)};
}

struct ResourceClaim {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};
constexpr auto FieldsOf(const ResourceClaim*) {
  using T = ResourceClaim;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec, kAlways),
                    Field("status", &T::status)};
}

// ---- ResourceClaimTemplate ----

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  friend bool operator==(const ResourceClaimTemplateSpec&,
                         const ResourceClaimTemplateSpec&) = default;
};
constexpr auto FieldsOf(const ResourceClaimTemplateSpec*) {
  using T = ResourceClaimTemplateSpec;
  return std::tuple{Field("metadata", &T::metadata),
                    Field("spec", &T::spec, kAlways)};
}

struct ResourceClaimTemplate {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
  friend bool operator==(const ResourceClaimTemplate&,
                         const ResourceClaimTemplate&) = default;
};
constexpr auto FieldsOf(const ResourceClaimTemplate*) {
  using T = ResourceClaimTemplate;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec, kAlways)};
}

// ---- PodSchedulingContext (named after its pod) ----

struct PodSchedulingContextSpec {
  std::string selected_node;
  std::vector<std::string> potential_nodes;
  friend bool operator==(const PodSchedulingContextSpec&,
                         const PodSchedulingContextSpec&) = default;
};
constexpr auto FieldsOf(const PodSchedulingContextSpec*) {
  using T = PodSchedulingContextSpec;
  return std::tuple{Field("selectedNode", &T::selected_node),
                    Field("potentialNodes", &T::potential_nodes).ListAtomic()};
}

struct ResourceClaimSchedulingStatus {
  std::string name;  // pod.spec.resourceClaims[].name
  std::vector<std::string> unsuitable_nodes;
  friend bool operator==(const ResourceClaimSchedulingStatus&,
                         const ResourceClaimSchedulingStatus&) = default;
};
constexpr auto FieldsOf(const ResourceClaimSchedulingStatus*) {
  using T = ResourceClaimSchedulingStatus;
  return std::tuple{
      Field("name", &T::name),
      Field("unsuitableNodes", &T::unsuitable_nodes).ListAtomic()};
}

struct PodSchedulingContextStatus {
  std::vector<ResourceClaimSchedulingStatus> resource_claims;
  friend bool operator==(const PodSchedulingContextStatus&,
                         const PodSchedulingContextStatus&) = default;
};
constexpr auto FieldsOf(const PodSchedulingContextStatus*) {
  return std::tuple{
      Field("resourceClaims", &PodSchedulingContextStatus::resource_claims)
          .ListMap("name")};
}

struct PodSchedulingContext {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  PodSchedulingContextSpec spec;
  PodSchedulingContextStatus status;
  friend bool operator==(const PodSchedulingContext&,
                         const PodSchedulingContext&) = default;
};
constexpr auto FieldsOf(const PodSchedulingContext*) {
  using T = PodSchedulingContext;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec, kAlways),
                    Field("status", &T::status)};
}

// ---- ResourceSlice (1.30's namedResources model) ----

struct NamedResourcesIntSlice {
  std::vector<int64_t> ints;
  friend bool operator==(const NamedResourcesIntSlice&,
                         const NamedResourcesIntSlice&) = default;
};
constexpr auto FieldsOf(const NamedResourcesIntSlice*) {
  return std::tuple{
      Field("ints", &NamedResourcesIntSlice::ints, kAlways).ListAtomic()};
}

struct NamedResourcesStringSlice {
  std::vector<std::string> strings;
  friend bool operator==(const NamedResourcesStringSlice&,
                         const NamedResourcesStringSlice&) = default;
};
constexpr auto FieldsOf(const NamedResourcesStringSlice*) {
  return std::tuple{
      Field("strings", &NamedResourcesStringSlice::strings, kAlways)
          .ListAtomic()};
}

// A named attribute; exactly one value field is set (the value is inlined
// in the JSON object next to `name`).
struct NamedResourcesAttribute {
  std::string name;
  std::optional<Quantity> quantity;
  std::optional<bool> bool_value;
  std::optional<int64_t> int_value;
  std::optional<NamedResourcesIntSlice> int_slice;
  std::optional<std::string> string_value;
  std::optional<NamedResourcesStringSlice> string_slice;
  std::optional<std::string> version;
  friend bool operator==(const NamedResourcesAttribute&,
                         const NamedResourcesAttribute&) = default;
};
constexpr auto FieldsOf(const NamedResourcesAttribute*) {
  using T = NamedResourcesAttribute;
  return std::tuple{
      Field("name", &T::name, kAlways),       Field("quantity", &T::quantity),
      Field("bool", &T::bool_value),          Field("int", &T::int_value),
      Field("intSlice", &T::int_slice),       Field("string", &T::string_value),
      Field("stringSlice", &T::string_slice), Field("version", &T::version)};
}

struct NamedResourcesInstance {
  std::string name;
  std::vector<NamedResourcesAttribute> attributes;
  friend bool operator==(const NamedResourcesInstance&,
                         const NamedResourcesInstance&) = default;
};
constexpr auto FieldsOf(const NamedResourcesInstance*) {
  using T = NamedResourcesInstance;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("attributes", &T::attributes).ListAtomic()};
}

struct NamedResourcesResources {
  std::vector<NamedResourcesInstance> instances;
  friend bool operator==(const NamedResourcesResources&,
                         const NamedResourcesResources&) = default;
};
constexpr auto FieldsOf(const NamedResourcesResources*) {
  return std::tuple{
      Field("instances", &NamedResourcesResources::instances, kAlways)
          .ListAtomic()};
}

struct ResourceSlice {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::string node_name;
  std::string driver_name;
  // The resource model, inlined: exactly one model is set.
  std::optional<NamedResourcesResources> named_resources;
  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};
constexpr auto FieldsOf(const ResourceSlice*) {
  using T = ResourceSlice;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata),
                    Field("nodeName", &T::node_name),
                    Field("driverName", &T::driver_name, kAlways),
                    Field("namedResources", &T::named_resources)};
}

// ---- ResourceClaimParameters and ResourceClassParameters ----

struct NamedResourcesSelector {
  std::string selector;  // a CEL expression over one instance
  friend bool operator==(const NamedResourcesSelector&,
                         const NamedResourcesSelector&) = default;
};
constexpr auto FieldsOf(const NamedResourcesSelector*) {
  return std::tuple{
      Field("selector", &NamedResourcesSelector::selector, kAlways)};
}

// One request of a driver; the model (namedResources) is inlined.
struct ResourceRequest {
  std::optional<RawJson> vendor_parameters;
  std::optional<NamedResourcesSelector> named_resources;
  friend bool operator==(const ResourceRequest&,
                         const ResourceRequest&) = default;
};
constexpr auto FieldsOf(const ResourceRequest*) {
  using T = ResourceRequest;
  return std::tuple{Field("vendorParameters", &T::vendor_parameters),
                    Field("namedResources", &T::named_resources)};
}

struct DriverRequests {
  std::string driver_name;
  std::optional<RawJson> vendor_parameters;
  std::vector<ResourceRequest> requests;
  friend bool operator==(const DriverRequests&,
                         const DriverRequests&) = default;
};
constexpr auto FieldsOf(const DriverRequests*) {
  using T = DriverRequests;
  return std::tuple{Field("driverName", &T::driver_name),
                    Field("vendorParameters", &T::vendor_parameters),
                    Field("requests", &T::requests).ListAtomic()};
}

struct ResourceClaimParameters {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::optional<ResourceClaimParametersReference> generated_from;
  bool shareable = false;
  std::vector<DriverRequests> driver_requests;
  friend bool operator==(const ResourceClaimParameters&,
                         const ResourceClaimParameters&) = default;
};
constexpr auto FieldsOf(const ResourceClaimParameters*) {
  using T = ResourceClaimParameters;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata),
                    Field("generatedFrom", &T::generated_from),
                    Field("shareable", &T::shareable),
                    Field("driverRequests", &T::driver_requests).ListAtomic()};
}

struct VendorParameters {
  std::string driver_name;
  std::optional<RawJson> parameters;
  friend bool operator==(const VendorParameters&,
                         const VendorParameters&) = default;
};
constexpr auto FieldsOf(const VendorParameters*) {
  using T = VendorParameters;
  return std::tuple{Field("driverName", &T::driver_name),
                    Field("parameters", &T::parameters)};
}

// A driver's filter; the model (namedResources) is inlined.
struct ResourceFilter {
  std::string driver_name;
  std::optional<NamedResourcesSelector> named_resources;
  friend bool operator==(const ResourceFilter&,
                         const ResourceFilter&) = default;
};
constexpr auto FieldsOf(const ResourceFilter*) {
  using T = ResourceFilter;
  return std::tuple{Field("driverName", &T::driver_name),
                    Field("namedResources", &T::named_resources)};
}

struct ResourceClassParameters {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::optional<ResourceClassParametersReference> generated_from;
  std::vector<VendorParameters> vendor_parameters;
  std::vector<ResourceFilter> filters;
  friend bool operator==(const ResourceClassParameters&,
                         const ResourceClassParameters&) = default;
};
constexpr auto FieldsOf(const ResourceClassParameters*) {
  using T = ResourceClassParameters;
  return std::tuple{
      Field("apiVersion", &T::api_version),
      Field("kind", &T::kind),
      Field("metadata", &T::metadata),
      Field("generatedFrom", &T::generated_from),
      Field("vendorParameters", &T::vendor_parameters).ListAtomic(),
      Field("filters", &T::filters).ListAtomic()};
}

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_TYPES_H_
