// ClassicExampleDriver: the control-plane part of `dralloc driver
// classic-example`, a classic DRA (resource.k8s.io/v1alpha2) driver in the
// manner of Kubernetes 1.30's e2e test driver: the controller library
// (classiccontroller::Controller) asks it, and it answers from a
// ClassicGpuPool. Class and claim parameters are core/v1 ConfigMaps named
// by parametersRef (ClassicParameters); an allocation is one resource
// handle (ClassicHandle JSON) available on one node. Thread-safe.
#ifndef DRALLOC_EXAMPLEDRIVER_CLASSIC_DRIVER_H_
#define DRALLOC_EXAMPLEDRIVER_CLASSIC_DRIVER_H_

#include <map>
#include <optional>
#include <string>

#include "classiccontroller/driver.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "common/mutex.h"
#include "exampledriver/classic_gpu_pool.h"

namespace dralloc::exampledriver {

class ClassicExampleDriver final : public classiccontroller::Driver {
 public:
  ClassicExampleDriver(client::ApiClient& client, std::string driver_name,
                       ClassicGpuPool pool);

  // Takes back the allocations of the driver's claims found in `claims`
  // (v1alpha2 claims with status.driverName = this driver), after a
  // restart. Claims whose handle does not fit the pool are reported in the
  // error, the rest restored.
  Status Restore(const std::vector<client::ObjectPtr>& claims);

  StatusOr<std::any> GetClassParameters(
      const api::v1alpha2::ResourceClass& resource_class) override;
  StatusOr<std::any> GetClaimParameters(
      const api::v1alpha2::ResourceClaim& claim,
      const api::v1alpha2::ResourceClass& resource_class,
      const std::any& class_parameters) override;
  void Allocate(std::span<classiccontroller::ClaimAllocation> claims,
                std::string_view selected_node) override;
  Status Deallocate(const api::v1alpha2::ResourceClaim& claim) override;
  Status UnsuitableNodes(
      const api::Pod& pod, std::span<classiccontroller::ClaimAllocation> claims,
      const std::vector<std::string>& potential_nodes) override;

  int FreeOn(std::string_view node) const EXCLUDES(mu_);

 private:
  using Data = std::optional<std::map<std::string, std::string>>;
  // The data of ConfigMap `namespace_`/`name`; the error names the object
  // that referred to it and the field.
  StatusOr<Data> ConfigMapData(std::string_view namespace_,
                               std::string_view name,
                               std::string_view referrer) const;

  client::ApiClient& client_;
  const std::string driver_name_;
  mutable Mutex mu_;
  ClassicGpuPool pool_ GUARDED_BY(mu_);
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_CLASSIC_DRIVER_H_
