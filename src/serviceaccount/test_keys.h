// Throwaway keys for the service-account tests, made with the OpenSSL C
// API at test time (no key material in the repository).
#ifndef DRALLOC_SERVICEACCOUNT_TEST_KEYS_H_
#define DRALLOC_SERVICEACCOUNT_TEST_KEYS_H_

#include <string>

namespace dralloc::serviceaccount::testing {

struct TestKeyPair {
  std::string private_pem;  // PKCS#8 "PRIVATE KEY"
  std::string public_pem;   // PKIX "PUBLIC KEY"
};

// A new P-256 key ("P-256"), P-384 ("P-384") or 2048-bit RSA key ("RSA").
TestKeyPair NewTestKeyPair(const std::string& type);

}  // namespace dralloc::serviceaccount::testing

#endif  // DRALLOC_SERVICEACCOUNT_TEST_KEYS_H_
