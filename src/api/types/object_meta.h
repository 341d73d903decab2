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
  return std::tuple{
      Field("apiVersion", &T::api_version, kAlways).Proto(5),
      Field("kind", &T::kind, kAlways).Proto(1),
      Field("name", &T::name, kAlways).Proto(3),
      Field("uid", &T::uid, kAlways).Proto(4),
      Field("controller", &T::controller).Proto(6),
      Field("blockOwnerDeletion", &T::block_owner_deletion).Proto(7)};
}

// The shape of a metadata.managedFields entry, which ObjectMeta keeps as
// RawJson: its facts for protobuf bodies.
struct ManagedFieldsEntry {};
constexpr auto KeptFieldsOf(const ManagedFieldsEntry*) {
  return std::tuple{Kept<std::string>("manager").Proto(1),
                    Kept<std::string>("operation").Proto(2),
                    Kept<std::string>("apiVersion").Proto(3),
                    Kept<std::string>("time").Proto(4, ProtoType::kTime),
                    Kept<std::string>("fieldsType").Proto(6),
                    Kept<RawJson>("fieldsV1").Proto(7, ProtoType::kFieldsV1),
                    Kept<std::string>("subresource").Proto(8)};
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
      Field("name", &T::name).Proto(1),
      Field("generateName", &T::generate_name).Proto(2),
      Field("namespace", &T::namespace_).Proto(3),
      Field("selfLink", &T::self_link).Proto(4),
      Field("uid", &T::uid).Proto(5),
      Field("resourceVersion", &T::resource_version).Proto(6),
      Field("generation", &T::generation).Proto(7),
      Field("creationTimestamp", &T::creation_timestamp)
          .Proto(8, ProtoType::kTime),
      Field("deletionTimestamp", &T::deletion_timestamp)
          .Proto(9, ProtoType::kTime),
      Field("deletionGracePeriodSeconds", &T::deletion_grace_period_seconds)
          .Proto(10),
      Field("labels", &T::labels).Proto(11),
      Field("annotations", &T::annotations).Proto(12),
      Field("ownerReferences", &T::owner_references)
          .Proto(13)
          .ListMap("uid")
          .PatchMerge(),
      Field("finalizers", &T::finalizers).Proto(14).ListSet().PatchMerge(),
      Field("managedFields", &T::managed_fields)
          .Proto(17)
          .ListAtomic()
          .ShapedAs<std::vector<ManagedFieldsEntry>>()};
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
