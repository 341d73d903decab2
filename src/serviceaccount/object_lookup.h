// ObjectLookup: what token issuance and authentication need to know about
// stored objects, implemented by the integrator over the API server's store
// (the ServiceAccount a token is for, and the pod, secret or node it is
// bound to).
#ifndef DRALLOC_SERVICEACCOUNT_OBJECT_LOOKUP_H_
#define DRALLOC_SERVICEACCOUNT_OBJECT_LOOKUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dralloc::serviceaccount {

// The facts about one stored object.
struct ObjectRecord {
  std::string uid;
  // metadata.deletionTimestamp in Unix seconds, when the object is being
  // deleted.
  std::optional<int64_t> deletion_time;
  // Pods only: spec.serviceAccountName ("default" when unset) and
  // spec.nodeName ("" while unscheduled).
  std::string service_account_name;
  std::string node_name;
};

class ObjectLookup {
 public:
  virtual ~ObjectLookup() = default;
  // nullopt when the object does not exist. Thread-safe: called from
  // every request thread.
  virtual std::optional<ObjectRecord> ServiceAccount(
      std::string_view namespace_, std::string_view name) const = 0;
  virtual std::optional<ObjectRecord> Pod(std::string_view namespace_,
                                          std::string_view name) const = 0;
  virtual std::optional<ObjectRecord> Secret(std::string_view namespace_,
                                             std::string_view name) const = 0;
  virtual std::optional<ObjectRecord> Node(std::string_view name) const = 0;
};

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_OBJECT_LOOKUP_H_
