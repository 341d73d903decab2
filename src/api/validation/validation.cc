// Validate(Object) and the core/v1 validators (Namespace, Node, Pod, Event).
//
// The core rules are a modest, faithful subset of upstream
// pkg/apis/core/validation: object metadata plus the fields dralloc reads
// (pod claims, containers' claim references, node selection, tolerations,
// node taints).
#include "api/validation/validation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "api/defaults.h"
#include "api/v1alpha2/validation.h"
#include "api/validation/names.h"

namespace dralloc::api {
namespace {

int64_t Size(size_t n) { return static_cast<int64_t>(n); }

void ValidateOptionalTime(const std::optional<Time>& time,
                          const FieldPath& path, ErrorList& errors) {
  if (time.has_value()) ValidateTime(*time, path, errors);
}

// --- Node ---

void ValidateNodeTaints(const std::vector<Taint>& taints, const FieldPath& path,
                        ErrorList& errors) {
  std::set<std::pair<std::string_view, std::string_view>>
      seen;  // (effect, key)
  for (size_t i = 0; i < taints.size(); ++i) {
    const Taint& taint = taints[i];
    FieldPath item = path.Index(Size(i));
    ValidateQualifiedName(taint.key, item.Child("key"), errors);
    std::vector<std::string> value_errors = LabelValueErrors(taint.value);
    if (!value_errors.empty()) {
      errors.push_back(
          InvalidString(item.Child("value"), taint.value,
                        fmt::format("{}", fmt::join(value_errors, ";"))));
    }
    FieldPath effect_path = item.Child("effect");
    if (taint.effect.empty()) {
      errors.push_back(Required(effect_path));
    } else if (taint.effect != "NoSchedule" &&
               taint.effect != "PreferNoSchedule" &&
               taint.effect != "NoExecute") {
      errors.push_back(
          NotSupported(effect_path, taint.effect,
                       {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
    ValidateOptionalTime(taint.time_added, item.Child("timeAdded"), errors);
    if (!seen.emplace(taint.effect, taint.key).second) {
      FieldError duplicate =
          Duplicate(item, QuoteValue(taint.key + ":" + taint.effect));
      duplicate.detail = "taints must be unique by key and effect pair";
      errors.push_back(std::move(duplicate));
    }
  }
}

void ValidateResourceList(const std::map<std::string, Quantity>& resources,
                          const FieldPath& path, ErrorList& errors) {
  for (const auto& [name, quantity] : resources) {
    if (quantity.Sign() < 0) {
      // Upstream builds these paths with Child(name), not Key(name).
      errors.push_back(Invalid(path.Child(name),
                               QuoteValue(quantity.ToString()),
                               "must be greater than or equal to 0"));
    }
  }
}

// --- Pod ---

void ValidateContainerClaims(const std::vector<ContainerResourceClaim>& claims,
                             const std::set<std::string>& pod_claim_names,
                             const FieldPath& path, ErrorList& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < claims.size(); ++i) {
    const ContainerResourceClaim& claim = claims[i];
    FieldPath item = path.Index(Size(i));
    std::string key = claim.name;
    if (!claim.request.empty()) {
      ValidateDns1123Label(claim.request, item.Child("request"), errors);
      key += "/" + claim.request;
    }
    if (claim.name.empty()) {
      errors.push_back(Required(item));
      continue;
    }
    // A claim referenced as a whole covers all of its requests.
    if (seen.contains(key) || seen.contains(claim.name)) {
      errors.push_back(Duplicate(item, QuoteValue(key)));
    } else {
      seen.insert(key);
    }
    if (!pod_claim_names.contains(claim.name)) {
      std::string detail =
          "must be one of the names in pod.spec.resourceClaims";
      if (pod_claim_names.empty()) {
        detail += " which is empty";
      } else {
        detail += fmt::format(": {}", fmt::join(pod_claim_names, ", "));
      }
      errors.push_back(FieldError{FieldErrorType::kNotFound, item.ToString(),
                                  QuoteValue(claim.name), detail});
    }
  }
}

// Checks containers; `names` holds the container names already taken.
void ValidateContainers(const std::vector<Container>& containers,
                        const std::set<std::string>& pod_claim_names,
                        std::set<std::string>& names, const FieldPath& path,
                        ErrorList& errors) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const Container& container = containers[i];
    FieldPath item = path.Index(Size(i));
    FieldPath name_path = item.Child("name");
    if (container.name.empty()) {
      errors.push_back(Required(name_path));
    } else {
      ValidateDns1123Label(container.name, name_path, errors);
    }
    if (!names.insert(container.name).second) {
      errors.push_back(Duplicate(name_path, QuoteValue(container.name)));
    }
    if (container.image.empty())
      errors.push_back(Required(item.Child("image")));
    FieldPath resources_path = item.Child("resources");
    ValidateContainerClaims(container.resources.claims, pod_claim_names,
                            resources_path.Child("claims"), errors);
  }
}

void ValidatePodResourceClaims(const Pod& pod, const FieldPath& path,
                               ErrorList& errors) {
  std::set<std::string_view> names;
  const auto& claims = pod.spec.resource_claims;
  for (size_t i = 0; i < claims.size(); ++i) {
    const PodResourceClaim& claim = claims[i];
    FieldPath item = path.Index(Size(i));
    FieldPath name_path = item.Child("name");
    if (claim.name.empty()) {
      errors.push_back(Required(name_path));
    } else if (names.contains(claim.name)) {
      errors.push_back(Duplicate(name_path, QuoteValue(claim.name)));
    } else {
      std::vector<std::string> name_errors = Dns1123LabelErrors(claim.name);
      for (const std::string& msg : name_errors) {
        errors.push_back(InvalidString(name_path, claim.name, msg));
      }
      if (name_errors.empty() &&
          claim.resource_claim_template_name.has_value() &&
          !pod.metadata.name.empty()) {
        // The claim generated from a template is named <pod>-<claim>.
        std::string claim_name = pod.metadata.name + "-" + claim.name;
        for (const std::string& msg : Dns1123SubdomainErrors(claim_name)) {
          errors.push_back(InvalidString(name_path, claim_name,
                                         "final ResourceClaim name: " + msg));
        }
      }
      names.insert(claim.name);
    }
    const auto& claim_name = claim.resource_claim_name;
    const auto& template_name = claim.resource_claim_template_name;
    if (!claim_name.has_value() && !template_name.has_value()) {
      errors.push_back(
          InvalidString(item, "",
                        "must specify one of: `resourceClaimName`, "
                        "`resourceClaimTemplateName`"));
    } else if (claim_name.has_value() && template_name.has_value()) {
      errors.push_back(
          InvalidString(item, "",
                        "at most one of `resourceClaimName` or "
                        "`resourceClaimTemplateName` may be specified"));
    } else if (claim_name.has_value()) {
      ValidateDns1123Subdomain(*claim_name, item.Child("resourceClaimName"),
                               errors);
    } else {
      ValidateDns1123Subdomain(*template_name,
                               item.Child("resourceClaimTemplateName"), errors);
    }
  }
}

// pod.status.extendedResourceClaimStatus (KEP-5004): the generated claim's
// name and one mapping per (container, extended resource), each naming a
// container of the pod and a DNS-label request.
void ValidateExtendedResourceClaimStatus(
    const PodExtendedResourceClaimStatus& status, const PodSpec& spec,
    const FieldPath& path, ErrorList& errors) {
  std::set<std::string_view> containers;
  for (const Container& c : spec.init_containers) containers.insert(c.name);
  for (const Container& c : spec.containers) containers.insert(c.name);
  FieldPath mappings_path = path.Child("requestMappings");
  if (status.request_mappings.empty()) {
    errors.push_back(Required(mappings_path));
  }
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (size_t i = 0; i < status.request_mappings.size(); ++i) {
    const ContainerExtendedResourceRequest& mapping =
        status.request_mappings[i];
    FieldPath item = mappings_path.Index(Size(i));
    FieldPath container_path = item.Child("containerName");
    if (mapping.container_name.empty()) {
      errors.push_back(Required(container_path));
    } else if (!containers.contains(mapping.container_name)) {
      errors.push_back(InvalidString(container_path, mapping.container_name,
                                     "must match the name of a container in "
                                     "the pod"));
    }
    FieldPath resource_path = item.Child("resourceName");
    if (mapping.resource_name.empty()) {
      errors.push_back(Required(resource_path));
    } else {
      ValidateQualifiedName(mapping.resource_name, resource_path, errors);
    }
    FieldPath request_path = item.Child("requestName");
    if (mapping.request_name.empty()) {
      errors.push_back(Required(request_path));
    } else {
      ValidateDns1123Label(mapping.request_name, request_path, errors);
    }
    if (!seen.emplace(mapping.container_name, mapping.resource_name).second) {
      errors.push_back(Duplicate(item, QuoteValue(mapping.container_name + "/" +
                                                  mapping.resource_name)));
    }
  }
  FieldPath claim_path = path.Child("resourceClaimName");
  if (status.resource_claim_name.empty()) {
    errors.push_back(Required(claim_path));
  } else {
    ValidateDns1123Subdomain(status.resource_claim_name, claim_path, errors);
  }
}

// --- Event ---

constexpr size_t kEventReportingInstanceMaxLength = 128;
constexpr size_t kEventActionMaxLength = 128;
constexpr size_t kEventReasonMaxLength = 128;
constexpr size_t kEventNoteMaxLength = 1024;

void CheckEventLength(const std::string& value, size_t max_length,
                      const FieldPath& path, ErrorList& errors) {
  if (value.size() > max_length) {
    errors.push_back(InvalidString(
        path, "", fmt::format("can have at most {} characters", max_length)));
  }
}

}  // namespace

ErrorList ValidateNamespace(const Namespace& ns) {
  ErrorList errors;
  ValidateObjectMeta(ns.metadata, /*namespaced=*/false, NameRule::kDns1123Label,
                     FieldPath("metadata"), errors);
  FieldPath spec_path("spec");
  FieldPath finalizers_path = spec_path.Child("finalizers");
  for (const std::string& finalizer : ns.spec.finalizers) {
    ValidateQualifiedName(finalizer, finalizers_path, errors);
    if (finalizer.find('/') == std::string::npos && finalizer != "kubernetes") {
      errors.push_back(InvalidString(
          finalizers_path, finalizer,
          "name is neither a standard finalizer name nor is it fully "
          "qualified"));
    }
  }
  return errors;
}

ErrorList ValidateNode(const Node& node) {
  ErrorList errors = ObjectMetaErrors(node.metadata, /*namespaced=*/false);
  FieldPath spec_path("spec");
  ValidateNodeTaints(node.spec.taints, spec_path.Child("taints"), errors);
  FieldPath status_path("status");
  ValidateResourceList(node.status.capacity, status_path.Child("capacity"),
                       errors);
  ValidateResourceList(node.status.allocatable,
                       status_path.Child("allocatable"), errors);
  return errors;
}

ErrorList ValidatePod(const Pod& pod) {
  ErrorList errors = ObjectMetaErrors(pod.metadata, /*namespaced=*/true);
  const PodSpec& spec = pod.spec;
  FieldPath path("spec");

  ValidatePodResourceClaims(pod, path.Child("resourceClaims"), errors);
  std::set<std::string> pod_claim_names;
  for (const PodResourceClaim& claim : spec.resource_claims) {
    if (!claim.name.empty()) pod_claim_names.insert(claim.name);
  }

  FieldPath containers_path = path.Child("containers");
  std::set<std::string> names;
  if (spec.containers.empty()) {
    errors.push_back(Required(containers_path));
  } else {
    ValidateContainers(spec.containers, pod_claim_names, names, containers_path,
                       errors);
  }
  // Init container names must also differ from the regular ones.
  ValidateContainers(spec.init_containers, pod_claim_names, names,
                     path.Child("initContainers"), errors);

  if (!spec.node_name.empty()) {
    ValidateDns1123Subdomain(spec.node_name, path.Child("nodeName"), errors);
  }
  if (!spec.scheduler_name.empty()) {
    ValidateDns1123Subdomain(spec.scheduler_name, path.Child("schedulerName"),
                             errors);
  }
  ValidateLabels(spec.node_selector, path.Child("nodeSelector"), errors);
  if (spec.affinity.has_value() && spec.affinity->node_affinity.has_value()) {
    const auto& required =
        spec.affinity->node_affinity
            ->required_during_scheduling_ignored_during_execution;
    if (required.has_value()) {
      FieldPath affinity_path = path.Child("affinity");
      FieldPath node_affinity_path = affinity_path.Child("nodeAffinity");
      ValidateNodeSelector(
          *required,
          node_affinity_path.Child(
              "requiredDuringSchedulingIgnoredDuringExecution"),
          errors);
    }
  }
  FieldPath tolerations_path = path.Child("tolerations");
  for (size_t i = 0; i < spec.tolerations.size(); ++i) {
    ValidateToleration(spec.tolerations[i], tolerations_path.Index(Size(i)),
                       errors);
  }
  if (pod.status.extended_resource_claim_status.has_value()) {
    FieldPath status_path("status");
    ValidateExtendedResourceClaimStatus(
        *pod.status.extended_resource_claim_status, spec,
        status_path.Child("extendedResourceClaimStatus"), errors);
  }
  return errors;
}

ErrorList ValidateEvent(const Event& event) {
  ErrorList errors = ObjectMetaErrors(event.metadata, /*namespaced=*/true);
  FieldPath involved_path("involvedObject");
  FieldPath involved_namespace_path = involved_path.Child("namespace");
  const std::string& ns = event.metadata.namespace_;
  const std::string& involved_ns = event.involved_object.namespace_;
  const bool new_style =
      event.event_time.has_value() && !event.event_time->empty();
  if (!new_style) {
    // Legacy events: the namespaces must agree ("default" for cluster-scoped
    // objects, for compatibility with old clients).
    const bool ok = involved_ns.empty() ? (ns.empty() || ns == "default")
                                        : ns == involved_ns;
    if (!ok) {
      errors.push_back(InvalidString(involved_namespace_path, involved_ns,
                                     "does not match event.namespace"));
    }
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errors.push_back(InvalidString(involved_namespace_path, involved_ns,
                                     "does not match event.namespace"));
    }
    FieldPath component_path("reportingComponent");
    if (event.reporting_component.empty())
      errors.push_back(Required(component_path));
    ValidateQualifiedName(event.reporting_component, component_path, errors);
    FieldPath instance_path("reportingInstance");
    if (event.reporting_instance.empty())
      errors.push_back(Required(instance_path));
    CheckEventLength(event.reporting_instance, kEventReportingInstanceMaxLength,
                     instance_path, errors);
    FieldPath action_path("action");
    if (event.action.empty()) errors.push_back(Required(action_path));
    CheckEventLength(event.action, kEventActionMaxLength, action_path, errors);
    FieldPath reason_path("reason");
    if (event.reason.empty()) errors.push_back(Required(reason_path));
    CheckEventLength(event.reason, kEventReasonMaxLength, reason_path, errors);
    CheckEventLength(event.message, kEventNoteMaxLength, FieldPath("message"),
                     errors);
  }
  ValidateOptionalTime(event.first_timestamp, FieldPath("firstTimestamp"),
                       errors);
  ValidateOptionalTime(event.last_timestamp, FieldPath("lastTimestamp"),
                       errors);
  ValidateOptionalTime(event.event_time, FieldPath("eventTime"), errors);
  return errors;
}

ErrorList Validate(const Object& object) {
  return std::visit(
      [](const auto& o) -> ErrorList {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, DeviceClass>) {
          return ValidateDeviceClass(o);
        } else if constexpr (std::is_same_v<T, ResourceSlice>) {
          return ValidateResourceSlice(o);
        } else if constexpr (std::is_same_v<T, ResourceClaim>) {
          return ValidateResourceClaim(o);
        } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
          return ValidateResourceClaimTemplate(o);
        } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
          return ValidateDeviceTaintRule(o);
        } else if constexpr (std::is_same_v<T, ResourceSlicePatch>) {
          return ValidateResourceSlicePatch(o);
        } else if constexpr (std::is_same_v<T, Namespace>) {
          return ValidateNamespace(o);
        } else if constexpr (std::is_same_v<T, Node>) {
          return ValidateNode(o);
        } else if constexpr (std::is_same_v<T, Pod>) {
          return ValidatePod(o);
        } else if constexpr (std::is_same_v<T, Event>) {
          return ValidateEvent(o);
        } else if constexpr (std::is_same_v<T, Lease>) {
          return ValidateLease(o);
        } else if constexpr (std::is_same_v<T, ResourceQuota>) {
          return ValidateResourceQuota(o);
        } else if constexpr (std::is_same_v<T, ClusterRole>) {
          return ValidateClusterRole(o);
        } else if constexpr (std::is_same_v<T, Role>) {
          return ValidateRole(o);
        } else if constexpr (std::is_same_v<T, ClusterRoleBinding>) {
          return ValidateClusterRoleBinding(o);
        } else if constexpr (std::is_same_v<T, RoleBinding>) {
          return ValidateRoleBinding(o);
        } else if constexpr (std::is_same_v<T, ServiceAccount>) {
          return ValidateServiceAccount(o);
        } else if constexpr (std::is_same_v<T, Secret>) {
          return ValidateSecret(o);
        } else if constexpr (std::is_same_v<T, ConfigMap>) {
          return ValidateConfigMap(o);
        } else if constexpr (std::is_same_v<T, v1alpha2::ResourceClass>) {
          return v1alpha2::ValidateResourceClass(o);
        } else if constexpr (std::is_same_v<T, v1alpha2::ResourceClaim>) {
          return v1alpha2::ValidateResourceClaim(o);
        } else if constexpr (std::is_same_v<T,
                                            v1alpha2::ResourceClaimTemplate>) {
          return v1alpha2::ValidateResourceClaimTemplate(o);
        } else if constexpr (std::is_same_v<T,
                                            v1alpha2::PodSchedulingContext>) {
          return v1alpha2::ValidatePodSchedulingContext(o);
        } else if constexpr (std::is_same_v<T, v1alpha2::ResourceSlice>) {
          return v1alpha2::ValidateResourceSlice(o);
        } else if constexpr (std::is_same_v<
                                 T, v1alpha2::ResourceClaimParameters>) {
          return v1alpha2::ValidateResourceClaimParameters(o);
        } else if constexpr (std::is_same_v<
                                 T, v1alpha2::ResourceClassParameters>) {
          return v1alpha2::ValidateResourceClassParameters(o);
        } else {
          static_assert(std::is_same_v<T, ResourcePoolStatusRequest>,
                        "unhandled object kind");
          return ValidateResourcePoolStatusRequest(o);
        }
      },
      object);
}

ErrorList ValidateDefaulted(const Object& object) {
  Object defaulted = object;
  ApplyDefaults(defaulted);
  return Validate(defaulted);
}

}  // namespace dralloc::api
