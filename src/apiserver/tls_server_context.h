// TlsServerContext: the OpenSSL server context HttpServer serves TLS with,
// loaded from PEM files (upstream's --tls-cert-file, --tls-private-key-file,
// --client-ca-file).
//
// The context offers TLS 1.2 and newer, selects ALPN "http/1.1" only (we do
// not speak h2; Go clients fall back), and requests a client certificate
// (advertising the client CA's names) without requiring or verifying one:
// any certificate is accepted at handshake time so that authentication can
// verify the chain later and answer 401, as kube-apiserver does.
#ifndef DRALLOC_APISERVER_TLS_SERVER_CONTEXT_H_
#define DRALLOC_APISERVER_TLS_SERVER_CONTEXT_H_

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace dralloc::apiserver {

struct TlsServerFiles {
  std::string cert_file;         // PEM: the serving certificate, then its chain
  std::string private_key_file;  // PEM: the key of the first certificate
  std::string client_ca_file;    // PEM: CAs advertised to clients; optional
};

// Loads the files; errors name the file (by its flag) and what is wrong:
// unreadable, no PEM certificate or key in it, or a key that does not match
// the certificate.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> NewTlsServerContext(
    const TlsServerFiles& files);

// The peer's certificate chain after a handshake, DER, leaf first; empty when
// the client sent none.
std::vector<std::string> PeerCertificatesDer(
    boost::asio::ssl::stream<boost::asio::ip::tcp::socket>& stream);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_TLS_SERVER_CONTEXT_H_
