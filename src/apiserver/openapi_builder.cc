#include "apiserver/openapi_builder.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <typeinfo>

#include "api/kind_traits.h"
#include "api/object.h"
#include "api/resource_registry.h"
#include "api/struct_codec.h"
#include "api/v1beta1/types.h"

namespace dralloc::apiserver {
namespace {

// Kubernetes type names of the core/v1 and meta/v1 types we model.
const std::set<std::string, std::less<>> kCoreTypes = {
    "Namespace",
    "NamespaceSpec",
    "NamespaceStatus",
    "Node",
    "NodeSpec",
    "NodeStatus",
    "Pod",
    "PodSpec",
    "PodStatus",
    "Container",
    "ResourceRequirements",
    "ResourceClaim_core",
    "PodResourceClaim",
    "NodeAffinity",
    "Affinity",
    "PodCondition",
    "PodResourceClaimStatus",
    "Event",
    "ObjectReference",
    "EventSource",
    "NodeSelector",
    "NodeSelectorTerm",
    "NodeSelectorRequirement",
    "Toleration",
    "Taint"};
// core/v1 identity and configuration types (issue 25).
const std::set<std::string, std::less<>> kCoreConfigTypes = {
    "ServiceAccount", "LocalObjectReference", "Secret", "ConfigMap"};
// coordination.k8s.io/v1 types.
const std::set<std::string, std::less<>> kCoordinationTypes = {"Lease",
                                                               "LeaseSpec"};
// core/v1 ResourceQuota types.
const std::set<std::string, std::less<>> kResourceQuotaTypes = {
    "ResourceQuota", "ResourceQuotaSpec", "ResourceQuotaStatus",
    "ScopeSelector", "ScopedResourceSelectorRequirement"};
// rbac.authorization.k8s.io/v1 types.
const std::set<std::string, std::less<>> kRbacTypes = {
    "Role",    "ClusterRole", "RoleBinding",     "ClusterRoleBinding",
    "RoleRef", "Subject",     "AggregationRule", "PolicyRule"};
const std::set<std::string, std::less<>> kMetaTypes = {
    "ObjectMeta", "OwnerReference", "ListMeta", "Condition"};

const std::map<std::string, std::string, std::less<>> kDescriptions = {
    {"DeviceClass",
     "DeviceClass is a vendor- or admin-provided resource that contains "
     "device configuration and selectors. It can be referenced in the device "
     "requests of a claim to apply these presets."},
    {"ResourceClaim",
     "ResourceClaim describes a request for access to resources in the "
     "cluster, for use by workloads. The spec is immutable; the status says "
     "which devices were allocated and who uses them."},
    {"ResourceClaimTemplate",
     "ResourceClaimTemplate is used to produce ResourceClaim objects for the "
     "pods that reference it."},
    {"ResourceSlice",
     "ResourceSlice represents one or more devices in a pool, published by a "
     "DRA driver."},
    {"DeviceTaintRule",
     "DeviceTaintRule adds one taint to all devices which match the "
     "selector."},
    {"ResourceSlicePatch",
     "ResourceSlicePatch lets administrators add attributes, capacity, "
     "taints and priorities to devices published by drivers (KEP-5027)."},
    {"ResourcePoolStatusRequest",
     "ResourcePoolStatusRequest triggers a one-time calculation of resource "
     "pool status based on the provided filters. Once status is set, the "
     "request is complete and is not processed again; delete and recreate it "
     "to get updated information (KEP-5677)."},
    {"ResourcePoolStatusRequestSpec",
     "ResourcePoolStatusRequestSpec defines the filters for the pool status "
     "request: driver (required), poolName, limit (default 100, at most "
     "1000) and defaultPartitionTypeAttribute. The spec is immutable."},
    {"ResourcePoolStatusRequestStatus",
     "ResourcePoolStatusRequestStatus contains the calculated pool status: "
     "poolCount (all matching pools), pools (the first spec.limit, sorted by "
     "driver then pool name) and the Complete or Failed condition."},
    {"PoolStatus",
     "PoolStatus contains status information for a single resource pool at "
     "its newest generation."},
    {"ResourceClaimSpec",
     "ResourceClaimSpec defines what is being requested in a ResourceClaim "
     "and how to configure it."},
    {"ResourceClaimStatus",
     "ResourceClaimStatus tracks whether the resource has been allocated and "
     "what the result of that was."},
    {"ResourceSliceSpec",
     "ResourceSliceSpec contains the information published by the driver in "
     "one ResourceSlice."},
    {"DeviceClassSpec",
     "DeviceClassSpec is used in a DeviceClass to define what can be "
     "allocated and how to configure it."},
    {"DeviceClaim",
     "DeviceClaim defines how to request devices with a "
     "ResourceClaim."},
    {"DeviceRequest",
     "DeviceRequest is a request for devices required for a claim."},
    {"Device",
     "Device represents one individual hardware instance that can "
     "be selected based on its attributes."},
    {"ObjectMeta",
     "ObjectMeta is metadata that all persisted resources must have."},
};

std::string Demangled(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 ? std::string(name.get()) : std::string(type.name());
}

// Builds the schemas of one document.
class SchemaBuilder {
 public:
  // `version`: the resource.k8s.io version the hub structs are named for.
  explicit SchemaBuilder(std::string version) : version_(std::move(version)) {}

  template <typename T>
  Json SchemaOf() {
    if constexpr (std::is_same_v<T, std::string>) {
      return {{"type", "string"}};
    } else if constexpr (std::is_same_v<T, bool>) {
      return {{"type", "boolean"}};
    } else if constexpr (std::is_same_v<T, int64_t>) {
      return {{"type", "integer"}, {"format", "int64"}};
    } else if constexpr (std::is_same_v<T, int32_t>) {
      return {{"type", "integer"}, {"format", "int32"}};
    } else if constexpr (std::is_same_v<T, Quantity>) {
      return Ref("io.k8s.apimachinery.pkg.api.resource.Quantity", [] {
        return Json{{"description",
                     "Quantity is a fixed-point representation of a number, "
                     "e.g. 40Gi or 100m."},
                    {"type", "string"}};
      });
    } else if constexpr (std::is_same_v<T, api::RawJson>) {
      return {{"x-kubernetes-preserve-unknown-fields", true}};
    } else if constexpr (api::IsOptional<T>::value) {
      return SchemaOf<typename T::value_type>();
    } else if constexpr (api::IsVector<T>::value) {
      return {{"type", "array"},
              {"items", SchemaOf<typename T::value_type>()},
              {"x-kubernetes-list-type", "atomic"}};
    } else if constexpr (api::IsStringMap<T>::value) {
      return {{"type", "object"},
              {"additionalProperties", SchemaOf<typename T::mapped_type>()}};
    } else {
      static_assert(api::Reflected<T>, "type has no field table");
      return Ref(NameOf<T>(), [this] { return StructSchema<T>(); });
    }
  }

  template <typename T>
  std::string NameOf() const {
    std::string full = Demangled(typeid(T));
    const bool v1beta1 = full.find("::v1beta1::") != std::string::npos;
    std::string name = full.substr(full.rfind("::") + 2);
    if (kMetaTypes.contains(name)) {
      return "io.k8s.apimachinery.pkg.apis.meta.v1." + name;
    }
    if (!v1beta1 && kCoreTypes.contains(name))
      return "io.k8s.api.core.v1." + name;
    if (kCoreConfigTypes.contains(name)) return "io.k8s.api.core.v1." + name;
    if (kCoordinationTypes.contains(name))
      return "io.k8s.api.coordination.v1." + name;
    if (kResourceQuotaTypes.contains(name)) return "io.k8s.api.core.v1." + name;
    if (kRbacTypes.contains(name)) return "io.k8s.api.rbac.v1." + name;
    return fmt::format("io.k8s.api.resource.{}.{}",
                       v1beta1 ? "v1beta1" : version_, name);
  }

  // Registers a top-level kind's schema with its GVK.
  template <typename T>
  void AddKind(const api::ResourceInfo& info, std::string_view version) {
    const std::string name = NameOf<T>();
    SchemaOf<T>();
    Json gvk = Json::array(
        {{{"group", info.group}, {"kind", info.kind}, {"version", version}}});
    schemas_[name]["x-kubernetes-group-version-kind"] = gvk;
    Json list = {
        {"description",
         fmt::format("{}List is a collection of {}.", info.kind, info.kind)},
        {"type", "object"},
        {"required", {"items"}},
        {"properties",
         {{"apiVersion", {{"type", "string"}}},
          {"items", {{"type", "array"}, {"items", Link(name)}}},
          {"kind", {{"type", "string"}}},
          {"metadata", Link("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta")}}},
        {"x-kubernetes-group-version-kind",
         Json::array({{{"group", info.group},
                       {"kind", std::string(info.kind) + "List"},
                       {"version", version}}})}};
    SchemaOf<api::ListMeta>();
    schemas_[name + "List"] = std::move(list);
  }

  Json Link(const std::string& name) const {
    return {
        {"allOf", Json::array({{{"$ref", "#/components/schemas/" + name}}})}};
  }

  Json TakeSchemas() {
    Json out = Json::object();
    for (auto& [name, schema] : schemas_) out[name] = std::move(schema);
    return out;
  }

 private:
  template <typename Fn>
  Json Ref(const std::string& name, Fn&& build) {
    if (!schemas_.contains(name)) {
      schemas_[name] = Json::object();  // placeholder: breaks cycles
      schemas_[name] = build();
    }
    return Link(name);
  }

  template <typename T>
  Json StructSchema() {
    Json properties = Json::object();
    Json required = Json::array();
    api::ForEachField<T>([&](const auto& field) {
      using Member = typename std::decay_t<decltype(field)>::MemberType;
      Json schema = SchemaOf<Member>();
      if ((field.flags & api::kAlways) != 0 &&
          !api::IsOptional<Member>::value) {
        if (field.name == "name" || field.name == "type" ||
            field.name == "status" || field.name == "driver") {
          required.push_back(field.name);
        }
      }
      properties[std::string(field.name)] = std::move(schema);
    });
    const std::string name = NameOf<T>();
    const std::string short_name = name.substr(name.rfind('.') + 1);
    Json schema = {{"type", "object"}};
    if (auto it = kDescriptions.find(short_name); it != kDescriptions.end()) {
      schema["description"] = it->second;
    } else {
      schema["description"] =
          short_name + " (see the Kubernetes API reference).";
    }
    schema["properties"] = std::move(properties);
    if (!required.empty()) schema["required"] = std::move(required);
    if constexpr (api::KeepsUnknownFields<T>) {
      schema["x-kubernetes-preserve-unknown-fields"] = true;
    }
    return schema;
  }

  std::string version_;
  std::map<std::string, Json> schemas_;
};

Json Parameter(std::string_view name, std::string_view in,
               std::string_view type, bool required = false) {
  return {{"name", name},
          {"in", in},
          {"required", required},
          {"schema", {{"type", type}}}};
}

Json Operation(const api::ResourceInfo& info, std::string_view version,
               std::string_view action, std::string_view operation_id,
               const Json& response_schema, bool body) {
  Json op = {
      {"tags", {info.GroupVersion(version)}},
      {"operationId", operation_id},
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind",
       {{"group", info.group}, {"version", version}, {"kind", info.kind}}}};
  Json parameters = Json::array();
  if (action == "patch" || action == "put" || action == "post") {
    parameters.push_back(Parameter("dryRun", "query", "string"));
    parameters.push_back(Parameter("fieldManager", "query", "string"));
    parameters.push_back(Parameter("fieldValidation", "query", "string"));
  }
  if (action == "patch")
    parameters.push_back(Parameter("force", "query", "boolean"));
  if (action == "list" || action == "watch") {
    for (const char* p : {"labelSelector", "fieldSelector", "continue",
                          "resourceVersion", "resourceVersionMatch"}) {
      parameters.push_back(Parameter(p, "query", "string"));
    }
    parameters.push_back(Parameter("limit", "query", "integer"));
    parameters.push_back(Parameter("timeoutSeconds", "query", "integer"));
    parameters.push_back(Parameter("watch", "query", "boolean"));
    parameters.push_back(Parameter("allowWatchBookmarks", "query", "boolean"));
    parameters.push_back(Parameter("sendInitialEvents", "query", "boolean"));
  }
  op["parameters"] = std::move(parameters);
  if (body) {
    Json content = Json::object();
    if (action == "patch") {
      for (const char* type :
           {"application/json-patch+json", "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml"}) {
        content[type] = {{"schema", {{"type", "object"}}}};
      }
    } else {
      content["application/json"] = {{"schema", response_schema}};
    }
    op["requestBody"] = {{"content", content}, {"required", true}};
  }
  op["responses"] = {
      {"200",
       {{"description", "OK"},
        {"content", {{"application/json", {{"schema", response_schema}}}}}}},
      {"401", {{"description", "Unauthorized"}}}};
  return op;
}

template <typename T>
void AddResource(SchemaBuilder& builder, Json& paths,
                 const api::ResourceInfo& info, std::string_view version) {
  builder.AddKind<T>(info, version);
  const std::string name = builder.NameOf<T>();
  const Json item = builder.Link(name);
  const Json list = builder.Link(name + "List");
  const std::string root =
      info.group.empty() ? std::string("/api/v1")
                         : fmt::format("/apis/{}/{}", info.group, version);
  const std::string kind(info.kind);
  const std::string scope = info.namespaced ? "Namespaced" : "";
  const std::string collection =
      info.namespaced
          ? fmt::format("{}/namespaces/{{namespace}}/{}", root, info.plural)
          : fmt::format("{}/{}", root, info.plural);
  const Json ns_param = Parameter("namespace", "path", "string", true);
  const Json name_param = Parameter("name", "path", "string", true);
  Json collection_ops = {
      {"get",
       Operation(info, version, "list", "list" + scope + kind, list, false)},
      {"post",
       Operation(info, version, "post", "create" + scope + kind, item, true)},
      {"delete", Operation(info, version, "deletecollection",
                           "deleteCollection" + scope + kind, list, false)}};
  if (info.namespaced) collection_ops["parameters"] = Json::array({ns_param});
  paths[collection] = std::move(collection_ops);
  Json item_ops = {
      {"get",
       Operation(info, version, "get", "read" + scope + kind, item, false)},
      {"put",
       Operation(info, version, "put", "replace" + scope + kind, item, true)},
      {"patch",
       Operation(info, version, "patch", "patch" + scope + kind, item, true)},
      {"delete", Operation(info, version, "delete", "delete" + scope + kind,
                           item, false)}};
  item_ops["parameters"] = info.namespaced ? Json::array({name_param, ns_param})
                                           : Json::array({name_param});
  paths[collection + "/{name}"] = item_ops;
  if (info.has_status) {
    Json status_ops = {
        {"get", Operation(info, version, "get",
                          "read" + scope + kind + "Status", item, false)},
        {"put", Operation(info, version, "put",
                          "replace" + scope + kind + "Status", item, true)},
        {"patch", Operation(info, version, "patch",
                            "patch" + scope + kind + "Status", item, true)}};
    status_ops["parameters"] = item_ops["parameters"];
    paths[collection + "/{name}/status"] = std::move(status_ops);
  }
  if (info.namespaced) {
    paths[fmt::format("{}/{}", root, info.plural)] = {
        {"get", Operation(info, version, "list",
                          "list" + kind + "ForAllNamespaces", list, false)}};
  }
}

// The struct that models kind T in v1beta1, where its shape differs from
// the hub's.
template <typename T>
struct V1beta1Shape {
  using type = T;
};
template <>
struct V1beta1Shape<api::ResourceClaim> {
  using type = api::v1beta1::ResourceClaim;
};
template <>
struct V1beta1Shape<api::ResourceSlice> {
  using type = api::v1beta1::ResourceSlice;
};
template <>
struct V1beta1Shape<api::ResourceClaimTemplate> {
  using type = api::v1beta1::ResourceClaimTemplate;
};

// Calls AddResource with the struct that models `info` in `version`.
void AddResourceFor(SchemaBuilder& builder, Json& paths,
                    const api::ResourceInfo& info, std::string_view version) {
  api::ForEachKind([&]<typename T>(const api::KindTraits& traits) {
    if (traits.listing != info.listing) return;
    if (version == "v1beta1") {
      AddResource<typename V1beta1Shape<T>::type>(builder, paths, info,
                                                  version);
    } else {
      AddResource<T>(builder, paths, info, version);
    }
  });
}

Json BuildDocument(std::string_view group, std::string_view version) {
  SchemaBuilder builder{std::string(version)};
  Json paths = Json::object();
  for (const api::ResourceInfo& info : api::AllResources()) {
    if (info.group != group) continue;
    if (std::find(info.versions.begin(), info.versions.end(), version) ==
        info.versions.end()) {
      continue;
    }
    AddResourceFor(builder, paths, info, version);
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.33.0"}}},
          {"paths", std::move(paths)},
          {"components", {{"schemas", builder.TakeSchemas()}}}};
}

struct Documents {
  std::map<std::string, std::string, std::less<>> text;
  std::map<std::string, std::string, std::less<>> hash;
};

const Documents& AllDocuments() {
  static const Documents documents = [] {
    Documents out;
    for (std::string_view group : api::ServedGroups()) {
      for (std::string_view version : api::GroupVersions(group)) {
        const std::string path =
            group.empty() ? fmt::format("api/{}", version)
                          : fmt::format("apis/{}/{}", group, version);
        std::string text = BuildDocument(group, version).dump();
        uint64_t h = 1469598103934665603ULL;  // FNV-1a
        for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
        out.hash[path] = fmt::format("{:016X}", h);
        out.text[path] = std::move(text);
      }
    }
    return out;
  }();
  return documents;
}

}  // namespace

std::vector<std::string> OpenApiDocumentPaths() {
  std::vector<std::string> paths;
  for (const auto& [path, text] : AllDocuments().text) paths.push_back(path);
  return paths;
}

const std::string* OpenApiDocumentText(std::string_view path) {
  const auto& text = AllDocuments().text;
  auto it = text.find(path);
  return it == text.end() ? nullptr : &it->second;
}

std::string OpenApiDocumentHash(std::string_view path) {
  const auto& hash = AllDocuments().hash;
  auto it = hash.find(path);
  return it == hash.end() ? std::string() : it->second;
}

Json OpenApiRootIndex() {
  Json paths = Json::object();
  for (const auto& [path, hash] : AllDocuments().hash) {
    paths[path] = {{"serverRelativeURL",
                    fmt::format("/openapi/v3/{}?hash={}", path, hash)}};
  }
  return {{"paths", paths}};
}

}  // namespace dralloc::apiserver
