// Allocating classic claims of ResourceClasses with `structuredParameters:
// true`: Kubernetes 1.30's structured model (docs/classic-dra.md section
// 5). The scheduler, not a driver, allocates them from the namedResources
// instances of resource.k8s.io/v1alpha2 ResourceSlices:
//
// - PlanStructuredClaim finds the claim's and the class's parameters as
//   1.30 did (parametersRef to ResourceClaimParameters/
//   ResourceClassParameters, or the parameters `generatedFrom` names the
//   referenced object; none: one request for any instance of the class's
//   driver, shareable) with 1.30's messages, and compiles the selectors in
//   1.30's CEL environment (cel/dra/named_resources_environment.h);
// - AllocateOnNode gives each request of all the pod's structured claims
//   a distinct free instance of its driver on the node that passes the
//   class's filter and the request's selector (MatchDistinct: 1.30's first
//   fit, repaired where first fit fails), and builds 1.30's result.
//
// An instance's identity is "<driver>/<node>/<instance>", the v1 device key
// of its converted form (pool = node), so one set of taken devices serves
// both families.
#ifndef DRALLOC_SCHEDULER_CLASSIC_STRUCTURED_ALLOCATION_H_
#define DRALLOC_SCHEDULER_CLASSIC_STRUCTURED_ALLOCATION_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/v1alpha2/types.h"
#include "cel/dra/named_resources_environment.h"
#include "client/api_client.h"
#include "scheduler/classic/classic_claims.h"

namespace dralloc::scheduler::classic {

// Where parameters come from (the scheduler's informers).
struct ParameterSource {
  std::function<client::ObjectPtr(const std::string& ns,
                                  const std::string& name)>
      claim_parameters;
  std::function<client::ObjectPtr(const std::string& ns,
                                  const std::string& name)>
      class_parameters;
  // Every object, for generatedFrom lookups.
  std::function<std::vector<client::ObjectPtr>()> all_claim_parameters;
  std::function<std::vector<client::ObjectPtr>()> all_class_parameters;
};

// Compiled selectors by text; compile errors are cached too.
class SelectorCache {
 public:
  StatusOr<std::shared_ptr<const cel::Program>> Get(const std::string& text);

 private:
  std::map<std::string, StatusOr<std::shared_ptr<const cel::Program>>,
           std::less<>>
      programs_;
};

struct StructuredRequest {
  std::shared_ptr<const cel::Program> filter;  // the class's; null: none
  std::shared_ptr<const cel::Program> selector;
  std::optional<api::RawJson> vendor_parameters;
};

// The requests of one driver (all driverRequests entries of it, merged).
struct StructuredDriver {
  std::string driver;
  std::optional<api::RawJson> vendor_class_parameters;
  std::optional<api::RawJson> vendor_claim_parameters;
  std::vector<StructuredRequest> requests;
};

struct StructuredClaim {
  size_t claim = 0;         // index in ClassicCycleState::claims
  std::string driver_name;  // the class's: status.driverName
  bool shareable = false;
  std::vector<StructuredDriver> drivers;
  client::ObjectPtr claim_parameters;  // kept alive (null: defaults)
  client::ObjectPtr class_parameters;
};

// Unschedulable when parameters are missing (an event may bring them),
// Error when they are ambiguous or unusable.
Verdict PlanStructuredClaim(const api::v1alpha2::ResourceClaim& claim,
                            const api::v1alpha2::ResourceClass& resource_class,
                            const ParameterSource& source,
                            SelectorCache& selectors, StructuredClaim& out);

// The namedResources instances of the v1alpha2 slices with a node, per node
// and driver: slices in name order, instances in listed order.
class NamedResourcesInventory {
 public:
  struct Instance {
    std::string name;
    std::string id;  // "<driver>/<node>/<name>"
    std::unique_ptr<cel::NamedResourcesAttributes> attributes;
  };

  void Rebuild(const std::vector<client::ObjectPtr>& slices);
  // Null when the node has no instance of the driver.
  const std::vector<Instance>* Find(std::string_view node,
                                    std::string_view driver) const;

 private:
  using ByDriver = std::map<std::string, std::vector<Instance>, std::less<>>;
  std::map<std::string, ByDriver, std::less<>> by_node_;
};

struct NodeAllocation {
  // Per StructuredClaim, in order.
  std::vector<api::v1alpha2::AllocationResult> allocations;
  std::vector<std::string> devices;  // the instance ids taken
};

// Allocates every claim of `claims` on `node` from instances not `taken`;
// nullopt with `reason` set when they do not fit (or a selector fails).
std::optional<NodeAllocation> AllocateOnNode(
    const std::vector<StructuredClaim>& claims,
    const NamedResourcesInventory& inventory, const std::string& node,
    const std::function<bool(const std::string& id)>& taken,
    std::string& reason);

// The instance ids a claim's structured handles hold (none for a claim a
// driver allocated).
std::vector<std::string> StructuredDevicesOf(
    const api::v1alpha2::ResourceClaim& claim);
std::vector<std::string> StructuredDevicesOf(
    const api::v1alpha2::AllocationResult& allocation);

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_STRUCTURED_ALLOCATION_H_
