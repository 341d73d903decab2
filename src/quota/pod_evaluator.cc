#include "quota/pod_evaluator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "api/pod_resources.h"
#include "quota/resource_names.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

constexpr std::string_view kPodObjectCount = "count/pods";
constexpr std::string_view kHugePagesPrefix = "hugepages-";
constexpr std::string_view kRequestsHugePagesPrefix = "requests.hugepages-";

// The fixed names upstream's podResources lists.
constexpr std::array<std::string_view, 11> kPodResources = {
    kPodObjectCount,
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods"};

// The names whose quota requires every container to state them (upstream's
// validationSet, "a mistake" kept for compatibility).
constexpr std::array<std::string_view, 6> kMustSpecify = {
    "cpu",        "memory",       "requests.cpu", "requests.memory",
    "limits.cpu", "limits.memory"};

// A request name the pod evaluator charges as requests.<name>: an extended
// resource (outside kubernetes.io, not itself "requests.") or an implicit
// DeviceClass name (upstream's IsDRAExtendedResourceName).
bool IsDraExtendedResourceName(std::string_view name) {
  if (name.starts_with(
          kImplicitExtendedPerClassPrefix.substr(kRequestsPrefix.size()))) {
    return true;
  }
  return name.find('/') != std::string_view::npos &&
         name.find("kubernetes.io/") == std::string_view::npos &&
         !name.starts_with(kRequestsPrefix);
}

// The usage of a requests/limits pair (upstream's podComputeUsageHelper).
api::ResourceList ComputeUsage(const api::ResourceList& requests,
                               const api::ResourceList& limits) {
  api::ResourceList usage;
  usage.emplace("pods", Quantity::FromInt64(1));
  for (std::string_view name : {"cpu", "memory", "ephemeral-storage"}) {
    const std::string key(name);
    if (auto it = requests.find(key); it != requests.end()) {
      usage[key] = it->second;
      usage["requests." + key] = it->second;
    }
    if (auto it = limits.find(key); it != limits.end()) {
      usage["limits." + key] = it->second;
    }
  }
  for (const auto& [name, value] : requests) {
    if (name.starts_with(kHugePagesPrefix)) {
      usage[name] = value;
      usage[std::string(kRequestsPrefix) + name] = value;
    }
    if (IsDraExtendedResourceName(name)) {
      usage[std::string(kRequestsPrefix) + name] = value;
    }
  }
  return usage;
}

bool IsTerminating(const api::Pod& pod) {
  return pod.spec.active_deadline_seconds.has_value() &&
         *pod.spec.active_deadline_seconds >= 0;
}

bool CrossNamespace(const api::PodAffinityTerm& term) {
  return !term.namespaces.empty() || term.namespace_selector.has_value();
}

template <typename Affinity>
bool AnyCrossNamespaceTerm(const std::optional<Affinity>& affinity) {
  if (!affinity.has_value()) return false;
  for (const api::PodAffinityTerm& term :
       affinity->required_during_scheduling_ignored_during_execution) {
    if (CrossNamespace(term)) return true;
  }
  for (const api::WeightedPodAffinityTerm& weighted :
       affinity->preferred_during_scheduling_ignored_during_execution) {
    if (CrossNamespace(weighted.pod_affinity_term)) return true;
  }
  return false;
}

bool UsesCrossNamespacePodAffinity(const api::Pod& pod) {
  if (!pod.spec.affinity.has_value()) return false;
  return AnyCrossNamespaceTerm(pod.spec.affinity->pod_affinity) ||
         AnyCrossNamespaceTerm(pod.spec.affinity->pod_anti_affinity);
}

// The PriorityClass scope as a label requirement on {PriorityClass: name}
// (no label when the pod names no class).
bool MatchesPriorityClass(const api::ScopedResourceSelectorRequirement& scope,
                          const api::Pod& pod) {
  const std::string& name = pod.spec.priority_class_name;
  const bool has = !name.empty();
  const bool listed = std::find(scope.values.begin(), scope.values.end(),
                                name) != scope.values.end();
  if (scope.operator_ == "Exists") return has;
  if (scope.operator_ == "DoesNotExist") return !has;
  if (scope.operator_ == "In") return has && listed;
  if (scope.operator_ == "NotIn") return !has || !listed;
  return false;
}

bool MatchesScope(const api::ScopedResourceSelectorRequirement& scope,
                  const api::Pod& pod) {
  const std::string& name = scope.scope_name;
  if (name == "Terminating") return IsTerminating(pod);
  if (name == "NotTerminating") return !IsTerminating(pod);
  if (name == "BestEffort") return api::IsBestEffort(pod);
  if (name == "NotBestEffort") return !api::IsBestEffort(pod);
  if (name == "PriorityClass") return MatchesPriorityClass(scope, pod);
  if (name == "CrossNamespacePodAffinity") {
    return UsesCrossNamespacePodAffinity(pod);
  }
  return false;
}

// The quota's scopes as requirements: each spec.scopes entry as Exists,
// then spec.scopeSelector's expressions.
std::vector<api::ScopedResourceSelectorRequirement> ScopesOf(
    const api::ResourceQuota& quota) {
  std::vector<api::ScopedResourceSelectorRequirement> scopes;
  for (const std::string& scope : quota.spec.scopes) {
    scopes.push_back({scope, "Exists", {}});
  }
  if (quota.spec.scope_selector.has_value()) {
    for (const auto& expression :
         quota.spec.scope_selector->match_expressions) {
      scopes.push_back(expression);
    }
  }
  return scopes;
}

}  // namespace

bool PodEvaluator::ChargesCompute(const api::Pod& pod, SystemTime now) {
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    return false;
  }
  const api::ObjectMeta& meta = pod.metadata;
  if (meta.deletion_timestamp.has_value() &&
      meta.deletion_grace_period_seconds.has_value()) {
    const std::optional<SystemTime> deleted =
        ParseUtcTime(*meta.deletion_timestamp);
    // Bounded so that the sum cannot overflow: a century is forever here.
    constexpr int64_t kLongestGraceSeconds = int64_t{100} * 365 * 24 * 3600;
    const int64_t grace = std::clamp<int64_t>(
        *meta.deletion_grace_period_seconds, 0, kLongestGraceSeconds);
    if (deleted.has_value() && now > *deleted + std::chrono::seconds(grace)) {
      return false;
    }
  }
  return true;
}

api::ResourceList PodEvaluator::Usage(const api::Pod& pod, SystemTime now) {
  api::ResourceList usage;
  usage.emplace(std::string(kPodObjectCount), Quantity::FromInt64(1));
  if (!ChargesCompute(pod, now)) return usage;
  return Add(usage, ComputeUsage(api::TotalPodRequests(pod),
                                 api::TotalPodLimits(pod)));
}

std::vector<std::string> PodEvaluator::MatchingResources(
    const std::vector<std::string>& names) {
  std::vector<std::string> result;
  for (const std::string& name : names) {
    const bool fixed = std::find(kPodResources.begin(), kPodResources.end(),
                                 name) != kPodResources.end();
    const bool huge_pages = name.starts_with(kHugePagesPrefix) ||
                            name.starts_with(kRequestsHugePagesPrefix);
    const bool implicit_extended =
        name.starts_with(kImplicitExtendedPerClassPrefix);
    if (fixed || huge_pages || implicit_extended ||
        IsExtendedRequestName(name)) {
      result.push_back(name);
    }
  }
  return result;
}

bool PodEvaluator::MatchesScopes(const api::ResourceQuota& quota,
                                 const api::Pod& pod) {
  for (const auto& scope : ScopesOf(quota)) {
    if (!MatchesScope(scope, pod)) return false;
  }
  return true;
}

bool PodEvaluator::Matches(const api::ResourceQuota& quota,
                           const api::Pod& pod) {
  return !MatchingResources(ResourceNames(quota.status.hard)).empty() &&
         MatchesScopes(quota, pod);
}

std::optional<std::string> PodEvaluator::MissingRequests(
    const std::vector<std::string>& constrained, const api::Pod& pod) {
  // With pod-level resources, containers need not state their own.
  if (pod.spec.resources.has_value()) {
    for (const auto* values :
         {&pod.spec.resources->requests, &pod.spec.resources->limits}) {
      for (const auto& entry : *values) {
        if (api::IsSupportedPodLevelResource(entry.first)) return std::nullopt;
      }
    }
  }
  std::vector<std::string> required;
  for (const std::string& name : constrained) {
    if (std::find(kMustSpecify.begin(), kMustSpecify.end(), name) !=
        kMustSpecify.end()) {
      required.push_back(name);
    }
  }
  std::map<std::string, std::set<std::string>> missing;
  for (const auto* containers :
       {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& container : *containers) {
      const api::ResourceList usage = ComputeUsage(container.resources.requests,
                                                   container.resources.limits);
      for (const std::string& name : required) {
        if (!usage.contains(name)) missing[name].insert(container.name);
      }
    }
  }
  if (missing.empty()) return std::nullopt;
  std::vector<std::string> parts;
  for (const auto& [name, containers] : missing) {
    parts.push_back(
        fmt::format("{} for: {}", name, fmt::join(containers, ",")));
  }
  return fmt::format("must specify {}", fmt::join(parts, "; "));
}

}  // namespace dralloc::quota
