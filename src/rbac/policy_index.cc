#include "rbac/policy_index.h"

#include <algorithm>
#include <variant>

#include "auth/user_info.h"

namespace dralloc::rbac {
namespace {

std::string Quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string_view ServiceAccountNamespace(const api::Subject& subject,
                                         std::string_view binding_namespace) {
  return subject.namespace_.empty() ? binding_namespace
                                    : std::string_view(subject.namespace_);
}

// The index key of a subject; "" for kinds that match nobody.
std::string SubjectKey(const api::Subject& subject,
                       std::string_view binding_namespace) {
  if (subject.kind == "User") return "U:" + subject.name;
  if (subject.kind == "Group") return "G:" + subject.name;
  if (subject.kind == "ServiceAccount") {
    return "S:" +
           std::string(ServiceAccountNamespace(subject, binding_namespace)) +
           ":" + subject.name;
  }
  return {};
}

// The keys a user is found under.
std::vector<std::string> UserKeys(const auth::UserInfo& user) {
  std::vector<std::string> keys;
  keys.reserve(user.groups.size() + 2);
  keys.push_back("U:" + user.name);
  for (const std::string& group : user.groups) keys.push_back("G:" + group);
  if (user.name.starts_with(auth::kServiceAccountUserPrefix)) {
    keys.push_back("S:" +
                   user.name.substr(auth::kServiceAccountUserPrefix.size()));
  }
  return keys;
}

std::string ScopedKey(bool cluster, std::string_view namespace_,
                      const std::string& key) {
  return cluster ? key : std::string(namespace_) + "/" + key;
}

std::string NotFoundText(const api::RoleRef& ref) {
  const std::string_view resource = ref.kind == "Role" ? "role" : "clusterrole";
  return std::string(resource) + ".rbac.authorization.k8s.io " +
         Quoted(ref.name) + " not found";
}

}  // namespace

std::string RuleSource::Describe() const {
  std::string subject_text = subject->kind + " ";
  if (subject->kind == "ServiceAccount") {
    subject_text += Quoted(
        subject->name + "/" +
        std::string(ServiceAccountNamespace(*subject, binding_namespace)));
  } else {
    subject_text += Quoted(subject->name);
  }
  const std::string binding =
      cluster_binding
          ? "ClusterRoleBinding " + Quoted(binding_name)
          : "RoleBinding " + Quoted(std::string(binding_name) + "/" +
                                    std::string(binding_namespace));
  return binding + " of " + role_ref->kind + " " + Quoted(role_ref->name) +
         " to " + subject_text;
}

void PolicyIndex::Upsert(const api::Object& object) {
  WriterMutexLock lock(mu_);
  UpsertLocked(object);
}

void PolicyIndex::UpsertLocked(const api::Object& object) {
  if (const auto* role = std::get_if<api::ClusterRole>(&object)) {
    cluster_roles_[role->metadata.name] = *role;
  } else if (const auto* role = std::get_if<api::Role>(&object)) {
    roles_[{role->metadata.namespace_, role->metadata.name}] = *role;
  } else if (const auto* b = std::get_if<api::ClusterRoleBinding>(&object)) {
    UpsertBinding(std::make_shared<const Binding>(
        Binding{true, "", b->metadata.name, b->role_ref, b->subjects}));
  } else if (const auto* b = std::get_if<api::RoleBinding>(&object)) {
    UpsertBinding(std::make_shared<const Binding>(
        Binding{false, b->metadata.namespace_, b->metadata.name, b->role_ref,
                b->subjects}));
  }
}

void PolicyIndex::Remove(const api::Object& object) {
  WriterMutexLock lock(mu_);
  if (const auto* role = std::get_if<api::ClusterRole>(&object)) {
    cluster_roles_.erase(role->metadata.name);
  } else if (const auto* role = std::get_if<api::Role>(&object)) {
    roles_.erase({role->metadata.namespace_, role->metadata.name});
  } else if (const auto* b = std::get_if<api::ClusterRoleBinding>(&object)) {
    RemoveBinding(true, {"", b->metadata.name});
  } else if (const auto* b = std::get_if<api::RoleBinding>(&object)) {
    RemoveBinding(false, {b->metadata.namespace_, b->metadata.name});
  }
}

void PolicyIndex::Reset(const std::vector<api::Object>& objects) {
  WriterMutexLock lock(mu_);
  Clear();
  for (const api::Object& object : objects) UpsertLocked(object);
}

void PolicyIndex::Clear() {
  cluster_roles_.clear();
  roles_.clear();
  cluster_bindings_.clear();
  role_bindings_.clear();
  by_subject_.clear();
}

void PolicyIndex::UpsertBinding(BindingPtr binding) {
  NamespacedName key{binding->namespace_, binding->name};
  RemoveBinding(binding->cluster, key);
  for (const api::Subject& subject : binding->subjects) {
    const std::string subject_key = SubjectKey(subject, binding->namespace_);
    if (subject_key.empty()) continue;
    by_subject_[ScopedKey(binding->cluster, binding->namespace_, subject_key)]
        .insert(key);
  }
  auto& bindings = binding->cluster ? cluster_bindings_ : role_bindings_;
  bindings[key] = std::move(binding);
}

void PolicyIndex::RemoveBinding(bool cluster, const NamespacedName& key) {
  auto& bindings = cluster ? cluster_bindings_ : role_bindings_;
  auto it = bindings.find(key);
  if (it == bindings.end()) return;
  for (const api::Subject& subject : it->second->subjects) {
    const std::string subject_key = SubjectKey(subject, key.first);
    if (subject_key.empty()) continue;
    auto entry = by_subject_.find(ScopedKey(cluster, key.first, subject_key));
    if (entry == by_subject_.end()) continue;
    entry->second.erase(key);
    if (entry->second.empty()) by_subject_.erase(entry);
  }
  bindings.erase(it);
}

std::vector<PolicyIndex::BindingPtr> PolicyIndex::BindingsOf(
    const auth::UserInfo& user, bool cluster,
    std::string_view namespace_) const {
  std::vector<NamespacedName> keys;
  for (const std::string& user_key : UserKeys(user)) {
    auto entry = by_subject_.find(ScopedKey(cluster, namespace_, user_key));
    if (entry == by_subject_.end()) continue;
    keys.insert(keys.end(), entry->second.begin(), entry->second.end());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const auto& bindings = cluster ? cluster_bindings_ : role_bindings_;
  std::vector<BindingPtr> found;
  found.reserve(keys.size());
  for (const NamespacedName& key : keys) found.push_back(bindings.at(key));
  return found;
}

const std::vector<api::PolicyRule>* PolicyIndex::RulesOfRef(
    const api::RoleRef& ref, std::string_view namespace_) const {
  if (ref.kind == "Role") {
    auto it = roles_.find({std::string(namespace_), ref.name});
    return it == roles_.end() ? nullptr : &it->second.rules;
  }
  if (ref.kind != "ClusterRole") return nullptr;
  auto it = cluster_roles_.find(ref.name);
  return it == cluster_roles_.end() ? nullptr : &it->second.rules;
}

void PolicyIndex::VisitRulesFor(const auth::UserInfo& user,
                                std::string_view namespace_,
                                const RuleVisitor& visit,
                                std::vector<std::string>* errors) const {
  ReaderMutexLock lock(mu_);
  const std::vector<std::string> user_keys = UserKeys(user);
  for (const bool cluster : {true, false}) {
    if (!cluster && namespace_.empty()) break;
    for (const BindingPtr& binding : BindingsOf(user, cluster, namespace_)) {
      // The first subject of the binding that names the user.
      const api::Subject* subject = nullptr;
      for (const api::Subject& candidate : binding->subjects) {
        const std::string key = SubjectKey(candidate, binding->namespace_);
        if (std::find(user_keys.begin(), user_keys.end(), key) !=
            user_keys.end()) {
          subject = &candidate;
          break;
        }
      }
      if (subject == nullptr) continue;
      const std::vector<api::PolicyRule>* rules =
          RulesOfRef(binding->role_ref, binding->namespace_);
      if (rules == nullptr) {
        if (errors != nullptr)
          errors->push_back(NotFoundText(binding->role_ref));
        continue;
      }
      const RuleSource source{cluster, binding->name, binding->namespace_,
                              &binding->role_ref, subject};
      for (const api::PolicyRule& rule : *rules) {
        if (!visit(source, rule)) return;
      }
    }
  }
}

std::vector<api::PolicyRule> PolicyIndex::RulesFor(
    const auth::UserInfo& user, std::string_view namespace_,
    std::vector<std::string>* errors) const {
  std::vector<api::PolicyRule> rules;
  VisitRulesFor(
      user, namespace_,
      [&rules](const RuleSource&, const api::PolicyRule& rule) {
        rules.push_back(rule);
        return true;
      },
      errors);
  return rules;
}

std::optional<std::vector<api::PolicyRule>> PolicyIndex::RoleRefRules(
    const api::RoleRef& ref, std::string_view namespace_) const {
  ReaderMutexLock lock(mu_);
  const std::vector<api::PolicyRule>* rules = RulesOfRef(ref, namespace_);
  if (rules == nullptr) return std::nullopt;
  return *rules;
}

std::vector<api::ClusterRole> PolicyIndex::ClusterRoles() const {
  ReaderMutexLock lock(mu_);
  std::vector<api::ClusterRole> roles;
  roles.reserve(cluster_roles_.size());
  for (const auto& [name, role] : cluster_roles_) roles.push_back(role);
  return roles;
}

size_t PolicyIndex::size() const {
  ReaderMutexLock lock(mu_);
  return cluster_roles_.size() + roles_.size() + cluster_bindings_.size() +
         role_bindings_.size();
}

}  // namespace dralloc::rbac
