// ClusterPki: the files of `dralloc certs init` (a cluster's CA, the API
// server's serving certificate, client kubeconfigs for the admin, the
// control-plane components and each node, and the service-account signing
// key) and of `dralloc certs kubeconfig` (one more client kubeconfig).
#ifndef DRALLOC_PKI_CLUSTER_PKI_H_
#define DRALLOC_PKI_CLUSTER_PKI_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "pki/certificate_authority.h"

namespace dralloc::pki {

// File names inside the directory.
inline constexpr char kCaCertFile[] = "ca.crt";
inline constexpr char kCaKeyFile[] = "ca.key";
inline constexpr char kServingCertFile[] = "apiserver.crt";
inline constexpr char kServingKeyFile[] = "apiserver.key";
inline constexpr char kServiceAccountKeyFile[] = "sa.key";
inline constexpr char kServiceAccountPublicKeyFile[] = "sa.pub";
inline constexpr char kAdminKubeconfigFile[] = "admin.kubeconfig";
inline constexpr char kSchedulerKubeconfigFile[] = "scheduler.kubeconfig";
inline constexpr char kControllerManagerKubeconfigFile[] =
    "controller-manager.kubeconfig";
// The CA's common name (kubeadm names its CA "kubernetes").
inline constexpr char kCaCommonName[] = "dralloc-ca";

struct ClusterPkiOptions {
  std::string directory;  // created (0700) if missing
  std::string server;     // the URL every kubeconfig points at
  SubjectAltNames serving_names;
  std::vector<std::string> nodes;  // one node-<name>.kubeconfig each
  Validity ca_validity{.not_before = std::chrono::minutes(-5),
                       .validity = kDefaultCaValidity};
  Validity cert_validity;
  bool overwrite = false;
};

// Writes every file (keys and kubeconfigs 0600, certificates and sa.pub
// 0644) and returns their paths in the order written. Without `overwrite`
// nothing is written when any of the files exists (kAlreadyExists naming
// the first one). Node names must be DNS subdomains (they become user names
// and file names).
StatusOr<std::vector<std::string>> InitClusterPki(
    const ClusterPkiOptions& options);

struct ClientKubeconfigOptions {
  std::string directory;  // holds ca.crt and ca.key
  std::string server;     // "" = the server of DIR/admin.kubeconfig
  std::string user;
  std::vector<std::string> groups;
  std::string output_path;
  Validity validity;
  bool overwrite = false;
};

// A client certificate for `user` in `groups` signed by DIR's CA, in a
// kubeconfig at `output_path` (0600).
Status WriteClientKubeconfig(const ClientKubeconfigOptions& options);

// "https://..." or "http://..." with a host; kInvalidArgument naming `flag`.
Status ValidateServerUrl(const std::string& url, std::string_view flag);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_CLUSTER_PKI_H_
