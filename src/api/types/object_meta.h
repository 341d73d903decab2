// metav1 types shared by all objects: ObjectMeta, OwnerReference, Condition.
#ifndef DRALLOC_API_TYPES_OBJECT_META_H_
#define DRALLOC_API_TYPES_OBJECT_META_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"

namespace dralloc::api {

// Timestamps stay in their RFC 3339 wire form; validation checks the syntax.
using Time = std::string;
using StringMap = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  friend bool operator==(const OwnerReference&,
                         const OwnerReference&) = default;
};
constexpr auto FieldsOf(const OwnerReference*) {
  using T = OwnerReference;
  return std::tuple{Field("apiVersion", &T::api_version, kAlways),
                    Field("kind", &T::kind, kAlways),
                    Field("name", &T::name, kAlways),
                    Field("uid", &T::uid, kAlways),
                    Field("controller", &T::controller),
                    Field("blockOwnerDeletion", &T::block_owner_deletion)};
}

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string self_link;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::vector<RawJson> managed_fields;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};
constexpr auto FieldsOf(const ObjectMeta*) {
  using T = ObjectMeta;
  return std::tuple{
      Field("name", &T::name),
      Field("generateName", &T::generate_name),
      Field("namespace", &T::namespace_),
      Field("selfLink", &T::self_link),
      Field("uid", &T::uid),
      Field("resourceVersion", &T::resource_version),
      Field("generation", &T::generation),
      Field("creationTimestamp", &T::creation_timestamp),
      Field("deletionTimestamp", &T::deletion_timestamp),
      Field("deletionGracePeriodSeconds", &T::deletion_grace_period_seconds),
      Field("labels", &T::labels),
      Field("annotations", &T::annotations),
      Field("ownerReferences", &T::owner_references),
      Field("finalizers", &T::finalizers),
      Field("managedFields", &T::managed_fields)};
}

struct ListMeta {
  std::string resource_version;
  std::string continue_;
  std::optional<int64_t> remaining_item_count;
  friend bool operator==(const ListMeta&, const ListMeta&) = default;
};
constexpr auto FieldsOf(const ListMeta*) {
  using T = ListMeta;
  return std::tuple{Field("resourceVersion", &T::resource_version),
                    Field("continue", &T::continue_),
                    Field("remainingItemCount", &T::remaining_item_count)};
}

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;
  int64_t observed_generation = 0;
  Time last_transition_time;
  std::string reason;
  std::string message;
  friend bool operator==(const Condition&, const Condition&) = default;
};
constexpr auto FieldsOf(const Condition*) {
  using T = Condition;
  return std::tuple{
      Field("type", &T::type, kAlways),
      Field("status", &T::status, kAlways),
      Field("observedGeneration", &T::observed_generation),
      Field("lastTransitionTime", &T::last_transition_time, kAlways),
      Field("reason", &T::reason, kAlways),
      Field("message", &T::message, kAlways)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_OBJECT_META_H_
