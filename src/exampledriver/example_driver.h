// ExampleDriver: the node half of the example GPU driver (what
// kubernetes-sigs/dra-example-driver's kubelet plugin does), as
// kubeletplugin::DriverCallbacks.
//
// Prepare: for each claim, fetch the ResourceClaim, check its UID, take the
// allocation results of this driver and the opaque configs for it (class
// first, then claim; later ones win), write one CDI spec per claim
// (`k8s.<driver>/gpu`, devices `<claimUID>-<device>` with GPU_DEVICE_<n>
// env and the config's env) and return the CDI IDs of the common device and
// the claim's devices. Prepared claims are recorded in a PreparedClaimsStore
// in the state directory (a snapshot plus an append-only journal, group
// committed), so a repeated prepare gives the same answer, also after a
// restart (kill -9 included). Unprepare removes the claim's spec file and
// record. The cost of a call does not grow with the claims prepared.
//
// Thread-safe: calls on different claims run in parallel; calls sharing a
// claim run one after the other (ClaimLocks).
#ifndef DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_
#define DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "api/types/resource_claim.h"
#include "api/v1alpha2/types.h"
#include "cdi/spec.h"
#include "client/api_client.h"
#include "common/claim_locks.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "exampledriver/claim_spec_files.h"
#include "exampledriver/prepared_claims_store.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::exampledriver {

struct ExampleDriverOptions {
  std::string driver_name = "gpu.example.com";
  std::string node_name;
  std::filesystem::path cdi_dir;
  std::filesystem::path state_dir;
  // kAlways: a prepare or unprepare is on disk before it is answered.
  SyncMode state_sync = SyncMode::kAlways;
  // Classic DRA (resource.k8s.io/v1alpha2): the node part of `dralloc
  // driver classic-example`. Claims are read as v1alpha2 and prepared from
  // their resource handles (ClassicHandle) of this driver, which must name
  // this node; no ResourceSlice is published.
  bool classic = false;
  // Test knobs: fail every prepare, or those of claims with this name;
  // wait this long at the start of every prepare (unprepare) call.
  bool fail_prepare = false;
  std::string fail_prepare_claim;
  std::chrono::milliseconds prepare_delay{0};
  std::chrono::milliseconds unprepare_delay{0};
};

class ExampleDriver : public kubeletplugin::DriverCallbacks {
 public:
  // Creates the directories, opens the store (a corrupt one is kDataLoss
  // naming the file), writes the common CDI spec and reconciles the claim
  // spec files with the store. `client` must outlive the driver.
  static StatusOr<std::unique_ptr<ExampleDriver>> Create(
      ExampleDriverOptions options, client::ApiClient* client);

  std::map<std::string, kubeletplugin::PrepareResult> PrepareClaims(
      std::span<const kubeletplugin::ClaimRef> claims) override;
  std::map<std::string, Status> UnprepareClaims(
      std::span<const kubeletplugin::ClaimRef> claims) override;

  // Ends --prepare-delay / --unprepare-delay waits early (then those calls
  // go on), so that shutting down does not wait for the delays.
  void CancelDelays();

  // "k8s.<driver>/gpu".
  const std::string& cdi_kind() const { return cdi_kind_; }
  std::filesystem::path ClaimSpecPath(const std::string& claim_uid) const;
  std::filesystem::path CommonSpecPath() const;

 private:
  ExampleDriver(ExampleDriverOptions options, client::ApiClient* client,
                std::unique_ptr<PreparedClaimsStore> store);

  Status WriteCommonSpec() const;
  void WaitDelay(std::chrono::milliseconds delay);
  // The result for one claim; a newly prepared claim (spec file written) is
  // added to `changes`, to be recorded before the call answers.
  kubeletplugin::PrepareResult PrepareClaim(
      const kubeletplugin::ClaimRef& claim, std::vector<ClaimChange>& changes);
  // Reads the claim (resource.k8s.io/v1) and prepares its devices.
  StatusOr<PreparedClaim> PrepareStructuredClaim(
      const kubeletplugin::ClaimRef& claim, const std::string& what) const;
  // Reads the claim (resource.k8s.io/v1alpha2) and prepares the GPUs of its
  // resource handles.
  StatusOr<PreparedClaim> PrepareClassicClaim(
      const kubeletplugin::ClaimRef& claim, const std::string& what) const;
  // The fetched claim is the one the kubelet asked for, and allocated.
  static Status CheckFetched(const kubeletplugin::ClaimRef& claim,
                             const std::string& uid, bool allocated);
  StatusOr<api::ResourceClaim> FetchClaim(
      const kubeletplugin::ClaimRef& claim) const;
  StatusOr<PreparedClaim> PrepareDevices(const api::ResourceClaim& claim,
                                         const std::string& what) const;
  StatusOr<PreparedClaim> PrepareClassicDevices(
      const api::v1alpha2::ResourceClaim& claim, const std::string& what) const;
  // Renders `spec` into prepared.cdi_spec and writes the claim's file.
  Status WriteClaimSpec(const cdi::Spec& spec, const std::string& uid,
                        PreparedClaim& prepared, const std::string& what) const;
  // One claim's unprepare: removes its spec file; adds its erase to
  // `changes` when it is recorded as prepared.
  Status UnprepareClaim(const kubeletplugin::ClaimRef& claim,
                        std::vector<ClaimChange>& changes);

  const ExampleDriverOptions options_;
  client::ApiClient* const client_;
  const std::string cdi_kind_;
  const ClaimSpecFiles spec_files_;
  std::unique_ptr<PreparedClaimsStore> store_;
  ClaimLocks claim_locks_;

  Mutex delay_mu_;
  CondVar delay_cancelled_;
  bool delays_cancelled_ GUARDED_BY(delay_mu_) = false;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_EXAMPLE_DRIVER_H_
