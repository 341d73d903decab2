#include "serviceaccount/token_signer.h"

#include <nlohmann/json.hpp>

#include "serviceaccount/jws.h"

namespace dralloc::serviceaccount {

TokenSigner::TokenSigner(PKeyPtr key, std::string issuer, std::string algorithm)
    : key_(std::move(key)),
      issuer_(std::move(issuer)),
      algorithm_(std::move(algorithm)),
      key_id_(KeyIdFor(key_.get())) {}

StatusOr<TokenSigner> TokenSigner::Create(PKeyPtr key, std::string issuer) {
  if (key == nullptr) return InvalidArgumentError("no signing key");
  if (issuer.empty()) return InvalidArgumentError("the issuer is empty");
  std::string algorithm;
  ASSIGN_OR_RETURN(algorithm, JwsAlgorithmFor(key.get()));
  return TokenSigner(std::move(key), std::move(issuer), std::move(algorithm));
}

StatusOr<TokenSigner> TokenSigner::FromKeyFile(const std::string& path,
                                               std::string issuer) {
  std::string pem;
  ASSIGN_OR_RETURN(pem, ReadKeyFile(path));
  StatusOr<PKeyPtr> key = ParsePrivateKeyPem(pem);
  if (!key.ok()) {
    return key.status().WithPrefix("--service-account-signing-key-file " +
                                   path);
  }
  return Create(std::move(*key), std::move(issuer));
}

StatusOr<std::string> TokenSigner::Sign(ServiceAccountClaims claims) const {
  claims.issuer = issuer_;
  const nlohmann::json header = {{"alg", algorithm_}, {"kid", key_id_}};
  std::string signing_input = Base64UrlEncode(header.dump()) + "." +
                              Base64UrlEncode(claims.ToJson().dump());
  std::string signature;
  ASSIGN_OR_RETURN(signature, JwsSign(key_.get(), algorithm_, signing_input));
  return signing_input + "." + Base64UrlEncode(signature);
}

}  // namespace dralloc::serviceaccount
