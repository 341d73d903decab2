// The flags of commands that talk to an API server as a client (`dralloc
// node`, `dralloc driver example`): a kubeconfig (and context) or a plain
// server URL.
#ifndef DRALLOC_CLI_API_CLIENT_FLAGS_H_
#define DRALLOC_CLI_API_CLIENT_FLAGS_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "client/api_client.h"
#include "common/status.h"

namespace dralloc::cli {

struct ApiClientFlags {
  std::string kubeconfig;
  std::string context;
  std::string server;
};

// --kubeconfig, --context and --server.
void AddApiClientFlags(CLI::App& command, ApiClientFlags& flags);

// An HTTP client for the server the flags name (kInvalidArgument when both
// --server and --kubeconfig are given, or the kubeconfig cannot be used).
StatusOr<std::unique_ptr<client::ApiClient>> ConnectApi(
    const ApiClientFlags& flags, std::string user_agent);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_API_CLIENT_FLAGS_H_
