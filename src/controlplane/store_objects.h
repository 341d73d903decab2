// StoreObjects: a set of objects written into an API, as `kubectl apply`
// of the whole set would leave them, for offline runs over a cluster's
// state (the what-if, the autoscaler simulation).
#ifndef DRALLOC_CONTROLPLANE_STORE_OBJECTS_H_
#define DRALLOC_CONTROLPLANE_STORE_OBJECTS_H_

#include <vector>

#include "api/object.h"
#include "client/api_client.h"
#include "common/status.h"

namespace dralloc::controlplane {

// Creates the objects in creation order (what an object refers to first);
// namespaced objects without a namespace go to "default", and namespaces
// used but not given are created; Events are skipped. A claim given with
// status.allocation keeps its status (in-use state). Every object that
// fails is named in the kInvalidArgument returned (one line each); the
// others are stored.
Status StoreObjects(client::ApiClient& api, std::vector<api::Object> objects);

}  // namespace dralloc::controlplane

#endif  // DRALLOC_CONTROLPLANE_STORE_OBJECTS_H_
