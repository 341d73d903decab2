#include "apiserver/rbac_bootstrap.h"

#include <algorithm>
#include <string>
#include <variant>

#include "api/resource_registry.h"
#include "rbac/bootstrap_policy.h"

namespace dralloc::apiserver {
namespace {

bool AutoupdateOff(const api::ObjectMeta& meta) {
  auto it = meta.annotations.find(std::string(rbac::kAutoupdateAnnotation));
  return it != meta.annotations.end() && it->second == "false";
}

template <typename T>
void AddMissing(std::vector<T>& existing, const std::vector<T>& wanted,
                bool& changed) {
  for (const T& item : wanted) {
    if (std::find(existing.begin(), existing.end(), item) != existing.end()) {
      continue;
    }
    existing.push_back(item);
    changed = true;
  }
}

// What reconciliation adds to a stored object; false when nothing.
bool Reconcile(api::ClusterRole& stored, const api::ClusterRole& wanted) {
  bool changed = false;
  if (wanted.aggregation_rule) {
    if (!stored.aggregation_rule) {
      stored.aggregation_rule = api::AggregationRule{};
    }
    AddMissing(stored.aggregation_rule->cluster_role_selectors,
               wanted.aggregation_rule->cluster_role_selectors, changed);
  } else {
    AddMissing(stored.rules, wanted.rules, changed);
  }
  return changed;
}

bool Reconcile(api::ClusterRoleBinding& stored,
               const api::ClusterRoleBinding& wanted) {
  bool changed = false;
  AddMissing(stored.subjects, wanted.subjects, changed);
  return changed;
}

template <typename T>
Status EnsureObject(ResourceStorage& storage, const T& wanted) {
  const api::ResourceInfo* info = api::FindResourceByKind(wanted.kind);
  RequestScope scope{
      .info = info, .version = "v1", .name = wanted.metadata.name};
  ApiOr<SharedObject> current = storage.GetObject(scope);
  if (!current.ok()) {
    if (current.error().code != 404) {
      return InternalError(current.error().message);
    }
    scope.name.clear();
    ApiOr<WriteResult> created =
        storage.CreateObject(scope, wanted, WriteOptions{});
    if (created.ok() || created.error().code == 409) return OkStatus();
    return InternalError(created.error().message);
  }
  const T* stored = std::get_if<T>(current->get());
  if (stored == nullptr || AutoupdateOff(stored->metadata)) return OkStatus();
  T reconciled = *stored;
  if (!Reconcile(reconciled, wanted)) return OkStatus();
  ApiOr<WriteResult> updated =
      storage.UpdateObject(scope, std::move(reconciled), WriteOptions{});
  if (updated.ok() || updated.error().code == 409) return OkStatus();
  return InternalError(updated.error().message);
}

}  // namespace

Status EnsureBootstrapPolicy(ResourceStorage& storage) {
  for (const api::ClusterRole& role : rbac::BootstrapClusterRoles()) {
    RETURN_IF_ERROR(EnsureObject(storage, role));
  }
  for (const api::ClusterRoleBinding& binding :
       rbac::BootstrapClusterRoleBindings()) {
    RETURN_IF_ERROR(EnsureObject(storage, binding));
  }
  return OkStatus();
}

}  // namespace dralloc::apiserver
