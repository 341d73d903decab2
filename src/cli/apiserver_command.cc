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

struct ApiServerFlags {
  std::string listen = "127.0.0.1:6443";
  std::string storage = "sqlite:./dralloc-data";
  std::string log_level = "info";
  std::string version_minor = "33";
};

int RunApiServer(const ApiServerFlags& flags) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  apiserver::ApiServerOptions options;
  if (!SplitListen(flags.listen, options.host, options.port)) {
    fmt::print(stderr, "--listen \"{}\": expected HOST:PORT\n", flags.listen);
    return kExitBadInput;
  }
  options.version_minor = flags.version_minor;
  auto store = store::OpenStore(flags.storage);
  if (!store.ok()) {
    fmt::print(stderr, "{}\n", store.status().message());
    return kExitBadInput;
  }
  // Signals are taken synchronously by this thread; block them first so
  // every server thread inherits the mask.
  const sigset_t signals = BlockTerminationSignals();

  apiserver::ApiServer server(options, **store);
  if (Status s = server.Start(); !s.ok()) {
    fmt::print(stderr, "{}\n", s.message());
    return kExitInvalid;
  }
  fmt::print("dralloc apiserver listening on http://{}:{}\n", options.host,
             server.port());
  std::fflush(stdout);
  log::Info("apiserver", "listening on {}:{} storage={} revision={}",
            options.host, server.port(), flags.storage, (*store)->Revision());
  const int received = WaitForTermination(signals);
  log::Info("apiserver", "signal {}: shutting down", received);
  server.Stop();
  return kExitOk;
}

}  // namespace

void RegisterApiServerCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ApiServerFlags>();
  CLI::App* command = app.add_subcommand(
      "apiserver",
      "Kubernetes-compatible API server for resource.k8s.io and core objects");
  command
      ->add_option("--listen", flags->listen,
                   "HOST:PORT to serve plain HTTP on (port 0: any free "
                   "port)")
      ->capture_default_str();
  command
      ->add_option("--storage", flags->storage,
                   "sqlite:DIR (durable) or memory:")
      ->capture_default_str();
  command
      ->add_option("--log-level", flags->log_level,
                   "debug, info, warn or error")
      ->capture_default_str();
  command
      ->add_option("--version-minor", flags->version_minor,
                   "minor version reported by /version (kubectl's "
                   "dispatcher picks its kubectl by it)")
      ->capture_default_str();
  command->callback([flags, &exit_code] { exit_code = RunApiServer(*flags); });
}

}  // namespace dralloc::cli
