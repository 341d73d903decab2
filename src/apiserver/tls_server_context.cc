#include "apiserver/tls_server_context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dralloc::apiserver {

namespace ssl = boost::asio::ssl;

namespace {

constexpr unsigned char kHttp11Alpn[] = {8,   'h', 't', 't', 'p',
                                         '/', '1', '.', '1'};

StatusOr<std::string> ReadPemFile(std::string_view flag,
                                  const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidArgumentError(fmt::format("{} \"{}\": cannot read: {}", flag,
                                            path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return InvalidArgumentError(
        fmt::format("{} \"{}\": cannot read", flag, path));
  }
  return text.str();
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

// Every certificate in a PEM text, in order.
std::vector<X509Ptr> ParseCertificates(const std::string& pem) {
  std::unique_ptr<BIO, BioDeleter> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::vector<X509Ptr> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  ERR_clear_error();  // the read that ended the loop
  return certs;
}

int SelectHttp11(SSL*, const unsigned char** out, unsigned char* out_len,
                 const unsigned char* offered, unsigned int offered_len,
                 void*) {
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_len, kHttp11Alpn,
                            sizeof(kHttp11Alpn), offered,
                            offered_len) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;  // go on without ALPN
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

Status LoadCertificateAndKey(SSL_CTX* ctx, const TlsServerFiles& files) {
  ASSIGN_OR_RETURN(std::string cert_pem,
                   ReadPemFile("--tls-cert-file", files.cert_file));
  std::vector<X509Ptr> chain = ParseCertificates(cert_pem);
  if (chain.empty()) {
    return InvalidArgumentError(fmt::format(
        "--tls-cert-file \"{}\": no PEM certificate found", files.cert_file));
  }
  ASSIGN_OR_RETURN(std::string key_pem, ReadPemFile("--tls-private-key-file",
                                                    files.private_key_file));
  std::unique_ptr<BIO, BioDeleter> key_bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (key == nullptr) {
    return InvalidArgumentError(
        fmt::format("--tls-private-key-file \"{}\": no PEM private key found",
                    files.private_key_file));
  }
  if (SSL_CTX_use_certificate(ctx, chain[0].get()) != 1) {
    ERR_clear_error();
    return InvalidArgumentError(fmt::format(
        "--tls-cert-file \"{}\": certificate not usable", files.cert_file));
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    // SSL_CTX_add1_chain_cert takes its own reference.
    SSL_CTX_add1_chain_cert(ctx, chain[i].get());
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return InvalidArgumentError(fmt::format(
        "--tls-private-key-file \"{}\": private key does not match the "
        "certificate in \"{}\"",
        files.private_key_file, files.cert_file));
  }
  return OkStatus();
}

Status LoadClientCas(SSL_CTX* ctx, const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadPemFile("--client-ca-file", path));
  std::vector<X509Ptr> cas = ParseCertificates(pem);
  if (cas.empty()) {
    return InvalidArgumentError(
        fmt::format("--client-ca-file \"{}\": no PEM certificate found", path));
  }
  for (const X509Ptr& ca : cas) {
    SSL_CTX_add_client_CA(ctx, ca.get());  // copies the subject name
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<ssl::context>> NewTlsServerContext(
    const TlsServerFiles& files) {
  if (files.cert_file.empty() != files.private_key_file.empty()) {
    return InvalidArgumentError(
        "--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (files.cert_file.empty()) {
    return InvalidArgumentError(
        "--client-ca-file needs --tls-cert-file and --tls-private-key-file");
  }
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Idle connections keep no record buffers.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  RETURN_IF_ERROR(LoadCertificateAndKey(ctx, files));
  if (!files.client_ca_file.empty()) {
    RETURN_IF_ERROR(LoadClientCas(ctx, files.client_ca_file));
  }
  // Request a certificate, accept whatever comes: authentication decides.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER,
                     [](int, X509_STORE_CTX*) -> int { return 1; });
  static constexpr unsigned char kSessionContext[] = "dralloc-apiserver";
  SSL_CTX_set_session_id_context(ctx, kSessionContext,
                                 sizeof(kSessionContext) - 1);
  SSL_CTX_set_alpn_select_cb(ctx, SelectHttp11, nullptr);
  return context;
}

std::vector<std::string> PeerCertificatesDer(
    ssl::stream<boost::asio::ip::tcp::socket>& stream) {
  std::vector<std::string> der;
  auto append = [&der](X509* cert) {
    const int size = i2d_X509(cert, nullptr);
    if (size <= 0) return;
    std::string out(static_cast<size_t>(size), '\0');
    auto* cursor = reinterpret_cast<unsigned char*>(out.data());
    i2d_X509(cert, &cursor);
    der.push_back(std::move(out));
  };
  SSL* ssl_handle = stream.native_handle();
  X509Ptr leaf(SSL_get1_peer_certificate(ssl_handle));
  if (leaf == nullptr) return der;
  append(leaf.get());
  // On a server the chain excludes the leaf.
  if (STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl_handle)) {
    for (int i = 0; i < sk_X509_num(chain); ++i) {
      X509* cert = sk_X509_value(chain, i);
      if (X509_cmp(cert, leaf.get()) != 0) append(cert);
    }
  }
  return der;
}

}  // namespace dralloc::apiserver
