// OpenSslHandles: owning smart pointers for the OpenSSL objects dralloc_pki
// creates (each frees its object with the matching *_free), and the text of
// OpenSSL's error queue for Status messages.
#ifndef DRALLOC_PKI_OPENSSL_HANDLES_H_
#define DRALLOC_PKI_OPENSSL_HANDLES_H_

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>

namespace dralloc::pki {

template <typename T, void (*Free)(T*)>
struct OpenSslDeleter {
  void operator()(T* handle) const { Free(handle); }
};

using EvpPkeyPtr =
    std::unique_ptr<EVP_PKEY, OpenSslDeleter<EVP_PKEY, EVP_PKEY_free>>;
using EvpPkeyCtxPtr =
    std::unique_ptr<EVP_PKEY_CTX,
                    OpenSslDeleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using X509Ptr = std::unique_ptr<X509, OpenSslDeleter<X509, X509_free>>;
using X509ExtensionPtr =
    std::unique_ptr<X509_EXTENSION,
                    OpenSslDeleter<X509_EXTENSION, X509_EXTENSION_free>>;
using BioPtr = std::unique_ptr<BIO, OpenSslDeleter<BIO, BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, OpenSslDeleter<BIGNUM, BN_free>>;

// A memory BIO reading `data` (which must outlive it).
BioPtr ReadOnlyBio(std::string_view data);
// Everything written to a memory BIO.
std::string BioContents(BIO* bio);

// "`what`: <OpenSSL's queued errors>", draining the queue (so that a later
// failure does not report this one's errors).
std::string OpenSslError(std::string_view what);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_OPENSSL_HANDLES_H_
