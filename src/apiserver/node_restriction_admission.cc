#include "apiserver/node_restriction_admission.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <simdjson.h>

#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <variant>

#include "api/object.h"
#include "api/resource_registry.h"
#include "common/text_escape.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";
constexpr std::string_view kNodeRestrictionLabelDomain =
    "node-restriction.kubernetes.io";

// Labels a kubelet may set on its own Node (upstream's kubeletapis
// KubeletLabels), and the label namespaces it may use (with sub-domains).
constexpr std::array<std::string_view, 11> kKubeletLabels = {
    "kubernetes.io/hostname",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type"};
constexpr std::array<std::string_view, 2> kKubeletLabelDomains = {
    "kubelet.kubernetes.io", "node.kubernetes.io"};

std::string_view OperationName(AdmissionOperation operation) {
  switch (operation) {
    case AdmissionOperation::kCreate:
      return "CREATE";
    case AdmissionOperation::kUpdate:
      return "UPDATE";
    case AdmissionOperation::kDelete:
      return "DELETE";
  }
  return "";
}

// upstream's admission.NewForbidden: the request's name, else the object's,
// else "Unknown".
ApiError Forbid(const AdmissionRequest& request, std::string_view reason) {
  std::string name = request.scope.name;
  if (name.empty() && request.object != nullptr) {
    name = api::MetaOf(*request.object).name;
  }
  if (name.empty()) name = "Unknown";
  const api::ResourceInfo& info = *request.scope.info;
  Json details = {{"name", name}, {"group", info.group}, {"kind", info.plural}};
  return {403, "Forbidden",
          fmt::format("{} {} is forbidden: {}", info.QualifiedResource(),
                      GoQuote(name), reason),
          std::move(details)};
}

std::string_view LabelDomain(std::string_view key) {
  const size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view()
                                         : key.substr(0, slash);
}

bool InDomain(std::string_view domain, std::string_view parent) {
  if (domain == parent) return true;
  return domain.size() > parent.size() && domain.ends_with(parent) &&
         domain[domain.size() - parent.size() - 1] == '.';
}

bool IsKubeletLabel(std::string_view key) {
  for (std::string_view label : kKubeletLabels) {
    if (key == label) return true;
  }
  for (std::string_view domain : kKubeletLabelDomains) {
    if (InDomain(LabelDomain(key), domain)) return true;
  }
  return false;
}

bool IsForbiddenLabel(std::string_view key) {
  const std::string_view domain = LabelDomain(key);
  if (InDomain(domain, kNodeRestrictionLabelDomain)) return true;
  const bool kubernetes_label =
      InDomain(domain, "kubernetes.io") || InDomain(domain, "k8s.io");
  return kubernetes_label && !IsKubeletLabel(key);
}

// The forbidden keys among those whose values differ between `a` and `b`,
// sorted and joined with ", "; "" when there are none.
std::string ForbiddenLabelChanges(const api::StringMap& a,
                                  const api::StringMap& b) {
  std::set<std::string> forbidden;
  const auto collect = [&](const api::StringMap& from,
                           const api::StringMap& other) {
    for (const auto& [key, value] : from) {
      auto it = other.find(key);
      if ((it == other.end() || it->second != value) && IsForbiddenLabel(key)) {
        forbidden.insert(key);
      }
    }
  };
  collect(a, b);
  collect(b, a);
  return fmt::format("{}", fmt::join(forbidden, ", "));
}

// The value of the pod.spec field `name` kept as unknown JSON, or null.
nlohmann::json UnknownSpecField(const api::Pod& pod, std::string_view name) {
  for (const auto& [field, raw] : pod.spec.unknown_fields) {
    if (field == name) {
      return nlohmann::json::parse(raw.json, nullptr,
                                   /*allow_exceptions=*/false);
    }
  }
  return nullptr;
}

// What a mirror pod may not reference, in upstream's order of checks;
// "" when it references none of them.
std::string ForbiddenReference(const api::Pod& pod, std::string_view node) {
  const nlohmann::json account = UnknownSpecField(pod, "serviceAccountName");
  if (account.is_string() && !account.get<std::string>().empty()) {
    return fmt::format(
        "node {} can not create pods that reference a service "
        "account",
        GoQuote(node));
  }
  const nlohmann::json pull_secrets = UnknownSpecField(pod, "imagePullSecrets");
  nlohmann::json volumes = UnknownSpecField(pod, "volumes");
  if (!volumes.is_array()) volumes = nlohmann::json::array();
  const auto any_volume = [&](std::string_view source) {
    for (const nlohmann::json& volume : volumes) {
      if (volume.is_object() && volume.contains(source)) return true;
    }
    return false;
  };
  const bool has_secrets = (pull_secrets.is_array() && !pull_secrets.empty()) ||
                           any_volume("secret");
  const std::pair<bool, std::string_view> references[] = {
      {has_secrets, "secrets"},
      {any_volume("configMap"), "configmaps"},
      {any_volume("persistentVolumeClaim"), "persistentvolumeclaims"}};
  for (const auto& [referenced, what] : references) {
    if (referenced) {
      return fmt::format("node {} can not create pods that reference {}",
                         GoQuote(node), what);
    }
  }
  return {};
}

bool ResourceClaimStatusesEqual(const api::Pod& a, const api::Pod& b) {
  return a.status.resource_claim_statuses == b.status.resource_claim_statuses;
}

template <typename T>
const T* As(const api::Object* object) {
  return object == nullptr ? nullptr : std::get_if<T>(object);
}

}  // namespace

std::optional<ApiError> NodeRestrictionAdmission::Admit(
    const AdmissionRequest& request) {
  if (request.user == nullptr || request.scope.info == nullptr) {
    return std::nullopt;
  }
  const auth::UserInfo& user = *request.user;
  if (!user.name.starts_with(auth::kNodeUserPrefix) ||
      !user.InGroup(auth::kNodesGroup)) {
    return std::nullopt;
  }
  const std::string_view node = auth::NodeNameOf(user);
  if (node.empty()) {
    return Forbid(request,
                  "could not determine node from user " + GoQuote(user.name));
  }
  const api::ResourceInfo& info = *request.scope.info;
  if (info.group.empty() && info.plural == "pods") {
    return AdmitPod(node, request);
  }
  if (info.group.empty() && info.plural == "nodes") {
    return AdmitNode(node, request);
  }
  if (info.group == "resource.k8s.io" && info.plural == "resourceslices") {
    return AdmitResourceSlice(node, request);
  }
  if (info.group == "coordination.k8s.io" && info.plural == "leases") {
    return AdmitLease(node, request);
  }
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitPod(
    std::string_view node, const AdmissionRequest& request) {
  const std::string& subresource = request.scope.subresource;
  if (subresource == "status") return AdmitPodStatus(node, request);
  if (!subresource.empty()) {
    return Forbid(request,
                  fmt::format("unexpected pod subresource {}, only 'status' "
                              "and 'eviction' are allowed",
                              GoQuote(subresource)));
  }
  switch (request.operation) {
    case AdmissionOperation::kCreate:
      return AdmitPodCreate(node, request);
    case AdmissionOperation::kDelete: {
      const auto* existing = As<api::Pod>(request.old_object);
      if (existing == nullptr || existing->spec.node_name != node) {
        return Forbid(request, fmt::format("node {} can only delete pods with "
                                           "spec.nodeName set to itself",
                                           GoQuote(node)));
      }
      return std::nullopt;
    }
    case AdmissionOperation::kUpdate:
      break;
  }
  return Forbid(request, fmt::format("unexpected operation {}, node {} can "
                                     "only create and delete mirror pods",
                                     GoQuote(OperationName(request.operation)),
                                     GoQuote(node)));
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitPodCreate(
    std::string_view node, const AdmissionRequest& request) {
  const auto* pod = As<api::Pod>(request.object);
  if (pod == nullptr) return Forbid(request, "unexpected type");
  if (!pod->metadata.annotations.contains(std::string(kMirrorPodAnnotation))) {
    return Forbid(request,
                  fmt::format("pod does not have {} annotation, node "
                              "{} can only create mirror pods",
                              GoQuote(kMirrorPodAnnotation), GoQuote(node)));
  }
  if (pod->spec.node_name != node) {
    return Forbid(request, fmt::format("node {} can only create pods with "
                                       "spec.nodeName set to itself",
                                       GoQuote(node)));
  }
  if (auto refused = AdmitMirrorPodOwner(node, request)) return refused;
  const std::string reference = ForbiddenReference(*pod, node);
  if (!reference.empty()) return Forbid(request, reference);
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitMirrorPodOwner(
    std::string_view node, const AdmissionRequest& request) {
  const auto& owners = As<api::Pod>(request.object)->metadata.owner_references;
  const std::string quoted = GoQuote(node);
  if (owners.size() > 1) {
    return Forbid(request, fmt::format("node {} can only create pods with a "
                                       "single owner reference set to itself",
                                       quoted));
  }
  const std::string not_owned = fmt::format(
      "node {} can only create pods with an owner reference set to itself",
      quoted);
  if (owners.empty()) return Forbid(request, not_owned);
  const api::OwnerReference& owner = owners.front();
  if (owner.api_version != "v1" || owner.kind != "Node" || owner.name != node) {
    return Forbid(request, not_owned);
  }
  if (!owner.controller.value_or(false)) {
    return Forbid(request,
                  fmt::format("node {} can only create pods with a controller "
                              "owner reference set to itself",
                              quoted));
  }
  if (owner.block_owner_deletion.value_or(false)) {
    return Forbid(request, fmt::format("node {} must not set "
                                       "blockOwnerDeletion on an owner "
                                       "reference",
                                       quoted));
  }
  const std::string uid = StoredNodeUid(node);
  if (uid.empty()) {
    return NotFound(*api::FindResourceByKind("Node"), node);
  }
  if (owner.uid != uid) {
    return Forbid(request,
                  fmt::format("node {} UID mismatch: expected {} got {}", node,
                              owner.uid, uid));
  }
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitPodStatus(
    std::string_view node, const AdmissionRequest& request) {
  if (request.operation != AdmissionOperation::kUpdate) {
    return Forbid(request,
                  fmt::format("unexpected operation {}",
                              GoQuote(OperationName(request.operation))));
  }
  const auto* old_pod = As<api::Pod>(request.old_object);
  const auto* new_pod = As<api::Pod>(request.object);
  if (old_pod == nullptr || new_pod == nullptr) {
    return Forbid(request, "unexpected type");
  }
  if (old_pod->spec.node_name != node) {
    return Forbid(request, fmt::format("node {} can only update pod status "
                                       "for pods with spec.nodeName set to "
                                       "itself",
                                       GoQuote(node)));
  }
  if (old_pod->metadata.labels != new_pod->metadata.labels) {
    return Forbid(request,
                  fmt::format("node {} cannot update labels through pod status",
                              GoQuote(node)));
  }
  if (!ResourceClaimStatusesEqual(*old_pod, *new_pod)) {
    // "statues": upstream's wording.
    return Forbid(request,
                  fmt::format("node {} cannot update resource claim statues",
                              GoQuote(node)));
  }
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitNode(
    std::string_view node, const AdmissionRequest& request) {
  std::string requested = request.scope.name;
  if (requested.empty() && request.object != nullptr) {
    requested = api::MetaOf(*request.object).name;
  }
  if (requested != node) {
    return Forbid(request,
                  fmt::format("node {} is not allowed to modify node {}",
                              GoQuote(node), GoQuote(requested)));
  }
  const auto* updated = As<api::Node>(request.object);
  if (request.operation == AdmissionOperation::kCreate && updated != nullptr) {
    const std::string labels =
        ForbiddenLabelChanges(updated->metadata.labels, {});
    if (!labels.empty()) {
      return Forbid(request, fmt::format("node {} is not allowed to set the "
                                         "following labels: {}",
                                         GoQuote(node), labels));
    }
  }
  const auto* old_node = As<api::Node>(request.old_object);
  if (request.operation == AdmissionOperation::kUpdate && updated != nullptr &&
      old_node != nullptr) {
    if (updated->spec.taints != old_node->spec.taints) {
      return Forbid(request, fmt::format("node {} is not allowed to modify "
                                         "taints",
                                         GoQuote(node)));
    }
    const std::string labels = ForbiddenLabelChanges(updated->metadata.labels,
                                                     old_node->metadata.labels);
    if (!labels.empty()) {
      return Forbid(request,
                    fmt::format("is not allowed to modify labels: {}", labels));
    }
  }
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitResourceSlice(
    std::string_view node, const AdmissionRequest& request) {
  const auto node_of = [](const api::Object* object) -> std::string_view {
    if (const auto* classic = As<api::v1alpha2::ResourceSlice>(object)) {
      return classic->node_name;
    }
    const auto* slice = As<api::ResourceSlice>(object);
    if (slice == nullptr || !slice->spec.node_name) return {};
    return *slice->spec.node_name;
  };
  const auto refuse = [&](std::string_view verb) {
    return Forbid(request, fmt::format("can only {} ResourceSlice with the "
                                       "same NodeName as the requesting node",
                                       verb));
  };
  switch (request.operation) {
    case AdmissionOperation::kCreate:
      if (node_of(request.object) != node) return refuse("create");
      break;
    case AdmissionOperation::kUpdate:
      if (node_of(request.old_object) != node ||
          node_of(request.object) != node) {
        return refuse("update");
      }
      break;
    case AdmissionOperation::kDelete:
      if (node_of(request.old_object) != node) return refuse("delete");
      break;
  }
  return std::nullopt;
}

NodeRestrictionAdmission::Refusal NodeRestrictionAdmission::AdmitLease(
    std::string_view node, const AdmissionRequest& request) {
  if (request.scope.namespace_ != kNodeLeaseNamespace) {
    return Forbid(request,
                  fmt::format("can only access leases in the {} system "
                              "namespace",
                              GoQuote(kNodeLeaseNamespace)));
  }
  std::string name = request.scope.name;
  if (request.operation == AdmissionOperation::kCreate &&
      request.object != nullptr) {
    name = api::MetaOf(*request.object).name;
  }
  if (name != node) {
    return Forbid(request,
                  "can only access node lease with the same name as the "
                  "requesting node");
  }
  return std::nullopt;
}

std::string NodeRestrictionAdmission::StoredNodeUid(
    std::string_view node) const {
  const std::optional<store::KeyValue> kv =
      store_.Get("/nodes/" + std::string(node));
  if (!kv || kv->value == nullptr) return {};
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(kv->value->data(), kv->value->size()).get(root) !=
      simdjson::SUCCESS) {
    return {};
  }
  std::string_view uid;
  if (root["metadata"]["uid"].get(uid) != simdjson::SUCCESS) return {};
  return std::string(uid);
}

}  // namespace dralloc::apiserver
