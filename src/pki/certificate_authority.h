// CertificateAuthority: a CA certificate with its key, which issues the
// serving and client certificates of a cluster (what kubeadm's certs phase
// and client-go's cert utilities make).
#ifndef DRALLOC_PKI_CERTIFICATE_AUTHORITY_H_
#define DRALLOC_PKI_CERTIFICATE_AUTHORITY_H_

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pki/openssl_handles.h"
#include "pki/private_key.h"
#include "pki/subject_alt_names.h"

namespace dralloc::pki {

// Certificates are valid from `not_before` seconds from now (negative:
// backdated, so that clocks a little behind accept them) for `validity`
// after that. A negative `validity` makes an already expired certificate
// and a positive `not_before` one not yet valid (the tests need both).
struct Validity {
  std::chrono::seconds not_before = std::chrono::minutes(-5);
  std::chrono::seconds validity = std::chrono::hours(24 * 365);
};

inline constexpr std::chrono::hours kDefaultCaValidity{24 * 365 * 10};
inline constexpr std::chrono::hours kDefaultCertValidity{24 * 365};

enum class CertificateUsage { kServer, kClient };

struct CertificateSpec {
  std::string common_name;                 // a client's user name
  std::vector<std::string> organizations;  // a client's groups, in order
  SubjectAltNames alt_names;               // serving certificates only
  CertificateUsage usage = CertificateUsage::kClient;
  Validity validity;
};

// A certificate and its new private key, both PEM.
struct IssuedCertificate {
  std::string certificate_pem;
  std::string key_pem;
};

class CertificateAuthority {
 public:
  // A self-signed CA (basicConstraints CA:TRUE, keyUsage keyCertSign,
  // cRLSign, digitalSignature) named `common_name`.
  static StatusOr<CertificateAuthority> Generate(std::string_view common_name,
                                                 const Validity& validity);
  // From PEM texts; `source` names them in errors. The key must belong to
  // the certificate.
  static StatusOr<CertificateAuthority> FromPem(std::string_view cert_pem,
                                                std::string_view key_pem,
                                                std::string_view source);

  // A leaf certificate for `spec` with a new P-256 key, signed with
  // SHA-256: CA:FALSE, keyUsage digitalSignature, extendedKeyUsage
  // serverAuth or clientAuth, subjectAltName for server certificates.
  StatusOr<IssuedCertificate> Issue(const CertificateSpec& spec) const;

  // A CA certificate for `common_name` signed by this one (an intermediate
  // CA), with its new key.
  StatusOr<CertificateAuthority> IssueIntermediate(
      std::string_view common_name, const Validity& validity) const;

  StatusOr<std::string> CertificatePem() const;
  StatusOr<std::string> KeyPem() const { return key_.PrivatePem(); }

 private:
  CertificateAuthority(X509Ptr certificate, PrivateKey key)
      : certificate_(std::move(certificate)), key_(std::move(key)) {}

  X509Ptr certificate_;
  PrivateKey key_;
};

// The PEM of `certificate`.
StatusOr<std::string> CertificateToPem(X509* certificate);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_CERTIFICATE_AUTHORITY_H_
