#include "cli/api_client_flags.h"

#include <utility>

#include "client/http_api_client.h"
#include "client/kubeconfig.h"

namespace dralloc::cli {

void AddApiClientFlags(CLI::App& command, ApiClientFlags& flags) {
  command.add_option("--kubeconfig", flags.kubeconfig,
                     "kubeconfig file (default: $KUBECONFIG, then "
                     "~/.kube/config)");
  command.add_option("--context", flags.context, "kubeconfig context");
  command.add_option("--server", flags.server,
                     "API server URL (instead of a kubeconfig)");
}

StatusOr<std::unique_ptr<client::ApiClient>> ConnectApi(
    const ApiClientFlags& flags, std::string user_agent) {
  if (!flags.server.empty() && !flags.kubeconfig.empty()) {
    return InvalidArgumentError("give --server or --kubeconfig, not both");
  }
  client::Kubeconfig config;
  if (!flags.server.empty()) {
    config.server = flags.server;
  } else {
    ASSIGN_OR_RETURN(config,
                     client::LoadKubeconfig(flags.kubeconfig, flags.context));
  }
  client::HttpClientOptions http;
  http.user_agent = std::move(user_agent);
  return client::NewHttpApiClient(config, http);
}

}  // namespace dralloc::cli
