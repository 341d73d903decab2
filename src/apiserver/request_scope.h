// The plain values of an API request that ResourceStorage serves: which
// resource it addresses and the options of writes and lists.
#ifndef DRALLOC_APISERVER_REQUEST_SCOPE_H_
#define DRALLOC_APISERVER_REQUEST_SCOPE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "api/resource_registry.h"
#include "apiserver/decoded_object_cache.h"
#include "apiserver/selectors.h"
#include "auth/user_info.h"

namespace dralloc::apiserver {

// Which resource a request addresses.
struct RequestScope {
  const api::ResourceInfo* info = nullptr;
  std::string version;      // the request's version ("v1beta1")
  std::string namespace_;   // "" for cluster-scoped or all namespaces
  std::string name;         // "" for collections
  std::string subresource;  // "", "status", "binding" or "finalize"
};

enum class FieldValidation { kStrict, kWarn, kIgnore };

struct WriteOptions {
  bool dry_run = false;
  std::string field_manager;
  FieldValidation field_validation = FieldValidation::kWarn;
  bool force = false;  // server-side apply: take over conflicting fields
  // In-process callers: return the written object decoded
  // (WriteResult::object) instead of a body, and share it through the
  // decoded-object cache.
  bool want_object = false;
  // In-process callers: an update of the object writes its status too
  // (otherwise kept as stored), in one store write where the API takes an
  // update and a status update. Not settable over HTTP.
  bool with_status = false;
  // Who writes, for admission plugins; nullptr for in-process components.
  const auth::UserInfo* user = nullptr;
};

// A successful write: the object in the request's version (`body`), or
// decoded in the storage version (`object`) for WriteOptions::want_object.
struct WriteResult {
  int code = 200;  // 200 or 201
  std::string body;
  std::vector<std::string> warnings;
  SharedObject object;
};

struct ListOptions {
  LabelSelector labels;
  FieldSelector fields;
  size_t limit = 0;
  std::string continue_token;
  // As sent ("" when absent); List applies upstream's rules to them.
  std::string resource_version;
  std::string resource_version_match;
  bool send_initial_events = false;  // the parameter was present
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_REQUEST_SCOPE_H_
