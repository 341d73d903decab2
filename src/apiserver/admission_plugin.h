// AdmissionPlugin: a validating admission step of every write (upstream's
// admission.ValidationInterface), for the rules that depend on who writes
// (NodeRestriction) or on other objects (ResourceQuota).
//
// ResourceStorage calls each plugin after the registry's own rules
// (defaulting, validation, immutability) and before the store write: once
// per create, once per attempt of an update (an update that lost a race is
// admitted again against the newer object), once per delete. A refusal
// stores nothing and is returned to the client as it is.
#ifndef DRALLOC_APISERVER_ADMISSION_PLUGIN_H_
#define DRALLOC_APISERVER_ADMISSION_PLUGIN_H_

#include <optional>

#include "api/object.h"
#include "apiserver/api_error.h"
#include "apiserver/request_scope.h"
#include "auth/user_info.h"

namespace dralloc::apiserver {

enum class AdmissionOperation { kCreate, kUpdate, kDelete };

struct AdmissionRequest {
  AdmissionOperation operation;
  const RequestScope& scope;  // scope.name is "" on a create
  // Who writes; nullptr for the server's in-process components (scheduler,
  // controllers, garbage collector), which plugins do not restrict.
  const auth::UserInfo* user;
  // The object to store (create, update); nullptr on delete.
  const api::Object* object;
  // The stored object (update, delete); nullptr on create.
  const api::Object* old_object;
  bool dry_run;
};

class AdmissionPlugin {
 public:
  virtual ~AdmissionPlugin() = default;
  // nullopt admits; an error refuses the write. Thread-safe.
  virtual std::optional<ApiError> Admit(const AdmissionRequest& request) = 0;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_ADMISSION_PLUGIN_H_
