#include "load/target_flags.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include "client/kubeconfig.h"
#include "load/tls_client_context.h"

namespace dralloc::load {
namespace {

StatusOr<std::string> ReadFlagFile(std::string_view flag,
                                   const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return NotFoundError(
        fmt::format("{} {}: cannot open the file", flag, path));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (text.str().empty()) {
    return InvalidArgumentError(
        fmt::format("{} {}: file is empty", flag, path));
  }
  return text.str();
}

// Overwrites `value` with the contents of `path` when the flag was given.
Status OverrideFromFile(std::string_view flag, const std::string& path,
                        std::string& value) {
  if (path.empty()) return OkStatus();
  ASSIGN_OR_RETURN(value, ReadFlagFile(flag, path));
  return OkStatus();
}

StatusOr<client::Kubeconfig> LoadKubeconfigFlag(const std::string& path) {
  if (path.empty()) return client::Kubeconfig{};
  StatusOr<client::Kubeconfig> config = client::LoadKubeconfig(path);
  if (!config.ok()) {
    return Status(
        config.status().code(),
        fmt::format("--kubeconfig {}: {}", path, config.status().message()));
  }
  return config;
}

Status RejectTlsFlagsForPlainHttp(const TargetFlags& flags) {
  const std::pair<std::string_view, std::string_view> tls_flags[] = {
      {"--ca", flags.ca_file},
      {"--cert", flags.cert_file},
      {"--key", flags.key_file}};
  for (const auto& [flag, value] : tls_flags) {
    if (!value.empty()) {
      return InvalidArgumentError(
          fmt::format("{} needs an https:// server", flag));
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<LoadTarget> ResolveLoadTarget(const TargetFlags& flags) {
  ASSIGN_OR_RETURN(client::Kubeconfig config,
                   LoadKubeconfigFlag(flags.kubeconfig));
  const std::string& server =
      flags.server.empty() ? config.server : flags.server;
  if (server.empty()) {
    return InvalidArgumentError(
        "no server: give --server, or --kubeconfig with a cluster server");
  }
  ASSIGN_OR_RETURN(LoadTarget target, ParseLoadTarget(server));
  const std::string& token = flags.token.empty() ? config.token : flags.token;
  if (!token.empty()) target.authorization = "Bearer " + token;
  if (!target.tls) {
    RETURN_IF_ERROR(RejectTlsFlagsForPlainHttp(flags));
    return target;
  }
  TlsClientCredentials credentials{
      .certificate_authority_pem = std::move(config.certificate_authority_data),
      .client_certificate_pem = std::move(config.client_certificate_data),
      .client_key_pem = std::move(config.client_key_data),
      .insecure_skip_verify = config.insecure_skip_tls_verify};
  RETURN_IF_ERROR(OverrideFromFile("--ca", flags.ca_file,
                                   credentials.certificate_authority_pem));
  RETURN_IF_ERROR(OverrideFromFile("--cert", flags.cert_file,
                                   credentials.client_certificate_pem));
  RETURN_IF_ERROR(
      OverrideFromFile("--key", flags.key_file, credentials.client_key_pem));
  ASSIGN_OR_RETURN(target.tls_context, MakeTlsClientContext(credentials));
  return target;
}

}  // namespace dralloc::load
