// TlsClientCredentials and MakeTlsClientContext: the OpenSSL client context
// that every TLS connection of a load run shares.
#ifndef DRALLOC_BENCH_LOAD_TLS_CLIENT_CONTEXT_H_
#define DRALLOC_BENCH_LOAD_TLS_CLIENT_CONTEXT_H_

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "common/status.h"

namespace dralloc::load {

// PEM texts, not file names.
struct TlsClientCredentials {
  // CA bundle the server certificate must chain to. Required unless
  // insecure_skip_verify: a loopback test server is never signed by a
  // system CA, so there is no fallback to the system store.
  std::string certificate_authority_pem;
  // Client certificate (chain) and its private key; both or neither.
  std::string client_certificate_pem;
  std::string client_key_pem;
  // Accept any server certificate (kubeconfig insecure-skip-tls-verify).
  bool insecure_skip_verify = false;
};

// A TLS 1.2+ client context that verifies the server against the CA and
// presents the client certificate. kInvalidArgument names the credential
// that OpenSSL rejected (e.g. "client key: ...").
StatusOr<std::shared_ptr<boost::asio::ssl::context>> MakeTlsClientContext(
    const TlsClientCredentials& credentials);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_TLS_CLIENT_CONTEXT_H_
