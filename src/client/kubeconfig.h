// Kubeconfig: the connection settings of one context of a kubeconfig file.
//
// Supports what controllers need to reach an API server: the cluster's
// server URL and TLS settings, a bearer token (inline or from a file) and a
// client certificate. Relative file paths resolve against the directory of
// the kubeconfig file, as kubectl does. Exec and auth-provider plugins are
// not supported (their settings are ignored).
#ifndef DRALLOC_CLIENT_KUBECONFIG_H_
#define DRALLOC_CLIENT_KUBECONFIG_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::client {

struct Kubeconfig {
  std::string server;      // "http://127.0.0.1:6443" or "https://..."
  std::string namespace_;  // the context's namespace ("" if unset)
  std::string token;       // user.token, or the contents of user.tokenFile
  bool insecure_skip_tls_verify = false;
  // PEM texts, decoded from the base64 `*-data` fields or read from the
  // files the path fields name.
  std::string certificate_authority_data;
  std::string client_certificate_data;
  std::string client_key_data;
};

// Loads `context` ("" means current-context) from the kubeconfig at `path`.
// An empty `path` means the first entry of $KUBECONFIG, else
// $HOME/.kube/config. Errors: kNotFound (the file, or a context, cluster or
// user it names, does not exist), kInvalidArgument (malformed content).
StatusOr<Kubeconfig> LoadKubeconfig(const std::string& path,
                                    const std::string& context = "");

// Parses kubeconfig text. `source` is the file name: it prefixes error
// messages and relative paths resolve against its directory.
StatusOr<Kubeconfig> ParseKubeconfig(std::string_view yaml_text,
                                     std::string_view source,
                                     const std::string& context = "");

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_KUBECONFIG_H_
