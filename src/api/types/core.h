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
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/node_selector.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api {

struct NamespaceSpec {
  std::vector<std::string> finalizers;
  friend bool operator==(const NamespaceSpec&, const NamespaceSpec&) = default;
};
constexpr auto FieldsOf(const NamespaceSpec*) {
  return std::tuple{Field("finalizers", &NamespaceSpec::finalizers)};
}

struct NamespaceStatus {
  std::string phase;
  UnknownFields unknown_fields;
  friend bool operator==(const NamespaceStatus&,
                         const NamespaceStatus&) = default;
};
constexpr auto FieldsOf(const NamespaceStatus*) {
  return std::tuple{Field("phase", &NamespaceStatus::phase)};
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
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec), Field("status", &T::status)};
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
  return std::tuple{Field("unschedulable", &T::unschedulable),
                    Field("taints", &T::taints),
                    Field("providerID", &T::provider_id)};
}

struct NodeStatus {
  std::map<std::string, Quantity> capacity;
  std::map<std::string, Quantity> allocatable;
  UnknownFields unknown_fields;
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};
constexpr auto FieldsOf(const NodeStatus*) {
  using T = NodeStatus;
  return std::tuple{Field("capacity", &T::capacity),
                    Field("allocatable", &T::allocatable)};
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
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec), Field("status", &T::status)};
}

// core/v1 ResourceClaim reference inside a container (`resources.claims[]`).
struct ContainerResourceClaim {
  std::string name;
  std::string request;
  friend bool operator==(const ContainerResourceClaim&,
                         const ContainerResourceClaim&) = default;
};
constexpr auto FieldsOf(const ContainerResourceClaim*) {
  return std::tuple{Field("name", &ContainerResourceClaim::name, kAlways),
                    Field("request", &ContainerResourceClaim::request)};
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
  return std::tuple{Field("limits", &T::limits),
                    Field("requests", &T::requests),
                    Field("claims", &T::claims)};
}

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  UnknownFields unknown_fields;
  friend bool operator==(const Container&, const Container&) = default;
};
constexpr auto FieldsOf(const Container*) {
  using T = Container;
  return std::tuple{Field("name", &T::name, kAlways), Field("image", &T::image),
                    Field("resources", &T::resources)};
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
      Field("name", &T::name, kAlways),
      Field("resourceClaimName", &T::resource_claim_name),
      Field("resourceClaimTemplateName", &T::resource_claim_template_name)};
}

struct NodeAffinity {
  std::optional<NodeSelector>
      required_during_scheduling_ignored_during_execution;
  std::vector<RawJson> preferred_during_scheduling_ignored_during_execution;
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};
constexpr auto FieldsOf(const NodeAffinity*) {
  using T = NodeAffinity;
  return std::tuple{
      Field("requiredDuringSchedulingIgnoredDuringExecution",
            &T::required_during_scheduling_ignored_during_execution),
      Field("preferredDuringSchedulingIgnoredDuringExecution",
            &T::preferred_during_scheduling_ignored_during_execution)};
}

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  UnknownFields unknown_fields;  // podAffinity, podAntiAffinity
  friend bool operator==(const Affinity&, const Affinity&) = default;
};
constexpr auto FieldsOf(const Affinity*) {
  return std::tuple{Field("nodeAffinity", &Affinity::node_affinity)};
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
  UnknownFields unknown_fields;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};
constexpr auto FieldsOf(const PodSpec*) {
  using T = PodSpec;
  return std::tuple{Field("nodeName", &T::node_name),
                    Field("schedulerName", &T::scheduler_name),
                    Field("nodeSelector", &T::node_selector),
                    Field("affinity", &T::affinity),
                    Field("tolerations", &T::tolerations),
                    Field("initContainers", &T::init_containers),
                    Field("containers", &T::containers, kAlways),
                    Field("resourceClaims", &T::resource_claims)};
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
  return std::tuple{Field("type", &T::type, kAlways),
                    Field("status", &T::status, kAlways),
                    Field("lastProbeTime", &T::last_probe_time),
                    Field("lastTransitionTime", &T::last_transition_time),
                    Field("reason", &T::reason),
                    Field("message", &T::message)};
}

struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
  friend bool operator==(const PodResourceClaimStatus&,
                         const PodResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const PodResourceClaimStatus*) {
  using T = PodResourceClaimStatus;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("resourceClaimName", &T::resource_claim_name)};
}

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  UnknownFields unknown_fields;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};
constexpr auto FieldsOf(const PodStatus*) {
  using T = PodStatus;
  return std::tuple{
      Field("phase", &T::phase), Field("conditions", &T::conditions),
      Field("nominatedNodeName", &T::nominated_node_name),
      Field("resourceClaimStatuses", &T::resource_claim_statuses)};
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
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec), Field("status", &T::status)};
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
  return std::tuple{Field("kind", &T::kind),
                    Field("namespace", &T::namespace_),
                    Field("name", &T::name),
                    Field("uid", &T::uid),
                    Field("apiVersion", &T::api_version),
                    Field("resourceVersion", &T::resource_version),
                    Field("fieldPath", &T::field_path)};
}

struct EventSource {
  std::string component;
  std::string host;
  friend bool operator==(const EventSource&, const EventSource&) = default;
};
constexpr auto FieldsOf(const EventSource*) {
  return std::tuple{Field("component", &EventSource::component),
                    Field("host", &EventSource::host)};
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
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata),
                    Field("involvedObject", &T::involved_object),
                    Field("reason", &T::reason),
                    Field("message", &T::message),
                    Field("source", &T::source),
                    Field("firstTimestamp", &T::first_timestamp),
                    Field("lastTimestamp", &T::last_timestamp),
                    Field("count", &T::count),
                    Field("type", &T::type),
                    Field("eventTime", &T::event_time),
                    Field("action", &T::action),
                    Field("reportingComponent", &T::reporting_component),
                    Field("reportingInstance", &T::reporting_instance)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_CORE_H_
