// `dralloc apiserver`: the Kubernetes-compatible API server on its own.
#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <memory>

#include "apiserver/api_server.h"
#include "cli/commands.h"
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

// "host:port" → parts; false when malformed.
bool SplitListen(const std::string& listen, std::string& host, uint16_t& port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = listen.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5) return false;
  for (char c : port_text) {
    if (c < '0' || c > '9') return false;
  }
  const int value = std::stoi(port_text);
  if (value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return !host.empty();
}

int RunApiServer(const ApiServerFlags& flags) {
  log::Level level;
  if (!log::ParseLevel(flags.log_level, level)) {
    fmt::print(stderr, "--log-level: expected debug, info, warn or error\n");
    return kExitBadInput;
  }
  log::SetLevel(level);
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
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

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
  int received = 0;
  sigwait(&signals, &received);
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
