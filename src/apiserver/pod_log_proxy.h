// PodLogProxy: GET /api/v1/namespaces/{ns}/pods/{name}/log, as
// kube-apiserver serves it: the container is checked against the pod
// (upstream's words for a missing or ambiguous one), the pod's node gives
// the kubelet's address (status.addresses InternalIP, then Hostname, and
// status.daemonEndpoints.kubeletEndpoint.Port), and the kubelet's
// /containerLogs response is relayed as it arrives (so `follow` streams).
// Query parameters passed on: follow, previous, tailLines, timestamps,
// limitBytes, sinceSeconds.
#ifndef DRALLOC_APISERVER_POD_LOG_PROXY_H_
#define DRALLOC_APISERVER_POD_LOG_PROXY_H_

#include <string>

#include "apiserver/api_error.h"
#include "apiserver/http_server.h"
#include "apiserver/request_scope.h"
#include "apiserver/resource_storage.h"

namespace dralloc::apiserver {

// Where a pod's container log is: the kubelet's host, port and the
// request target on it.
struct KubeletLogLocation {
  std::string host;
  uint16_t port = 0;
  std::string target;  // /containerLogs/ns/pod/container?...
};

// The kubelet location of the log `request` asks for (pod and node JSON as
// stored), or the API error upstream gives.
ApiOr<KubeletLogLocation> PodLogLocation(const HttpRequest& request,
                                         const std::string& pod_json,
                                         const std::string& node_json);

// Serves `request` for the pod of `scope` (subresource "log").
void ServePodLog(ResourceStorage& storage, const RequestScope& scope,
                 const HttpRequest& request, ResponseWriter& writer);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_POD_LOG_PROXY_H_
