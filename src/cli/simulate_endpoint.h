// SimulateEndpoint: the autoscaler simulation of `dralloc simulate` served by
// `dralloc serve` over the live cluster state, read-only.
//
//   POST /apis/dralloc.io/v1alpha1/simulate/scale-up[?expander=NAME&seed=N]
//        body: NodeGroup documents (YAML, JSON, a JSON array or a List)
//        → 200 and the JSON of `dralloc simulate scale-up -o json`
//   GET|POST /apis/dralloc.io/v1alpha1/simulate/scale-down
//        → 200 and the JSON of `dralloc simulate scale-down -o json`
//
// Each request lists the objects the simulation needs through the API client
// (copies: the control plane keeps running on the real ones), builds a
// ClusterSimulation, plans and answers; nothing is written to the cluster.
// Errors are meta/v1 Status objects: 400 BadRequest for invalid node groups,
// an unknown expander or a bad seed, 405 MethodNotAllowed, 404 NotFound for
// other paths under the prefix, 429 TooManyRequests while another simulation
// runs (one at a time: a simulation can take a core for a second or more),
// 500 when the cluster state cannot be read or loaded.
// Thread-safe: Handle is called from the server's request threads.
#ifndef DRALLOC_CLI_SIMULATE_ENDPOINT_H_
#define DRALLOC_CLI_SIMULATE_ENDPOINT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "apiserver/api_error.h"
#include "apiserver/api_server.h"
#include "apiserver/http_server.h"
#include "client/api_client.h"
#include "common/mutex.h"

namespace dralloc::cli {

inline constexpr std::string_view kSimulatePrefix =
    "/apis/dralloc.io/v1alpha1/simulate/";

class SimulateEndpoint {
 public:
  // `api` must outlive the endpoint; it is only read.
  explicit SimulateEndpoint(client::ApiClient& api) : api_(api) {}

  void Handle(const apiserver::HttpRequest& request,
              apiserver::ResponseWriter& writer) EXCLUDES(running_);

 private:
  // The response document of one simulation, or the error to send.
  apiserver::ApiOr<apiserver::Json> ScaleUp(
      const apiserver::HttpRequest& request);
  apiserver::ApiOr<apiserver::Json> ScaleDown();
  // Copies of the objects a ClusterSimulation loads, as the store has them.
  apiserver::ApiOr<std::vector<api::Object>> ListClusterObjects();

  client::ApiClient& api_;
  // Held while a simulation runs; requests that find it held get 429.
  Mutex running_;
};

// Registers a SimulateEndpoint on `server` (before Start) reading the
// server's own storage in process.
void AddSimulateEndpoint(apiserver::ApiServer& server);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_SIMULATE_ENDPOINT_H_
