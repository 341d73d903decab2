// Flags and process plumbing shared by the long-running commands
// (`dralloc apiserver`, `dralloc serve`, `dralloc scheduler`).
#ifndef DRALLOC_CLI_SERVER_FLAGS_H_
#define DRALLOC_CLI_SERVER_FLAGS_H_

#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/api_server.h"
#include "cli/secure_serving.h"
#include "cli/security_flags.h"
#include "scheduler/dra_plugin.h"
#include "store/store.h"

namespace dralloc::cli {

// The flags every API-serving command takes.
struct ServerFlags {
  std::string listen = "127.0.0.1:6443";
  std::string storage = "sqlite:./dralloc-data";
  std::string etcd_prefix = "/registry";
  std::string etcd_compaction_interval = "5m";
  std::string log_level = "info";
  std::string version_minor = "33";
  SecurityFlags security;
};
void AddServerFlags(CLI::App& command, ServerFlags& flags);
// Applies the log level and opens the store; on failure prints why and
// returns the exit code (kExitOk otherwise).
int PrepareServer(const ServerFlags& flags,
                  apiserver::ApiServerOptions& options,
                  std::unique_ptr<store::Store>& store);

// An API server over the store the flags name, with the termination signals
// blocked in the starting thread. Members are destroyed server first.
struct ServedApi {
  apiserver::ApiServerOptions options;
  std::unique_ptr<store::Store> store;
  // Stopped after the server, before the store.
  std::unique_ptr<SecureServing> security;
  std::unique_ptr<apiserver::ApiServer> server;
  sigset_t signals;
  bool tls = false;
  // "https://127.0.0.1:6443" (or http://), once started.
  std::string Url() const;
};
// Prepares the store (PrepareServer), blocks the termination signals so every
// server thread inherits the mask, and starts the server. On failure prints
// why and returns the exit code (kExitOk otherwise). `before_start`, when
// given, may register endpoints and metrics on the server before it
// listens.
int StartApiServer(
    const ServerFlags& flags, ServedApi& served,
    const std::function<void(apiserver::ApiServer&)>& before_start = nullptr);

// --placement for the commands that run the scheduler, and its value.
void AddPlacementFlag(
    CLI::App& command, std::string& placement,
    std::string description = "default (first fit), pack or spread");
scheduler::Placement ParsePlacement(const std::string& placement);

// --binding-timeout: how long PreBind waits for the binding conditions of
// allocated devices (KEP-5007; upstream's BindingTimeout, 600 s).
void AddBindingTimeoutFlag(CLI::App& command, int& seconds);

// "host:port" (or "[v6]:port") → parts; false when malformed.
bool SplitListen(const std::string& listen, std::string& host, uint16_t& port);

// Blocks SIGINT and SIGTERM in this thread (and every thread started after
// it) so WaitForTermination can take them; ignores SIGPIPE.
sigset_t BlockTerminationSignals();
// Waits for SIGINT or SIGTERM; returns the signal.
int WaitForTermination(const sigset_t& signals);

// Applies --log-level; false (with a message on stderr) when unknown.
bool ApplyLogLevel(const std::string& level);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_SERVER_FLAGS_H_
