// HttpApiClient: the ApiClient over HTTP/1.1 against any Kubernetes-
// compatible API server, configured from a kubeconfig.
//
// Requests reuse keep-alive connections from a small pool, so the client may
// be called from many threads at once; a request whose pooled connection
// turns out to be closed is retried once on a fresh connection. Every watch
// has its own connection. Objects go over the wire in the storage version of
// their resource (ResourceInfo::versions[0]).
//
// https needs the library built with OpenSSL (DRALLOC_CLIENT_WITH_TLS);
// without it NewHttpApiClient refuses https servers with kUnimplemented.
#ifndef DRALLOC_CLIENT_HTTP_API_CLIENT_H_
#define DRALLOC_CLIENT_HTTP_API_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>

#include "client/api_client.h"
#include "client/kubeconfig.h"
#include "common/status.h"

namespace dralloc::client {

struct HttpClientOptions {
  std::string user_agent = "dralloc/0.1";
  // Bound of connecting plus one request and its response (not of watches,
  // which stay open until stopped).
  std::chrono::milliseconds request_timeout{30000};
};

// Errors: kInvalidArgument (a malformed server URL or TLS material),
// kUnimplemented (https without TLS support).
StatusOr<std::unique_ptr<ApiClient>> NewHttpApiClient(
    const Kubeconfig& config, HttpClientOptions options = {});

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_HTTP_API_CLIENT_H_
