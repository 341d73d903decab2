#include "cli/security_flags.h"

#include <fmt/format.h>

#include <set>

namespace dralloc::cli {

void AddSecurityFlags(CLI::App& command, SecurityFlags& flags) {
  command.add_option("--tls-cert-file", flags.tls_cert_file,
                     "PEM serving certificate (with intermediates); serve "
                     "HTTPS instead of plain HTTP");
  command.add_option("--tls-private-key-file", flags.tls_private_key_file,
                     "PEM private key of --tls-cert-file");
  command.add_option("--client-ca-file", flags.client_ca_file,
                     "PEM CA bundle: a client certificate it signed "
                     "authenticates as its CN (user) and O (groups)");
  command.add_option("--token-auth-file", flags.token_auth_file,
                     "CSV of static bearer tokens: token,user,uid,\"group1,"
                     "group2\"");
  command.add_option("--anonymous-auth", flags.anonymous_auth,
                     "serve requests without credentials as "
                     "system:anonymous (default false)");
  command.add_option("--authorization-mode", flags.authorization_mode,
                     "comma-separated AlwaysAllow, AlwaysDeny, Node, RBAC "
                     "(default Node,RBAC with TLS)");
  command.add_option("--service-account-key-file",
                     flags.service_account_key_files,
                     "PEM public (or private) key verifying service-account "
                     "tokens; repeatable");
  command.add_option("--service-account-signing-key-file",
                     flags.service_account_signing_key_file,
                     "PEM private key signing service-account tokens "
                     "(TokenRequest, `kubectl create token`)");
  command
      .add_option("--service-account-issuer", flags.service_account_issuer,
                  "the iss of the service-account tokens this server "
                  "issues and accepts")
      ->capture_default_str();
  command
      .add_option("--api-audiences", flags.api_audiences,
                  "audiences a token must carry (default: the issuer)")
      ->delimiter(',');
  command.add_option("--audit-log-path", flags.audit_log_path,
                     "append one audit event (JSON, Metadata level) per "
                     "request to this file ('-': stdout)");
}

StatusOr<std::vector<std::string>> AuthorizationModes(
    const SecurityFlags& flags) {
  const bool tls = flags.serves_tls();
  if (!tls) {
    for (const auto& [name, value] :
         {std::pair{"--tls-private-key-file", &flags.tls_private_key_file},
          std::pair{"--client-ca-file", &flags.client_ca_file},
          std::pair{"--token-auth-file", &flags.token_auth_file},
          std::pair{"--service-account-signing-key-file",
                    &flags.service_account_signing_key_file}}) {
      if (!value->empty()) {
        return InvalidArgumentError(fmt::format(
            "{} needs --tls-cert-file: credentials are only accepted over "
            "TLS (kubectl sends none over plain HTTP)",
            name));
      }
    }
  } else if (flags.tls_private_key_file.empty()) {
    return InvalidArgumentError("--tls-cert-file needs --tls-private-key-file");
  }
  std::string text = flags.authorization_mode;
  if (text.empty()) text = tls ? "Node,RBAC" : "AlwaysAllow";
  std::vector<std::string> modes;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string mode = text.substr(start, comma - start);
    start = comma + 1;
    if (mode != "AlwaysAllow" && mode != "AlwaysDeny" && mode != "Node" &&
        mode != "RBAC") {
      return InvalidArgumentError(fmt::format(
          "--authorization-mode: unknown mode \"{}\": supported values: "
          "\"AlwaysAllow\", \"AlwaysDeny\", \"Node\", \"RBAC\"",
          mode));
    }
    if (!seen.insert(mode).second) {
      return InvalidArgumentError(fmt::format(
          "--authorization-mode: \"{}\" is given more than once", mode));
    }
    if (!tls && mode != "AlwaysAllow") {
      return InvalidArgumentError(fmt::format(
          "--authorization-mode {} needs --tls-cert-file: on plain HTTP "
          "every request is the development user",
          mode));
    }
    modes.push_back(std::move(mode));
  }
  return modes;
}

Status CheckPlainHttpHost(const std::string& host) {
  const bool loopback =
      host == "localhost" || host == "::1" || host.starts_with("127.");
  if (loopback) return OkStatus();
  return InvalidArgumentError(fmt::format(
      "--listen {}: plain HTTP without authentication serves only loopback "
      "addresses (127.0.0.1, ::1, localhost); give --tls-cert-file and "
      "--tls-private-key-file to serve other addresses",
      host));
}

}  // namespace dralloc::cli
