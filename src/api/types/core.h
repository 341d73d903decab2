// The core/v1 subset dralloc needs: Namespace, Node, Pod, Event.
//
// These objects carry many fields dralloc does not interpret (container
// images, probes, node addresses...). The structs model what the scheduler
// and node agent use and keep everything else in `unknown_fields`, so real
// manifests decode strictly and round-trip unchanged.
#ifndef DRALLOC_API_TYPES_CORE_H_
#define DRALLOC_API_TYPES_CORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/node_selector.h"
#include "api/types/object_meta.h"
#include "api/types/pod_affinity.h"
#include "common/quantity.h"

namespace dralloc::api {

struct NamespaceSpec {
  std::vector<std::string> finalizers;
  friend bool operator==(const NamespaceSpec&, const NamespaceSpec&) = default;
};
constexpr auto FieldsOf(const NamespaceSpec*) {
  return std::tuple{Field("finalizers", &NamespaceSpec::finalizers).Proto(1)};
}

struct NamespaceStatus {
  std::string phase;
  UnknownFields unknown_fields;
  friend bool operator==(const NamespaceStatus&,
                         const NamespaceStatus&) = default;
};
constexpr auto FieldsOf(const NamespaceStatus*) {
  return std::tuple{Field("phase", &NamespaceStatus::phase).Proto(1)};
}

// The shape of a Namespace status condition, which NamespaceStatus keeps
// verbatim: its facts for protobuf bodies.
struct NamespaceCondition {};
constexpr auto KeptFieldsOf(const NamespaceCondition*) {
  return std::tuple{
      Kept<std::string>("type", kAlways).Proto(1),
      Kept<std::string>("status", kAlways).Proto(2),
      Kept<std::string>("lastTransitionTime").Proto(4, ProtoType::kTime),
      Kept<std::string>("reason").Proto(5),
      Kept<std::string>("message").Proto(6)};
}
constexpr auto KeptFieldsOf(const NamespaceStatus*) {
  return std::tuple{
      Kept<std::vector<NamespaceCondition>>("conditions").Proto(2)};
}

struct Namespace {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  NamespaceSpec spec;
  NamespaceStatus status;
  friend bool operator==(const Namespace&, const Namespace&) = default;
};
constexpr auto FieldsOf(const Namespace*) {
  using T = Namespace;
  return std::tuple{
      Field("apiVersion", &T::api_version), Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("spec", &T::spec).Proto(2), Field("status", &T::status).Proto(3)};
}

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  UnknownFields unknown_fields;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};
constexpr auto FieldsOf(const NodeSpec*) {
  using T = NodeSpec;
  return std::tuple{Field("unschedulable", &T::unschedulable).Proto(4),
                    Field("taints", &T::taints).Proto(5).ListAtomic(),
                    Field("providerID", &T::provider_id).Proto(3)};
}
constexpr auto KeptFieldsOf(const NodeSpec*) {
  return std::tuple{
      Kept<std::vector<std::string>>("podCIDRs").ListSet().PatchMerge()};
}

struct NodeStatus {
  std::map<std::string, Quantity> capacity;
  std::map<std::string, Quantity> allocatable;
  // Features the node's kubelet declares (NodeDeclaredFeatures), e.g.
  // "DRAOptionalNodeOperations".
  std::vector<std::string> declared_features;
  UnknownFields unknown_fields;
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};
constexpr auto FieldsOf(const NodeStatus*) {
  using T = NodeStatus;
  return std::tuple{
      Field("capacity", &T::capacity).Proto(1),
      Field("allocatable", &T::allocatable).Proto(2),
      Field("declaredFeatures", &T::declared_features).Proto(14).ListAtomic()};
}
constexpr auto KeptFieldsOf(const NodeStatus*) {
  return std::tuple{
      Kept<std::vector<RawJson>>("conditions").ListMap("type").PatchMerge(),
      Kept<std::vector<RawJson>>("addresses").ListMap("type").PatchMerge()};
}

struct Node {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  friend bool operator==(const Node&, const Node&) = default;
};
constexpr auto FieldsOf(const Node*) {
  using T = Node;
  return std::tuple{
      Field("apiVersion", &T::api_version), Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("spec", &T::spec).Proto(2), Field("status", &T::status).Proto(3)};
}

// core/v1 ResourceClaim reference inside a container (`resources.claims[]`).
struct ContainerResourceClaim {
  std::string name;
  std::string request;
  friend bool operator==(const ContainerResourceClaim&,
                         const ContainerResourceClaim&) = default;
};
constexpr auto FieldsOf(const ContainerResourceClaim*) {
  return std::tuple{
      Field("name", &ContainerResourceClaim::name, kAlways).Proto(1),
      Field("request", &ContainerResourceClaim::request).Proto(2)};
}
// Upstream's protobuf message for it is core/v1 ResourceClaim.
constexpr std::string_view ProtoMessageName(const ContainerResourceClaim*) {
  return "ResourceClaim";
}

struct ResourceRequirements {
  std::map<std::string, Quantity> limits;
  std::map<std::string, Quantity> requests;
  std::vector<ContainerResourceClaim> claims;
  friend bool operator==(const ResourceRequirements&,
                         const ResourceRequirements&) = default;
};
constexpr auto FieldsOf(const ResourceRequirements*) {
  using T = ResourceRequirements;
  return std::tuple{Field("limits", &T::limits).Proto(1),
                    Field("requests", &T::requests).Proto(2),
                    // A map for apply only: no patchStrategy tag upstream.
                    Field("claims", &T::claims).Proto(3).ListMap("name")};
}

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;  // TCP (default), UDP, SCTP
  std::string host_ip;
  friend bool operator==(const ContainerPort&, const ContainerPort&) = default;
};
constexpr auto FieldsOf(const ContainerPort*) {
  using T = ContainerPort;
  return std::tuple{
      Field("name", &T::name).Proto(1),
      Field("hostPort", &T::host_port).Proto(2),
      Field("containerPort", &T::container_port, kAlways).Proto(3),
      Field("protocol", &T::protocol).Proto(4),
      Field("hostIP", &T::host_ip).Proto(5)};
}

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  // "Always" on an init container makes it a sidecar.
  std::optional<std::string> restart_policy;
  UnknownFields unknown_fields;
  friend bool operator==(const Container&, const Container&) = default;
};
constexpr auto FieldsOf(const Container*) {
  using T = Container;
  return std::tuple{Field("name", &T::name, kAlways).Proto(1),
                    Field("image", &T::image).Proto(2),
                    Field("resources", &T::resources).Proto(8),
                    Field("ports", &T::ports)
                        .Proto(6)
                        .ListMap("containerPort", "protocol")
                        .PatchMerge(),
                    Field("restartPolicy", &T::restart_policy).Proto(24)};
}
constexpr auto KeptFieldsOf(const Container*) {
  using Items = std::vector<RawJson>;
  return std::tuple{
      Kept<Items>("env").ListMap("name").PatchMerge(),
      Kept<Items>("volumeMounts").ListMap("mountPath").PatchMerge(),
      Kept<Items>("volumeDevices").ListMap("devicePath").PatchMerge()};
}

// PodSpec.resourceClaims[]: a claim by name or generated from a template.
struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
  friend bool operator==(const PodResourceClaim&,
                         const PodResourceClaim&) = default;
};
constexpr auto FieldsOf(const PodResourceClaim*) {
  using T = PodResourceClaim;
  return std::tuple{
      Field("name", &T::name, kAlways).Proto(1),
      Field("resourceClaimName", &T::resource_claim_name).Proto(3),
      Field("resourceClaimTemplateName", &T::resource_claim_template_name)
          .Proto(4)};
}

struct NodeAffinity {
  std::optional<NodeSelector>
      required_during_scheduling_ignored_during_execution;
  std::vector<PreferredSchedulingTerm>
      preferred_during_scheduling_ignored_during_execution;
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};
constexpr auto FieldsOf(const NodeAffinity*) {
  using T = NodeAffinity;
  return std::tuple{
      Field("requiredDuringSchedulingIgnoredDuringExecution",
            &T::required_during_scheduling_ignored_during_execution)
          .Proto(1),
      Field("preferredDuringSchedulingIgnoredDuringExecution",
            &T::preferred_during_scheduling_ignored_during_execution)
          .Proto(2)
          .ListAtomic()};
}

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAntiAffinity> pod_anti_affinity;
  friend bool operator==(const Affinity&, const Affinity&) = default;
};
constexpr auto FieldsOf(const Affinity*) {
  using T = Affinity;
  return std::tuple{Field("nodeAffinity", &T::node_affinity).Proto(1),
                    Field("podAffinity", &T::pod_affinity).Proto(2),
                    Field("podAntiAffinity", &T::pod_anti_affinity).Proto(3)};
}

struct PodSpec {
  std::string node_name;
  std::string scheduler_name;
  std::map<std::string, std::string> node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<PodResourceClaim> resource_claims;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::map<std::string, Quantity> overhead;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  // A pod with a deadline >= 0 is in quota scope Terminating.
  std::optional<int64_t> active_deadline_seconds;
  // Pod-level requests and limits (PodLevelResources): where set for a
  // resource (cpu, memory, hugepages-*), they replace the containers' sum.
  std::optional<ResourceRequirements> resources;
  UnknownFields unknown_fields;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};
constexpr auto FieldsOf(const PodSpec*) {
  using T = PodSpec;
  return std::tuple{
      Field("nodeName", &T::node_name).Proto(10),
      Field("schedulerName", &T::scheduler_name).Proto(19),
      Field("nodeSelector", &T::node_selector).Proto(7),
      Field("affinity", &T::affinity).Proto(18),
      Field("tolerations", &T::tolerations).Proto(22).ListAtomic(),
      Field("initContainers", &T::init_containers)
          .Proto(20)
          .ListMap("name")
          .PatchMerge(),
      Field("containers", &T::containers, kAlways)
          .Proto(2)
          .ListMap("name")
          .PatchMerge(),
      Field("resourceClaims", &T::resource_claims)
          .Proto(39)
          .ListMap("name")
          .PatchMerge(),
      Field("priority", &T::priority).Proto(25),
      Field("priorityClassName", &T::priority_class_name).Proto(24),
      Field("overhead", &T::overhead).Proto(32),
      Field("topologySpreadConstraints", &T::topology_spread_constraints)
          .Proto(33)
          .ListMap("topologyKey", "whenUnsatisfiable")
          .PatchMerge(),
      Field("activeDeadlineSeconds", &T::active_deadline_seconds).Proto(5),
      Field("resources", &T::resources).Proto(40)};
}
constexpr auto KeptFieldsOf(const PodSpec*) {
  using Items = std::vector<RawJson>;
  return std::tuple{
      Kept<std::vector<Container>>("ephemeralContainers")
          .ListMap("name")
          .PatchMerge(),
      Kept<Items>("volumes").ListMap("name").PatchMerge(),
      Kept<Items>("imagePullSecrets").ListMap("name").PatchMerge()};
}

struct PodCondition {
  std::string type;
  std::string status;
  std::optional<Time> last_probe_time;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
  friend bool operator==(const PodCondition&, const PodCondition&) = default;
};
constexpr auto FieldsOf(const PodCondition*) {
  using T = PodCondition;
  return std::tuple{
      Field("type", &T::type, kAlways).Proto(1),
      Field("status", &T::status, kAlways).Proto(2),
      Field("lastProbeTime", &T::last_probe_time).Proto(3, ProtoType::kTime),
      Field("lastTransitionTime", &T::last_transition_time)
          .Proto(4, ProtoType::kTime),
      Field("reason", &T::reason).Proto(5),
      Field("message", &T::message).Proto(6)};
}

struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
  friend bool operator==(const PodResourceClaimStatus&,
                         const PodResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const PodResourceClaimStatus*) {
  using T = PodResourceClaimStatus;
  return std::tuple{
      Field("name", &T::name, kAlways).Proto(1),
      Field("resourceClaimName", &T::resource_claim_name).Proto(2)};
}

// KEP-5517: node allocatable resources a claim brings to the pod.
struct NodeAllocatableMappedResources {
  std::string name;  // "cpu", "memory", ...
  std::optional<Quantity> quantity;
  friend bool operator==(const NodeAllocatableMappedResources&,
                         const NodeAllocatableMappedResources&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableMappedResources*) {
  using T = NodeAllocatableMappedResources;
  return std::tuple{Field("name", &T::name, kAlways).Proto(1),
                    Field("quantity", &T::quantity).Proto(2)};
}

struct NodeAllocatableOverheadResources {
  std::string name;
  std::optional<Quantity> per_pod;
  std::optional<Quantity> per_container;
  friend bool operator==(const NodeAllocatableOverheadResources&,
                         const NodeAllocatableOverheadResources&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableOverheadResources*) {
  using T = NodeAllocatableOverheadResources;
  return std::tuple{Field("name", &T::name, kAlways).Proto(1),
                    Field("perPod", &T::per_pod).Proto(2),
                    Field("perContainer", &T::per_container).Proto(3)};
}

struct NodeAllocatableResourceClaimStatus {
  std::string resource_claim_name;
  std::vector<std::string> containers;  // containers referencing the claim
  std::vector<NodeAllocatableMappedResources> mapping;
  std::vector<NodeAllocatableOverheadResources> overhead;
  friend bool operator==(const NodeAllocatableResourceClaimStatus&,
                         const NodeAllocatableResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableResourceClaimStatus*) {
  using T = NodeAllocatableResourceClaimStatus;
  return std::tuple{
      Field("resourceClaimName", &T::resource_claim_name, kAlways).Proto(1),
      Field("containers", &T::containers).Proto(2),
      Field("mapping", &T::mapping).Proto(4).ListMap("name").PatchMerge(),
      Field("overhead", &T::overhead).Proto(5).ListMap("name").PatchMerge()};
}

// The mapping of one container's DRA-backed extended resource to the request
// of the claim the scheduler generated for the pod (KEP-5004).
struct ContainerExtendedResourceRequest {
  std::string container_name;
  std::string resource_name;
  std::string request_name;
  friend bool operator==(const ContainerExtendedResourceRequest&,
                         const ContainerExtendedResourceRequest&) = default;
};
constexpr auto FieldsOf(const ContainerExtendedResourceRequest*) {
  using T = ContainerExtendedResourceRequest;
  return std::tuple{
      Field("containerName", &T::container_name, kAlways).Proto(1),
      Field("resourceName", &T::resource_name, kAlways).Proto(2),
      Field("requestName", &T::request_name, kAlways).Proto(3)};
}

// pod.status.extendedResourceClaimStatus: the claim the scheduler generated
// for the pod's DRA-backed extended resources, and which request serves which
// container's resource.
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  std::string resource_claim_name;
  friend bool operator==(const PodExtendedResourceClaimStatus&,
                         const PodExtendedResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const PodExtendedResourceClaimStatus*) {
  using T = PodExtendedResourceClaimStatus;
  return std::tuple{
      Field("requestMappings", &T::request_mappings, kAlways)
          .Proto(1)
          .ListAtomic(),
      Field("resourceClaimName", &T::resource_claim_name, kAlways).Proto(2)};
}

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  std::vector<NodeAllocatableResourceClaimStatus>
      node_allocatable_resource_claim_statuses;
  std::optional<PodExtendedResourceClaimStatus> extended_resource_claim_status;
  UnknownFields unknown_fields;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};
constexpr auto FieldsOf(const PodStatus*) {
  using T = PodStatus;
  return std::tuple{
      Field("phase", &T::phase).Proto(1),
      Field("conditions", &T::conditions).Proto(2).ListMap("type").PatchMerge(),
      Field("nominatedNodeName", &T::nominated_node_name).Proto(11),
      Field("resourceClaimStatuses", &T::resource_claim_statuses)
          .Proto(15)
          .ListMap("name")
          .PatchMerge(),
      Field("nodeAllocatableResourceClaimStatuses",
            &T::node_allocatable_resource_claim_statuses)
          .Proto(21)
          .ListMap("resourceClaimName")
          .PatchMerge(),
      Field("extendedResourceClaimStatus", &T::extended_resource_claim_status)
          .Proto(18)};
}

struct Pod {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  friend bool operator==(const Pod&, const Pod&) = default;
};
constexpr auto FieldsOf(const Pod*) {
  using T = Pod;
  return std::tuple{
      Field("apiVersion", &T::api_version), Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("spec", &T::spec).Proto(2), Field("status", &T::status).Proto(3)};
}

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
  friend bool operator==(const ObjectReference&,
                         const ObjectReference&) = default;
};
constexpr auto FieldsOf(const ObjectReference*) {
  using T = ObjectReference;
  return std::tuple{Field("kind", &T::kind).Proto(1),
                    Field("namespace", &T::namespace_).Proto(2),
                    Field("name", &T::name).Proto(3),
                    Field("uid", &T::uid).Proto(4),
                    Field("apiVersion", &T::api_version).Proto(5),
                    Field("resourceVersion", &T::resource_version).Proto(6),
                    Field("fieldPath", &T::field_path).Proto(7)};
}

struct EventSource {
  std::string component;
  std::string host;
  friend bool operator==(const EventSource&, const EventSource&) = default;
};
constexpr auto FieldsOf(const EventSource*) {
  return std::tuple{Field("component", &EventSource::component).Proto(1),
                    Field("host", &EventSource::host).Proto(2)};
}

// core/v1 Event.
struct Event {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;
  std::string message;
  EventSource source;
  std::optional<Time> first_timestamp;
  std::optional<Time> last_timestamp;
  int32_t count = 0;
  std::string type;
  std::optional<Time> event_time;
  std::string action;
  std::string reporting_component;
  std::string reporting_instance;
  UnknownFields unknown_fields;
  friend bool operator==(const Event&, const Event&) = default;
};
constexpr auto FieldsOf(const Event*) {
  using T = Event;
  return std::tuple{
      Field("apiVersion", &T::api_version),
      Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("involvedObject", &T::involved_object).Proto(2),
      Field("reason", &T::reason).Proto(3),
      Field("message", &T::message).Proto(4),
      Field("source", &T::source).Proto(5),
      Field("firstTimestamp", &T::first_timestamp).Proto(6, ProtoType::kTime),
      Field("lastTimestamp", &T::last_timestamp).Proto(7, ProtoType::kTime),
      Field("count", &T::count).Proto(8),
      Field("type", &T::type).Proto(9),
      Field("eventTime", &T::event_time).Proto(10, ProtoType::kMicroTime),
      Field("action", &T::action).Proto(12),
      Field("reportingComponent", &T::reporting_component).Proto(14),
      Field("reportingInstance", &T::reporting_instance).Proto(15)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_CORE_H_
