// dralloc certs: the certificates and kubeconfigs of a TLS cluster.
//
//   dralloc certs init DIR --server URL [--hosts NAMES,IPS] [--nodes N,...]
//       writes DIR/ca.crt, ca.key, apiserver.crt, apiserver.key, sa.key,
//       sa.pub, admin.kubeconfig (admin in system:masters),
//       scheduler.kubeconfig, controller-manager.kubeconfig and
//       node-<name>.kubeconfig per node (system:node:<name> in
//       system:nodes). The serving certificate covers --hosts plus
//       localhost, 127.0.0.1 and the in-cluster kubernetes.default names.
//   dralloc certs kubeconfig DIR --user NAME [--groups G,...] --out FILE
//       one more client kubeconfig signed by DIR/ca.key, pointing at the
//       server of DIR/admin.kubeconfig unless --server is given.
//
// Existing files are kept (exit 1 naming the file) unless --force. Exit 0:
// written (each path printed); 1: a file exists or cannot be written;
// 2: bad flags.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "pki/cluster_pki.h"

namespace dralloc::cli {
namespace {

struct ValidityFlags {
  std::string ca_validity = "87600h";
  std::string cert_validity = "8760h";
};

struct CertsInitOptions {
  std::string directory;
  std::string server;
  std::string hosts;
  std::vector<std::string> nodes;
  ValidityFlags validity;
  bool force = false;
};

struct CertsKubeconfigOptions {
  std::string directory;
  std::string server;
  std::string user;
  std::vector<std::string> groups;
  std::string out;
  ValidityFlags validity;
  bool force = false;
};

int ExitCodeFor(const Status& status) {
  fmt::print(stderr, "error: {}\n", status.message());
  return status.code() == StatusCode::kInvalidArgument ? kExitBadInput
                                                       : kExitInvalid;
}

// A validity of `flag_value` (a Go duration, positive) from now, backdated
// five minutes for clocks a little behind.
StatusOr<pki::Validity> ValidityOf(const std::string& flag_value,
                                   std::string_view flag) {
  ASSIGN_OR_RETURN(std::chrono::milliseconds duration,
                   ParseGoDuration(flag_value, flag));
  if (duration < std::chrono::minutes(1)) {
    return InvalidArgumentError(
        fmt::format("{}: \"{}\" must be at least 1m", flag, flag_value));
  }
  return pki::Validity{
      .not_before = std::chrono::minutes(-5),
      .validity = std::chrono::duration_cast<std::chrono::seconds>(duration)};
}

int RunInit(const CertsInitOptions& options) {
  pki::ClusterPkiOptions pki_options;
  pki_options.directory = options.directory;
  pki_options.server = options.server;
  pki_options.nodes = options.nodes;
  pki_options.overwrite = options.force;
  auto names = pki::ParseHosts(options.hosts, "--hosts");
  if (!names.ok()) return ExitCodeFor(names.status());
  pki_options.serving_names = std::move(*names);
  auto ca_validity = ValidityOf(options.validity.ca_validity, "--ca-validity");
  if (!ca_validity.ok()) return ExitCodeFor(ca_validity.status());
  auto cert_validity =
      ValidityOf(options.validity.cert_validity, "--cert-validity");
  if (!cert_validity.ok()) return ExitCodeFor(cert_validity.status());
  pki_options.ca_validity = *ca_validity;
  pki_options.cert_validity = *cert_validity;
  auto written = pki::InitClusterPki(pki_options);
  if (!written.ok()) return ExitCodeFor(written.status());
  for (const std::string& path : *written) fmt::print("wrote {}\n", path);
  return kExitOk;
}

int RunKubeconfig(const CertsKubeconfigOptions& options) {
  pki::ClientKubeconfigOptions kubeconfig;
  kubeconfig.directory = options.directory;
  kubeconfig.server = options.server;
  kubeconfig.user = options.user;
  kubeconfig.groups = options.groups;
  kubeconfig.output_path = options.out;
  kubeconfig.overwrite = options.force;
  auto validity = ValidityOf(options.validity.cert_validity, "--cert-validity");
  if (!validity.ok()) return ExitCodeFor(validity.status());
  kubeconfig.validity = *validity;
  if (Status status = pki::WriteClientKubeconfig(kubeconfig); !status.ok()) {
    return ExitCodeFor(status);
  }
  fmt::print("wrote {}\n", options.out);
  return kExitOk;
}

void RegisterInit(CLI::App& certs, int& exit_code) {
  auto [command, options] = AddCommand<CertsInitOptions>(
      certs, "init",
      "create a cluster CA, the API server's serving certificate, the "
      "service-account key and client kubeconfigs in DIR",
      exit_code, RunInit);
  command.add_option("DIR", options.directory, "output directory")->required();
  command
      .add_option("--server", options.server,
                  "API server URL the kubeconfigs point at")
      ->required();
  command.add_option("--hosts", options.hosts,
                     "DNS names and IP addresses of the serving certificate "
                     "(comma-separated; localhost and 127.0.0.1 are always "
                     "included)");
  command
      .add_option("--nodes", options.nodes,
                  "nodes to write node-<name>.kubeconfig for")
      ->delimiter(',');
  command.add_option("--ca-validity", options.validity.ca_validity,
                     "validity of the CA (Go duration)");
  command.add_option("--cert-validity", options.validity.cert_validity,
                     "validity of the other certificates (Go duration)");
  command.add_flag("--force", options.force, "replace existing files");
}

void RegisterKubeconfig(CLI::App& certs, int& exit_code) {
  auto [command, options] = AddCommand<CertsKubeconfigOptions>(
      certs, "kubeconfig",
      "write a client kubeconfig with a certificate signed by DIR/ca.key",
      exit_code, RunKubeconfig);
  command.add_option("DIR", options.directory, "directory of certs init")
      ->required();
  command.add_option("--user", options.user, "user name (certificate CN)")
      ->required();
  command
      .add_option("--groups", options.groups,
                  "groups (certificate O values, comma-separated)")
      ->delimiter(',');
  command.add_option("--out", options.out, "kubeconfig file to write")
      ->required();
  command.add_option("--server", options.server,
                     "API server URL (default: that of DIR/admin.kubeconfig)");
  command.add_option("--cert-validity", options.validity.cert_validity,
                     "validity of the certificate (Go duration)");
  command.add_flag("--force", options.force, "replace an existing file");
}

}  // namespace

void RegisterCertsCommand(CLI::App& app, int& exit_code) {
  CLI::App* certs = app.add_subcommand(
      "certs", "certificates and kubeconfigs for a TLS cluster");
  certs->require_subcommand(1);
  RegisterInit(*certs, exit_code);
  RegisterKubeconfig(*certs, exit_code);
}

}  // namespace dralloc::cli
