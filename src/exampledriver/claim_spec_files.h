// ClaimSpecFiles: the example driver's per-claim CDI spec files
// (`<cdi_dir>/k8s.<driver>-gpu_<claimUID>.json`).
//
// Written without fsync: a temporary file renamed into place, so readers
// see the whole file or none. The durable record of a prepared claim is the
// PreparedClaimsStore, which keeps each file's text; Reconcile, run at
// start-up, restores files lost with the page cache (a machine crash) and
// removes this driver's files and temporaries that no prepared claim owns
// (a crash between writing a file and recording the claim, or between
// recording an unprepare and removing the file).
#ifndef DRALLOC_EXAMPLEDRIVER_CLAIM_SPEC_FILES_H_
#define DRALLOC_EXAMPLEDRIVER_CLAIM_SPEC_FILES_H_

#include <filesystem>
#include <string>

#include "cdi/spec.h"
#include "common/status.h"
#include "exampledriver/prepared_claim.h"

namespace dralloc::exampledriver {

class ClaimSpecFiles {
 public:
  // `kind` is the CDI kind ("k8s.<driver>/gpu").
  ClaimSpecFiles(std::filesystem::path cdi_dir, std::string kind);

  std::filesystem::path PathOf(const std::string& claim_uid) const;
  // The common spec's path (never touched by Reconcile).
  std::filesystem::path CommonPath() const;

  // The file text for `spec` (cdiVersion filled in as the minimum its
  // contents need); kInvalidArgument when the spec is not valid CDI.
  StatusOr<std::string> Render(const cdi::Spec& spec,
                               const std::string& claim_uid) const;
  Status Write(const std::string& claim_uid, const std::string& text) const;
  // Removes the claim's file; a missing file is OK.
  Status Remove(const std::string& claim_uid) const;

  // Makes the directory hold exactly the files of `claims` with their text
  // (claims without a recorded text keep whatever file they have).
  Status Reconcile(const PreparedClaims& claims) const;

 private:
  const std::filesystem::path cdi_dir_;
  // "k8s.<driver>-gpu_": the prefix of every file name this driver writes.
  const std::string file_prefix_;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_CLAIM_SPEC_FILES_H_
