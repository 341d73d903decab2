#include "cli/secure_serving.h"

#include <fmt/format.h>

#include <utility>

#include "apiserver/node_authorizer.h"
#include "apiserver/node_restriction_admission.h"
#include "auth/token_file_authenticator.h"
#include "auth/x509_authenticator.h"
#include "common/log.h"

namespace dralloc::cli {

// The components the chains hold on to, and what Attach still needs.
struct SecureServing::Parts {
  store::Store* store = nullptr;
  std::vector<std::string> modes;
  apiserver::NodeAuthorizer* node_authorizer = nullptr;  // owned by the chain
};

namespace {

Status Prefixed(std::string_view flag, const Status& status) {
  return InvalidArgumentError(fmt::format("{}: {}", flag, status.message()));
}

StatusOr<std::vector<std::unique_ptr<auth::Authenticator>>> Authenticators(
    const SecurityFlags& flags) {
  std::vector<std::unique_ptr<auth::Authenticator>> chain;
  if (!flags.client_ca_file.empty()) {
    auto x509 = auth::X509Authenticator::FromCaFile(flags.client_ca_file);
    if (!x509.ok()) return Prefixed("--client-ca-file", x509.status());
    chain.push_back(std::move(*x509));
  }
  if (!flags.token_auth_file.empty()) {
    auto tokens = auth::TokenFileAuthenticator::FromFile(flags.token_auth_file);
    if (!tokens.ok()) return Prefixed("--token-auth-file", tokens.status());
    for (const std::string& warning : (*tokens)->warnings()) {
      log::Warn("apiserver", "--token-auth-file: {}", warning);
    }
    chain.push_back(std::move(*tokens));
  }
  return chain;
}

// Denies everything (--authorization-mode=AlwaysDeny).
class AlwaysDenyAuthorizer : public auth::Authorizer {
 public:
  auth::AuthorizationResult Authorize(
      const auth::RequestAttributes&) const override {
    return {auth::Decision::kDeny, ""};
  }
  void RulesFor(const auth::UserInfo&, std::string_view,
                auth::RuleSet&) const override {}
};

}  // namespace

SecureServing::SecureServing(std::unique_ptr<Parts> parts)
    : parts_(std::move(parts)) {}

SecureServing::~SecureServing() {
  if (parts_->node_authorizer != nullptr) parts_->node_authorizer->Stop();
}

StatusOr<std::unique_ptr<SecureServing>> SecureServing::Configure(
    const SecurityFlags& flags, store::Store& store,
    apiserver::ApiServerOptions& options) {
  auto parts = std::make_unique<Parts>();
  parts->store = &store;
  ASSIGN_OR_RETURN(parts->modes, AuthorizationModes(flags));
  options.audit_log_path = flags.audit_log_path;
  if (!flags.serves_tls())
    return std::unique_ptr<SecureServing>(new SecureServing(std::move(parts)));
  options.tls_cert_file = flags.tls_cert_file;
  options.tls_private_key_file = flags.tls_private_key_file;
  options.client_ca_file = flags.client_ca_file;
  ASSIGN_OR_RETURN(auto authenticators, Authenticators(flags));
  options.authenticator = std::make_shared<auth::UnionAuthenticator>(
      std::move(authenticators), flags.anonymous_auth);
  std::vector<std::unique_ptr<auth::Authorizer>> authorizers;
  for (const std::string& mode : parts->modes) {
    if (mode == "AlwaysAllow") {
      authorizers.push_back(std::make_unique<auth::AlwaysAllowAuthorizer>());
    } else if (mode == "AlwaysDeny") {
      authorizers.push_back(std::make_unique<AlwaysDenyAuthorizer>());
    } else if (mode == "Node") {
      auto node = std::make_unique<apiserver::NodeAuthorizer>(store);
      parts->node_authorizer = node.get();
      authorizers.push_back(std::move(node));
    }
  }
  options.authorizer =
      std::make_shared<auth::UnionAuthorizer>(std::move(authorizers));
  return std::unique_ptr<SecureServing>(new SecureServing(std::move(parts)));
}

Status SecureServing::Attach(apiserver::ApiServer& server) {
  if (parts_->node_authorizer != nullptr) {
    server.storage().AddAdmissionPlugin(
        std::make_unique<apiserver::NodeRestrictionAdmission>(*parts_->store));
    parts_->node_authorizer->Start();
  }
  return OkStatus();
}

}  // namespace dralloc::cli
