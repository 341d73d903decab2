// `dralloc apiserver`: the Kubernetes-compatible API server on its own.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apiserver/api_server.h"
#include "cli/commands.h"
#include "cli/server_flags.h"
#include "common/log.h"

namespace dralloc::cli {
namespace {

int RunApiServer(const ServerFlags& flags) {
  ServedApi served;
  if (int code = StartApiServer(flags, served); code != kExitOk) return code;
  fmt::print("dralloc apiserver listening on {}\n", served.Url());
  std::fflush(stdout);
  log::Info("apiserver", "listening on {}:{} storage={} revision={}",
            served.options.host, served.server->port(), flags.storage,
            served.store->Revision());
  const int received = WaitForTermination(served.signals);
  log::Info("apiserver", "signal {}: shutting down", received);
  served.server->Stop();
  return kExitOk;
}

}  // namespace

void RegisterApiServerCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<ServerFlags>(
      app, "apiserver",
      "Kubernetes-compatible API server for resource.k8s.io and core objects",
      exit_code, RunApiServer);
  AddServerFlags(command, flags);
}

}  // namespace dralloc::cli
