// EnsureBootstrapPolicy: the default RBAC policy a cluster starts with
// (rbac::BootstrapClusterRoles and BootstrapClusterRoleBindings) written
// through ResourceStorage at start-up, as upstream's reconciliation on
// start: a missing object is created; an existing one whose
// rbac.authorization.kubernetes.io/autoupdate annotation is not "false"
// gets the rules (roles) or subjects (bindings) it lacks added, keeping
// what users added; one annotated autoupdate=false is left alone.
#ifndef DRALLOC_APISERVER_RBAC_BOOTSTRAP_H_
#define DRALLOC_APISERVER_RBAC_BOOTSTRAP_H_

#include "apiserver/resource_storage.h"
#include "common/status.h"

namespace dralloc::apiserver {

// Writes as an in-process writer (no user). Returns the first failure.
Status EnsureBootstrapPolicy(ResourceStorage& storage);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RBAC_BOOTSTRAP_H_
