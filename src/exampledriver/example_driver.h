// ExampleDriver: the node half of the example GPU driver (what
// kubernetes-sigs/dra-example-driver's kubelet plugin does), as
// kubeletplugin::DriverCallbacks.
//
// Prepare: for each claim, fetch the ResourceClaim, check its UID, take the
// allocation results of this driver and the opaque configs for it (class
// first, then claim; later ones win), write one CDI spec per claim
// (`k8s.<driver>/gpu`, devices `<claimUID>-<device>` with GPU_DEVICE_<n>
// env and the config's env) and return the CDI IDs of the common device and
// the claim's devices. Prepared claims are checkpointed in the state
// directory, so a repeated prepare gives the same answer, also after a
// restart. Unprepare removes the claim's spec file and checkpoint entry.
#ifndef DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_
#define DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "api/types/resource_claim.h"
#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "exampledriver/prepared_claims_checkpoint.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::exampledriver {

struct ExampleDriverOptions {
  std::string driver_name = "gpu.example.com";
  std::string node_name;
  std::filesystem::path cdi_dir;
  std::filesystem::path state_dir;
  // Test knobs: fail every prepare, or those of claims with this name;
  // wait this long at the start of every prepare call.
  bool fail_prepare = false;
  std::string fail_prepare_claim;
  std::chrono::milliseconds prepare_delay{0};
};

class ExampleDriver : public kubeletplugin::DriverCallbacks {
 public:
  // Creates the directories, loads the checkpoint and writes the common CDI
  // spec. `client` must outlive the driver.
  static StatusOr<std::unique_ptr<ExampleDriver>> Create(
      ExampleDriverOptions options, client::ApiClient* client);

  std::map<std::string, kubeletplugin::PrepareResult> PrepareClaims(
      std::span<const kubeletplugin::ClaimRef> claims) override;
  std::map<std::string, Status> UnprepareClaims(
      std::span<const kubeletplugin::ClaimRef> claims) override;

  // Ends a --prepare-delay wait early (then that prepare goes on), so that
  // shutting down does not wait for the delay.
  void CancelDelays();

  // "k8s.<driver>/gpu".
  const std::string& cdi_kind() const { return cdi_kind_; }
  std::filesystem::path ClaimSpecPath(const std::string& claim_uid) const;
  std::filesystem::path CommonSpecPath() const;

 private:
  ExampleDriver(ExampleDriverOptions options, client::ApiClient* client,
                PreparedClaimsCheckpoint checkpoint);

  Status WriteCommonSpec() const;
  kubeletplugin::PrepareResult PrepareClaim(
      const kubeletplugin::ClaimRef& claim);
  StatusOr<api::ResourceClaim> FetchClaim(
      const kubeletplugin::ClaimRef& claim) const;
  StatusOr<PreparedClaim> PrepareDevices(const api::ResourceClaim& claim,
                                         const std::string& what) const;

  const ExampleDriverOptions options_;
  client::ApiClient* const client_;
  const std::string cdi_kind_;
  PreparedClaimsCheckpoint checkpoint_;

  Mutex delay_mu_;
  CondVar delay_cancelled_;
  bool delays_cancelled_ GUARDED_BY(delay_mu_) = false;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_
