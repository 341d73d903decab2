#include "pki/cluster_pki.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "auth/user_info.h"
#include "pki/kubeconfig_writer.h"
#include "pki/output_file.h"

namespace dralloc::pki {
namespace {

struct PlannedFile {
  std::string name;
  std::string content;
  mode_t mode;
};

// A lowercase RFC 1123 subdomain, as node names are.
bool IsNodeName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (name.front() == '-' || name.front() == '.' || name.back() == '-' ||
      name.back() == '.') {
    return false;
  }
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '.')) {
      return false;
    }
  }
  return name.find("..") == std::string_view::npos;
}

Status EnsureDirectory(const std::string& directory) {
  if (::mkdir(directory.c_str(), 0700) == 0 || errno == EEXIST) {
    struct stat info;
    if (::stat(directory.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      return Status();
    }
    return FailedPreconditionError(
        fmt::format("{} is not a directory", directory));
  }
  return FailedPreconditionError(fmt::format("creating directory {}: {}",
                                             directory, std::strerror(errno)));
}

std::string JoinPath(const std::string& directory, const std::string& name) {
  if (directory.empty() || directory.back() == '/') return directory + name;
  return directory + "/" + name;
}

StatusOr<PlannedFile> ClientKubeconfigFile(const CertificateAuthority& ca,
                                           const std::string& ca_pem,
                                           const std::string& server,
                                           std::string name,
                                           CertificateSpec spec) {
  ASSIGN_OR_RETURN(IssuedCertificate issued, ca.Issue(spec));
  ClientKubeconfig config;
  config.server = server;
  config.user_name = spec.common_name;
  config.ca_pem = ca_pem;
  config.client_certificate_pem = std::move(issued.certificate_pem);
  config.client_key_pem = std::move(issued.key_pem);
  return PlannedFile{std::move(name), RenderKubeconfig(config),
                     kSecretFileMode};
}

CertificateSpec ClientSpec(std::string user, std::vector<std::string> groups,
                           const Validity& validity) {
  return CertificateSpec{.common_name = std::move(user),
                         .organizations = std::move(groups),
                         .alt_names = {},
                         .usage = CertificateUsage::kClient,
                         .validity = validity};
}

// The CA, the serving certificate and the service-account key files.
StatusOr<std::vector<PlannedFile>> PlanKeyFiles(
    const CertificateAuthority& ca, const ClusterPkiOptions& options) {
  std::vector<PlannedFile> files;
  ASSIGN_OR_RETURN(std::string ca_pem, ca.CertificatePem());
  ASSIGN_OR_RETURN(std::string ca_key_pem, ca.KeyPem());
  files.push_back({kCaCertFile, ca_pem, kPublicFileMode});
  files.push_back({kCaKeyFile, std::move(ca_key_pem), kSecretFileMode});
  CertificateSpec serving{.common_name = "kube-apiserver",
                          .organizations = {},
                          .alt_names = options.serving_names,
                          .usage = CertificateUsage::kServer,
                          .validity = options.cert_validity};
  ASSIGN_OR_RETURN(IssuedCertificate issued, ca.Issue(serving));
  files.push_back(
      {kServingCertFile, std::move(issued.certificate_pem), kPublicFileMode});
  files.push_back(
      {kServingKeyFile, std::move(issued.key_pem), kSecretFileMode});
  ASSIGN_OR_RETURN(PrivateKey sa_key, PrivateKey::GenerateP256());
  ASSIGN_OR_RETURN(std::string sa_private, sa_key.PrivatePem());
  ASSIGN_OR_RETURN(std::string sa_public, sa_key.PublicPem());
  files.push_back(
      {kServiceAccountKeyFile, std::move(sa_private), kSecretFileMode});
  files.push_back(
      {kServiceAccountPublicKeyFile, std::move(sa_public), kPublicFileMode});
  return files;
}

StatusOr<std::vector<PlannedFile>> PlanKubeconfigs(
    const CertificateAuthority& ca, const ClusterPkiOptions& options) {
  ASSIGN_OR_RETURN(std::string ca_pem, ca.CertificatePem());
  struct Client {
    std::string file;
    std::string user;
    std::vector<std::string> groups;
  };
  std::vector<Client> clients = {
      {kAdminKubeconfigFile, "admin", {std::string(auth::kSystemMasters)}},
      {kSchedulerKubeconfigFile, std::string(auth::kKubeScheduler), {}},
      {kControllerManagerKubeconfigFile,
       std::string(auth::kKubeControllerManager),
       {}},
  };
  for (const std::string& node : options.nodes) {
    clients.push_back({fmt::format("node-{}.kubeconfig", node),
                       std::string(auth::kNodeUserPrefix) + node,
                       {std::string(auth::kNodesGroup)}});
  }
  std::vector<PlannedFile> files;
  for (Client& client : clients) {
    ASSIGN_OR_RETURN(
        PlannedFile file,
        ClientKubeconfigFile(ca, ca_pem, options.server, client.file,
                             ClientSpec(client.user, std::move(client.groups),
                                        options.cert_validity)));
    files.push_back(std::move(file));
  }
  return files;
}

Status ValidateInitOptions(const ClusterPkiOptions& options) {
  if (options.directory.empty()) {
    return InvalidArgumentError("DIR: the directory must not be empty");
  }
  RETURN_IF_ERROR(ValidateServerUrl(options.server, "--server"));
  for (const std::string& node : options.nodes) {
    if (!IsNodeName(node)) {
      return InvalidArgumentError(fmt::format(
          "--nodes: \"{}\" is not a valid node name (a lowercase RFC 1123 "
          "subdomain)",
          node));
    }
  }
  return Status();
}

// The server of the kubeconfig text `certs init` wrote (the first
// `server: "<url>"` line); "" when there is none.
std::string ServerOfKubeconfig(std::string_view text) {
  constexpr std::string_view kKey = "\n    server: \"";
  const size_t at = text.find(kKey);
  if (at == std::string_view::npos) return {};
  const size_t start = at + kKey.size();
  const size_t end = text.find('"', start);
  if (end == std::string_view::npos) return {};
  return std::string(text.substr(start, end - start));
}

StatusOr<std::string> ServerFor(const ClientKubeconfigOptions& options) {
  if (!options.server.empty()) return options.server;
  const std::string admin = JoinPath(options.directory, kAdminKubeconfigFile);
  StatusOr<std::string> text = ReadInputFile(admin);
  const std::string server = text.ok() ? ServerOfKubeconfig(*text) : "";
  if (server.empty()) {
    return InvalidArgumentError(fmt::format(
        "--server: not given, and {} names no server to copy", admin));
  }
  return server;
}

}  // namespace

Status WriteClientKubeconfig(const ClientKubeconfigOptions& options) {
  if (options.user.empty()) {
    return InvalidArgumentError("--user: must not be empty");
  }
  if (options.output_path.empty()) {
    return InvalidArgumentError("--out: must not be empty");
  }
  ASSIGN_OR_RETURN(std::string server, ServerFor(options));
  RETURN_IF_ERROR(ValidateServerUrl(server, "--server"));
  const std::string cert_path = JoinPath(options.directory, kCaCertFile);
  const std::string key_path = JoinPath(options.directory, kCaKeyFile);
  ASSIGN_OR_RETURN(std::string ca_pem, ReadInputFile(cert_path));
  ASSIGN_OR_RETURN(std::string key_pem, ReadInputFile(key_path));
  ASSIGN_OR_RETURN(CertificateAuthority ca,
                   CertificateAuthority::FromPem(ca_pem, key_pem, cert_path));
  ASSIGN_OR_RETURN(PlannedFile file,
                   ClientKubeconfigFile(ca, ca_pem, server, options.output_path,
                                        ClientSpec(options.user, options.groups,
                                                   options.validity)));
  return WriteOutputFile(options.output_path, file.content, file.mode,
                         options.overwrite);
}

Status ValidateServerUrl(const std::string& url, std::string_view flag) {
  const bool https = url.starts_with("https://");
  if (!https && !url.starts_with("http://")) {
    return InvalidArgumentError(fmt::format(
        "{}: \"{}\" must be an https:// (or http://) URL", flag, url));
  }
  const size_t host = url.find("://") + 3;
  if (host >= url.size() || url[host] == '/' || url[host] == ':') {
    return InvalidArgumentError(
        fmt::format("{}: \"{}\" has no host", flag, url));
  }
  return Status();
}

StatusOr<std::vector<std::string>> InitClusterPki(
    const ClusterPkiOptions& options) {
  RETURN_IF_ERROR(ValidateInitOptions(options));
  RETURN_IF_ERROR(EnsureDirectory(options.directory));
  ASSIGN_OR_RETURN(
      CertificateAuthority ca,
      CertificateAuthority::Generate(kCaCommonName, options.ca_validity));
  ASSIGN_OR_RETURN(std::vector<PlannedFile> files, PlanKeyFiles(ca, options));
  ASSIGN_OR_RETURN(std::vector<PlannedFile> kubeconfigs,
                   PlanKubeconfigs(ca, options));
  for (PlannedFile& file : kubeconfigs) files.push_back(std::move(file));
  if (!options.overwrite) {
    for (const PlannedFile& file : files) {
      const std::string path = JoinPath(options.directory, file.name);
      struct stat existing;
      if (::lstat(path.c_str(), &existing) == 0) {
        return AlreadyExistsError(
            fmt::format("{} already exists (use --force to replace it)", path));
      }
    }
  }
  std::vector<std::string> written;
  for (const PlannedFile& file : files) {
    const std::string path = JoinPath(options.directory, file.name);
    RETURN_IF_ERROR(
        WriteOutputFile(path, file.content, file.mode, options.overwrite));
    written.push_back(path);
  }
  return written;
}

}  // namespace dralloc::pki
