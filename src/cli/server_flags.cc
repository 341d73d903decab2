#include "cli/server_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <utility>

#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "common/log.h"
#include "store/store_factory.h"

namespace dralloc::cli {

void AddServerFlags(CLI::App& command, ServerFlags& flags) {
  command
      .add_option("--listen", flags.listen,
                  "HOST:PORT to serve plain HTTP on (port 0: any free port)")
      ->capture_default_str();
  command
      .add_option("--storage", flags.storage,
                  "sqlite:DIR (durable, one server), "
                  "etcd:http://HOST:PORT[,http://HOST:PORT...] (an etcd "
                  "cluster that several servers can share) or memory:")
      ->capture_default_str();
  command
      .add_option("--etcd-prefix", flags.etcd_prefix,
                  "the etcd key prefix every object is stored under")
      ->capture_default_str();
  command
      .add_option("--etcd-compaction-interval", flags.etcd_compaction_interval,
                  "how often etcd's history is compacted (e.g. 5m; 0: never)")
      ->capture_default_str();
  command
      .add_option("--log-level", flags.log_level, "debug, info, warn or error")
      ->capture_default_str();
  command
      .add_option("--version-minor", flags.version_minor,
                  "minor version reported by /version (kubectl's dispatcher "
                  "picks its kubectl by it)")
      ->capture_default_str();
  AddSecurityFlags(command, flags.security);
}

int PrepareServer(const ServerFlags& flags,
                  apiserver::ApiServerOptions& options,
                  std::unique_ptr<store::Store>& store) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  if (!SplitListen(flags.listen, options.host, options.port)) {
    fmt::print(stderr, "--listen \"{}\": expected HOST:PORT\n", flags.listen);
    return kExitBadInput;
  }
  options.version_minor = flags.version_minor;
  const auto modes = AuthorizationModes(flags.security);
  if (!modes.ok()) {
    fmt::print(stderr, "{}\n", modes.status().message());
    return kExitBadInput;
  }
  if (!flags.security.serves_tls()) {
    if (Status s = CheckPlainHttpHost(options.host); !s.ok()) {
      fmt::print(stderr, "{}\n", s.message());
      return kExitBadInput;
    }
  }
  options.audit_log_path = flags.security.audit_log_path;
  store::OpenOptions open_options;
  open_options.etcd_prefix = flags.etcd_prefix;
  const auto compaction = ParseGoDuration(flags.etcd_compaction_interval,
                                          "--etcd-compaction-interval");
  if (!compaction.ok()) {
    fmt::print(stderr, "{}\n", compaction.status().message());
    return kExitBadInput;
  }
  open_options.etcd_compaction_interval =
      std::chrono::duration_cast<std::chrono::seconds>(*compaction);
  auto opened = store::OpenStore(flags.storage, open_options);
  if (!opened.ok()) {
    fmt::print(stderr, "{}\n", opened.status().message());
    return opened.status().code() == StatusCode::kInvalidArgument
               ? kExitBadInput
               : kExitInvalid;
  }
  store = std::move(*opened);
  return kExitOk;
}

int StartApiServer(
    const ServerFlags& flags, ServedApi& served,
    const std::function<void(apiserver::ApiServer&)>& before_start) {
  if (int code = PrepareServer(flags, served.options, served.store);
      code != kExitOk) {
    return code;
  }
  auto security =
      SecureServing::Configure(flags.security, *served.store, served.options);
  if (!security.ok()) {
    fmt::print(stderr, "{}\n", security.status().message());
    return kExitBadInput;
  }
  served.security = std::move(*security);
  served.signals = BlockTerminationSignals();
  served.server =
      std::make_unique<apiserver::ApiServer>(served.options, *served.store);
  if (Status s = served.security->Attach(*served.server); !s.ok()) {
    fmt::print(stderr, "{}\n", s.message());
    return kExitInvalid;
  }
  if (before_start) before_start(*served.server);
  if (Status s = served.server->Start(); !s.ok()) {
    fmt::print(stderr, "{}\n", s.message());
    return kExitInvalid;
  }
  served.tls = flags.security.serves_tls();
  if (!served.tls) {
    log::Warn("apiserver",
              "serving plain HTTP on {} without authentication: every "
              "request acts as system:masters. For local development only; "
              "give --tls-cert-file and --tls-private-key-file (see "
              "`dralloc certs init`) to serve securely",
              served.Url());
  }
  return kExitOk;
}

std::string ServedApi::Url() const {
  const bool v6 = options.host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", tls ? "https" : "http", v6 ? "[" : "",
                     options.host, v6 ? "]" : "", server ? server->port() : 0);
}

void AddPlacementFlag(CLI::App& command, std::string& placement,
                      std::string description) {
  command.add_option("--placement", placement, std::move(description))
      ->check(CLI::IsMember({"default", "pack", "spread"}));
}

void AddBindingTimeoutFlag(CLI::App& command, int& seconds) {
  command
      .add_option("--binding-timeout", seconds,
                  "seconds a pod waits for its devices' binding conditions "
                  "before it is sent back to scheduling")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

scheduler::Placement ParsePlacement(const std::string& placement) {
  if (placement == "pack") return scheduler::Placement::kPack;
  if (placement == "spread") return scheduler::Placement::kSpread;
  return scheduler::Placement::kDefault;
}

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

sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

int WaitForTermination(const sigset_t& signals) {
  int received = 0;
  sigwait(&signals, &received);
  return received;
}

bool ApplyLogLevel(const std::string& level) {
  log::Level parsed;
  if (!log::ParseLevel(level, parsed)) {
    fmt::print(stderr, "--log-level: expected debug, info, warn or error\n");
    return false;
  }
  log::SetLevel(parsed);
  return true;
}

}  // namespace dralloc::cli
