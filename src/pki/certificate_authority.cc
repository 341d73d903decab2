#include "pki/certificate_authority.h"

#include <fmt/format.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace dralloc::pki {
namespace {

// A random positive 127-bit serial (RFC 5280 allows up to 20 octets).
Status SetRandomSerial(X509* certificate) {
  BignumPtr serial(BN_new());
  if (!serial ||
      BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate)) ==
          nullptr) {
    return InternalError(OpenSslError("choosing a certificate serial"));
  }
  return Status();
}

Status SetSubject(X509* certificate, const CertificateSpec& spec) {
  X509_NAME* name = X509_get_subject_name(certificate);
  // V_ASN1_UTF8STRING rather than MBSTRING_UTF8: the latter enforces X.520's
  // upper bounds (64 characters for CN and O), which Kubernetes user and
  // group names do not follow.
  auto add = [name](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(
               name, field, V_ASN1_UTF8STRING,
               reinterpret_cast<const unsigned char*>(value.data()),
               static_cast<int>(value.size()), -1, 0) == 1;
  };
  for (const std::string& organization : spec.organizations) {
    if (!add("O", organization)) {
      return InvalidArgumentError(OpenSslError(fmt::format(
          "certificate organization \"{}\" is not allowed", organization)));
    }
  }
  if (!add("CN", spec.common_name)) {
    return InvalidArgumentError(OpenSslError(fmt::format(
        "certificate common name \"{}\" is not allowed", spec.common_name)));
  }
  return Status();
}

Status SetValidity(X509* certificate, const Validity& validity) {
  const long not_before = static_cast<long>(validity.not_before.count());
  const long not_after =
      not_before + static_cast<long>(validity.validity.count());
  if (X509_gmtime_adj(X509_getm_notBefore(certificate), not_before) ==
          nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(certificate), not_after) == nullptr) {
    return InternalError(OpenSslError("setting certificate validity"));
  }
  return Status();
}

// Adds extension `nid` = `value` (OpenSSL's config syntax), with `issuer`
// for the authority key identifier.
Status AddExtension(X509* certificate, X509* issuer, int nid,
                    const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509ExtensionPtr extension(
      X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
  if (!extension || X509_add_ext(certificate, extension.get(), -1) != 1) {
    return InvalidArgumentError(OpenSslError(fmt::format(
        "certificate extension {} = \"{}\"", OBJ_nid2sn(nid), value)));
  }
  return Status();
}

// A certificate with version, serial, subject, validity and public key set;
// the issuer name and the extensions are the caller's.
StatusOr<X509Ptr> NewCertificate(const CertificateSpec& spec,
                                 EVP_PKEY* subject_key) {
  X509Ptr certificate(X509_new());
  if (!certificate ||
      X509_set_version(certificate.get(), X509_VERSION_3) != 1 ||
      X509_set_pubkey(certificate.get(), subject_key) != 1) {
    return InternalError(OpenSslError("creating a certificate"));
  }
  RETURN_IF_ERROR(SetRandomSerial(certificate.get()));
  RETURN_IF_ERROR(SetSubject(certificate.get(), spec));
  RETURN_IF_ERROR(SetValidity(certificate.get(), spec.validity));
  return certificate;
}

Status AddLeafExtensions(X509* certificate, X509* issuer,
                         const CertificateSpec& spec) {
  const bool server = spec.usage == CertificateUsage::kServer;
  RETURN_IF_ERROR(AddExtension(certificate, issuer, NID_basic_constraints,
                               "critical,CA:FALSE"));
  RETURN_IF_ERROR(AddExtension(certificate, issuer, NID_key_usage,
                               "critical,digitalSignature"));
  RETURN_IF_ERROR(AddExtension(certificate, issuer, NID_ext_key_usage,
                               server ? "serverAuth" : "clientAuth"));
  RETURN_IF_ERROR(
      AddExtension(certificate, issuer, NID_authority_key_identifier, "keyid"));
  const std::string alt_names = spec.alt_names.ToOpenSslValue();
  if (server && !alt_names.empty()) {
    RETURN_IF_ERROR(
        AddExtension(certificate, issuer, NID_subject_alt_name, alt_names));
  }
  return Status();
}

Status AddCaExtensions(X509* certificate, X509* issuer) {
  RETURN_IF_ERROR(AddExtension(certificate, issuer, NID_basic_constraints,
                               "critical,CA:TRUE"));
  RETURN_IF_ERROR(
      AddExtension(certificate, issuer, NID_key_usage,
                   "critical,digitalSignature,keyCertSign,cRLSign"));
  RETURN_IF_ERROR(
      AddExtension(certificate, issuer, NID_subject_key_identifier, "hash"));
  if (issuer != certificate) {
    RETURN_IF_ERROR(AddExtension(certificate, issuer,
                                 NID_authority_key_identifier, "keyid"));
  }
  return Status();
}

Status Sign(X509* certificate, EVP_PKEY* key) {
  if (X509_sign(certificate, key, EVP_sha256()) <= 0) {
    return InternalError(OpenSslError("signing a certificate"));
  }
  return Status();
}

}  // namespace

StatusOr<std::string> CertificateToPem(X509* certificate) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(bio.get(), certificate) != 1) {
    return InternalError(OpenSslError("writing a certificate"));
  }
  return BioContents(bio.get());
}

StatusOr<CertificateAuthority> CertificateAuthority::Generate(
    std::string_view common_name, const Validity& validity) {
  ASSIGN_OR_RETURN(PrivateKey key, PrivateKey::GenerateP256());
  CertificateSpec spec{.common_name = std::string(common_name),
                       .organizations = {},
                       .alt_names = {},
                       .usage = CertificateUsage::kServer,
                       .validity = validity};
  ASSIGN_OR_RETURN(X509Ptr certificate, NewCertificate(spec, key.get()));
  X509* cert = certificate.get();
  if (X509_set_issuer_name(cert, X509_get_subject_name(cert)) != 1) {
    return InternalError(OpenSslError("setting the CA issuer"));
  }
  RETURN_IF_ERROR(AddCaExtensions(cert, cert));
  RETURN_IF_ERROR(Sign(cert, key.get()));
  return CertificateAuthority(std::move(certificate), std::move(key));
}

StatusOr<CertificateAuthority> CertificateAuthority::FromPem(
    std::string_view cert_pem, std::string_view key_pem,
    std::string_view source) {
  BioPtr bio = ReadOnlyBio(cert_pem);
  X509Ptr certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!certificate) {
    return InvalidArgumentError(
        OpenSslError(fmt::format("{}: no PEM certificate", source)));
  }
  ASSIGN_OR_RETURN(PrivateKey key, PrivateKey::FromPem(key_pem, source));
  if (X509_check_private_key(certificate.get(), key.get()) != 1) {
    return InvalidArgumentError(OpenSslError(fmt::format(
        "{}: the CA key does not belong to the CA certificate", source)));
  }
  return CertificateAuthority(std::move(certificate), std::move(key));
}

StatusOr<IssuedCertificate> CertificateAuthority::Issue(
    const CertificateSpec& spec) const {
  ASSIGN_OR_RETURN(PrivateKey key, PrivateKey::GenerateP256());
  ASSIGN_OR_RETURN(X509Ptr certificate, NewCertificate(spec, key.get()));
  if (X509_set_issuer_name(certificate.get(),
                           X509_get_subject_name(certificate_.get())) != 1) {
    return InternalError(OpenSslError("setting the certificate issuer"));
  }
  RETURN_IF_ERROR(
      AddLeafExtensions(certificate.get(), certificate_.get(), spec));
  RETURN_IF_ERROR(Sign(certificate.get(), key_.get()));
  IssuedCertificate issued;
  ASSIGN_OR_RETURN(issued.certificate_pem, CertificateToPem(certificate.get()));
  ASSIGN_OR_RETURN(issued.key_pem, key.PrivatePem());
  return issued;
}

StatusOr<CertificateAuthority> CertificateAuthority::IssueIntermediate(
    std::string_view common_name, const Validity& validity) const {
  ASSIGN_OR_RETURN(PrivateKey key, PrivateKey::GenerateP256());
  CertificateSpec spec{.common_name = std::string(common_name),
                       .organizations = {},
                       .alt_names = {},
                       .usage = CertificateUsage::kServer,
                       .validity = validity};
  ASSIGN_OR_RETURN(X509Ptr certificate, NewCertificate(spec, key.get()));
  if (X509_set_issuer_name(certificate.get(),
                           X509_get_subject_name(certificate_.get())) != 1) {
    return InternalError(OpenSslError("setting the certificate issuer"));
  }
  RETURN_IF_ERROR(AddCaExtensions(certificate.get(), certificate_.get()));
  RETURN_IF_ERROR(Sign(certificate.get(), key_.get()));
  return CertificateAuthority(std::move(certificate), std::move(key));
}

StatusOr<std::string> CertificateAuthority::CertificatePem() const {
  return CertificateToPem(certificate_.get());
}

}  // namespace dralloc::pki
