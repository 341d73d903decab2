// The flags of who may reach an API-serving command and what they may do
// (`dralloc apiserver`, `dralloc serve`), with kube-apiserver's names:
// TLS serving, authentication (client certificates, a token file,
// service-account tokens, anonymous), authorization modes, and the audit
// log.
#ifndef DRALLOC_CLI_SECURITY_FLAGS_H_
#define DRALLOC_CLI_SECURITY_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace dralloc::cli {

struct SecurityFlags {
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string client_ca_file;
  std::string token_auth_file;
  bool anonymous_auth = false;
  // Comma-separated: AlwaysAllow, AlwaysDeny, Node, RBAC. Empty: Node,RBAC
  // when serving TLS, AlwaysAllow on the plain-HTTP development port.
  std::string authorization_mode;
  std::vector<std::string> service_account_key_files;
  std::string service_account_signing_key_file;
  std::string service_account_issuer =
      "https://kubernetes.default.svc.cluster.local";
  std::vector<std::string> api_audiences;
  std::string audit_log_path;

  bool serves_tls() const { return !tls_cert_file.empty(); }
};

void AddSecurityFlags(CLI::App& command, SecurityFlags& flags);

// The authorization modes `flags` asks for, in order (the default filled
// in); InvalidArgument naming the flag for an unknown mode, a mode that
// needs TLS on plain HTTP, and authentication flags without TLS.
StatusOr<std::vector<std::string>> AuthorizationModes(
    const SecurityFlags& flags);

// InvalidArgument unless `host` is a loopback address (127.0.0.0/8, ::1,
// localhost): plain HTTP without authentication serves only those.
Status CheckPlainHttpHost(const std::string& host);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_SECURITY_FLAGS_H_
