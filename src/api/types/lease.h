// coordination.k8s.io/v1 Lease: a named, renewable claim held by one holder,
// which leader election (leaderelection/) and any client use as upstream's.
//
// Every spec field is optional on the wire, as upstream's pointers are: an
// absent field and a zero value differ (leaseDurationSeconds 0 is invalid,
// absent is not).
#ifndef DRALLOC_API_TYPES_LEASE_H_
#define DRALLOC_API_TYPES_LEASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "api/reflect.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  // MicroTime: RFC 3339 with six fractional digits, UTC.
  std::optional<Time> acquire_time;
  std::optional<Time> renew_time;
  std::optional<int32_t> lease_transitions;
  // CoordinatedLeaseStrategy ("OldestEmulationVersion" or a qualified name
  // with a prefix).
  std::optional<std::string> strategy;
  std::optional<std::string> preferred_holder;
  friend bool operator==(const LeaseSpec&, const LeaseSpec&) = default;
};
constexpr auto FieldsOf(const LeaseSpec*) {
  using T = LeaseSpec;
  return std::tuple{
      Field("holderIdentity", &T::holder_identity).Proto(1),
      Field("leaseDurationSeconds", &T::lease_duration_seconds).Proto(2),
      Field("acquireTime", &T::acquire_time).Proto(3, ProtoType::kMicroTime),
      Field("renewTime", &T::renew_time).Proto(4, ProtoType::kMicroTime),
      Field("leaseTransitions", &T::lease_transitions).Proto(5),
      Field("strategy", &T::strategy).Proto(6),
      Field("preferredHolder", &T::preferred_holder).Proto(7)};
}

// coordination.k8s.io/v1 Lease.
struct Lease {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  LeaseSpec spec;
  friend bool operator==(const Lease&, const Lease&) = default;
};
constexpr auto FieldsOf(const Lease*) {
  using T = Lease;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("spec", &T::spec).Proto(2)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_LEASE_H_
