// `dralloc apiserver`: the Kubernetes-compatible API server on its own.
#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <memory>

#include "apiserver/api_server.h"
#include "cli/commands.h"
#include "cli/server_flags.h"
#include "common/log.h"
#include "store/store_factory.h"

namespace dralloc::cli {
namespace {

int RunApiServer(const ServerFlags& flags) {
  apiserver::ApiServerOptions options;
  std::unique_ptr<store::Store> store;
  if (int code = PrepareServer(flags, options, store); code != kExitOk) {
    return code;
  }
  // Signals are taken synchronously by this thread; block them first so
  // every server thread inherits the mask.
  const sigset_t signals = BlockTerminationSignals();

  apiserver::ApiServer server(options, *store);
  if (Status s = server.Start(); !s.ok()) {
    fmt::print(stderr, "{}\n", s.message());
    return kExitInvalid;
  }
  fmt::print("dralloc apiserver listening on http://{}:{}\n", options.host,
             server.port());
  std::fflush(stdout);
  log::Info("apiserver", "listening on {}:{} storage={} revision={}",
            options.host, server.port(), flags.storage, store->Revision());
  const int received = WaitForTermination(signals);
  log::Info("apiserver", "signal {}: shutting down", received);
  server.Stop();
  return kExitOk;
}

}  // namespace

void RegisterApiServerCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ServerFlags>();
  CLI::App* command = app.add_subcommand(
      "apiserver",
      "Kubernetes-compatible API server for resource.k8s.io and core objects");
  AddServerFlags(*command, *flags);
  command->callback([flags, &exit_code] { exit_code = RunApiServer(*flags); });
}

}  // namespace dralloc::cli
