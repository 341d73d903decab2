// ClientKubeconfig: a kubeconfig with one cluster, one user authenticating
// with an embedded client certificate, and one context joining them (what
// kubeadm writes for admin.conf and the kubelet).
#ifndef DRALLOC_PKI_KUBECONFIG_WRITER_H_
#define DRALLOC_PKI_KUBECONFIG_WRITER_H_

#include <string>

namespace dralloc::pki {

struct ClientKubeconfig {
  std::string cluster_name = "dralloc";
  std::string server;  // https://host:port
  std::string user_name;
  std::string ca_pem;  // PEM texts, embedded base64-encoded
  std::string client_certificate_pem;
  std::string client_key_pem;
};

// The YAML text: clusters[0] with server and certificate-authority-data,
// users[0] with client-certificate-data and client-key-data, contexts[0]
// "<user>@<cluster>" as current-context. Strings are JSON-quoted (valid
// YAML), so user names like "system:node:a" need no further care.
std::string RenderKubeconfig(const ClientKubeconfig& config);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_KUBECONFIG_WRITER_H_
