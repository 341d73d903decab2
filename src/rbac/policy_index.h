// PolicyIndex: the RBAC objects of a cluster, indexed by subject, so that an
// authorization reads only the bindings naming the user, one of its groups
// or its service account (no store reads per request). Thread-safe: writes
// (from the policy feed) take the writer lock, authorizations the reader
// lock.
#ifndef DRALLOC_RBAC_POLICY_INDEX_H_
#define DRALLOC_RBAC_POLICY_INDEX_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/object.h"
#include "auth/user_info.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace dralloc::rbac {

// Where a rule came from, for upstream's reason text.
struct RuleSource {
  bool cluster_binding = false;  // ClusterRoleBinding, else RoleBinding
  std::string_view binding_name;
  std::string_view binding_namespace;
  const api::RoleRef* role_ref = nullptr;
  const api::Subject* subject = nullptr;

  // `ClusterRoleBinding "b" of ClusterRole "r" to User "alice"`, or
  // `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`.
  std::string Describe() const;
};

class PolicyIndex {
 public:
  // Return false to stop the visit.
  using RuleVisitor =
      std::function<bool(const RuleSource&, const api::PolicyRule&)>;

  // Adds or replaces a Role, ClusterRole, RoleBinding or ClusterRoleBinding
  // (other kinds are ignored).
  void Upsert(const api::Object& object);
  // Removes the object of that kind, namespace and name.
  void Remove(const api::Object& object);
  // Replaces everything (a relist).
  void Reset(const std::vector<api::Object>& objects);

  // Visits the rules that apply to `user` in `namespace_` (ClusterRoleBindings
  // first, then RoleBindings of the namespace, each in name order), as
  // upstream's VisitRulesFor. A binding whose role is missing adds
  // `clusterrole.rbac.authorization.k8s.io "x" not found` to `errors`.
  void VisitRulesFor(const auth::UserInfo& user, std::string_view namespace_,
                     const RuleVisitor& visit,
                     std::vector<std::string>* errors) const;
  // Every rule of `user` in `namespace_`.
  std::vector<api::PolicyRule> RulesFor(const auth::UserInfo& user,
                                        std::string_view namespace_,
                                        std::vector<std::string>* errors) const;
  // The rules of a role reference (kind Role uses `namespace_`); nullopt
  // when the role does not exist.
  std::optional<std::vector<api::PolicyRule>> RoleRefRules(
      const api::RoleRef& ref, std::string_view namespace_) const;
  // Every ClusterRole (for aggregation).
  std::vector<api::ClusterRole> ClusterRoles() const;
  size_t size() const;

 private:
  using NamespacedName = std::pair<std::string, std::string>;
  struct Binding {
    bool cluster = false;
    std::string namespace_;
    std::string name;
    api::RoleRef role_ref;
    std::vector<api::Subject> subjects;
  };
  using BindingPtr = std::shared_ptr<const Binding>;

  void UpsertBinding(BindingPtr binding) REQUIRES(mu_);
  void RemoveBinding(bool cluster, const NamespacedName& key) REQUIRES(mu_);
  void Clear() REQUIRES(mu_);
  void UpsertLocked(const api::Object& object) REQUIRES(mu_);
  // Bindings naming `user` (ClusterRoleBindings when `cluster`), in name
  // order.
  std::vector<BindingPtr> BindingsOf(const auth::UserInfo& user, bool cluster,
                                     std::string_view namespace_) const
      REQUIRES_SHARED(mu_);
  const std::vector<api::PolicyRule>* RulesOfRef(
      const api::RoleRef& ref, std::string_view namespace_) const
      REQUIRES_SHARED(mu_);

  mutable SharedMutex mu_;
  std::map<std::string, api::ClusterRole, std::less<>> cluster_roles_
      GUARDED_BY(mu_);
  std::map<NamespacedName, api::Role> roles_ GUARDED_BY(mu_);
  // Keyed by (namespace, name); namespace "" for ClusterRoleBindings.
  std::map<NamespacedName, BindingPtr> cluster_bindings_ GUARDED_BY(mu_);
  std::map<NamespacedName, BindingPtr> role_bindings_ GUARDED_BY(mu_);
  // Subject key ("U:alice", "G:devs", "S:ns:sa"), prefixed with
  // "<namespace>/" for RoleBindings, to the bindings naming it.
  std::unordered_map<std::string, std::set<NamespacedName>> by_subject_
      GUARDED_BY(mu_);
};

}  // namespace dralloc::rbac

#endif  // DRALLOC_RBAC_POLICY_INDEX_H_
