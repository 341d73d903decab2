#include "cli/secure_serving.h"

#include <fmt/format.h>

#include <utility>

#include "apiserver/node_authorizer.h"
#include "apiserver/node_restriction_admission.h"
#include "apiserver/rbac_aggregation.h"
#include "apiserver/rbac_bootstrap.h"
#include "apiserver/rbac_escalation_admission.h"
#include "apiserver/rbac_policy_feed.h"
#include "apiserver/store_object_lookup.h"
#include "auth/token_file_authenticator.h"
#include "auth/x509_authenticator.h"
#include "common/log.h"
#include "rbac/policy_index.h"
#include "rbac/rbac_authorizer.h"
#include "serviceaccount/service_account_authenticator.h"
#include "serviceaccount/token_request_handler.h"
#include "serviceaccount/token_signer.h"
#include "serviceaccount/token_verifier.h"

namespace dralloc::cli {

// The components the chains hold on to, and what Attach still needs.
struct SecureServing::Parts {
  store::Store* store = nullptr;
  std::vector<std::string> modes;
  apiserver::NodeAuthorizer* node_authorizer = nullptr;  // owned by the chain
  // The whole chain, for RBAC's bind and escalate checks.
  std::shared_ptr<const auth::Authorizer> authorizer;
  // RBAC mode: the policy the authorizer reads, the feed that keeps it
  // current from the store, and the aggregation it triggers.
  std::unique_ptr<rbac::PolicyIndex> rbac_index;
  std::unique_ptr<apiserver::RbacPolicyFeed> rbac_feed;
  std::unique_ptr<apiserver::RbacAggregation> rbac_aggregation;
  // Service-account tokens: the store lookup both sides read, the signer
  // and TokenRequest handler (with a signing key), the verifier (with any
  // key).
  std::unique_ptr<apiserver::StoreObjectLookup> lookup;
  std::unique_ptr<serviceaccount::TokenSigner> signer;
  std::unique_ptr<serviceaccount::TokenRequestHandler> token_requests;
  std::unique_ptr<serviceaccount::TokenVerifier> verifier;
};

namespace {

Status Prefixed(std::string_view flag, const Status& status) {
  return InvalidArgumentError(fmt::format("{}: {}", flag, status.message()));
}

// The audiences tokens must carry: --api-audiences, else the issuer.
std::vector<std::string> Audiences(const SecurityFlags& flags) {
  if (!flags.api_audiences.empty()) return flags.api_audiences;
  return {flags.service_account_issuer};
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

Status SecureServing::ConfigureServiceAccounts(const SecurityFlags& flags,
                                               store::Store& store,
                                               Parts& parts) {
  std::vector<std::string> key_files = flags.service_account_key_files;
  const std::string& signing = flags.service_account_signing_key_file;
  if (key_files.empty() && !signing.empty()) key_files.push_back(signing);
  if (key_files.empty()) return OkStatus();
  parts.lookup = std::make_unique<apiserver::StoreObjectLookup>(store);
  if (!signing.empty()) {
    auto signer = serviceaccount::TokenSigner::FromKeyFile(
        signing, flags.service_account_issuer);
    if (!signer.ok()) {
      return Prefixed("--service-account-signing-key-file", signer.status());
    }
    parts.signer =
        std::make_unique<serviceaccount::TokenSigner>(std::move(*signer));
    serviceaccount::TokenRequestOptions options;
    options.api_audiences = Audiences(flags);
    parts.token_requests =
        std::make_unique<serviceaccount::TokenRequestHandler>(
            *parts.signer, *parts.lookup, std::move(options));
  }
  auto verifier = serviceaccount::TokenVerifier::FromKeyFiles(
      key_files, {flags.service_account_issuer}, Audiences(flags));
  if (!verifier.ok()) {
    return Prefixed("--service-account-key-file", verifier.status());
  }
  parts.verifier =
      std::make_unique<serviceaccount::TokenVerifier>(std::move(*verifier));
  return OkStatus();
}

SecureServing::SecureServing(std::unique_ptr<Parts> parts)
    : parts_(std::move(parts)) {}

SecureServing::~SecureServing() {
  if (parts_->rbac_feed != nullptr) parts_->rbac_feed->Stop();
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
  RETURN_IF_ERROR(ConfigureServiceAccounts(flags, store, *parts));
  if (parts->verifier != nullptr) {
    authenticators.push_back(
        std::make_unique<serviceaccount::ServiceAccountAuthenticator>(
            *parts->verifier, *parts->lookup));
  }
  options.token_requests = parts->token_requests.get();
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
    } else if (mode == "RBAC") {
      parts->rbac_index = std::make_unique<rbac::PolicyIndex>();
      authorizers.push_back(
          std::make_unique<rbac::RbacAuthorizer>(*parts->rbac_index));
    }
  }
  parts->authorizer =
      std::make_shared<auth::UnionAuthorizer>(std::move(authorizers));
  options.authorizer = parts->authorizer;
  return std::unique_ptr<SecureServing>(new SecureServing(std::move(parts)));
}

Status SecureServing::StartRbac(apiserver::ApiServer& server) {
  apiserver::ResourceStorage& storage = server.storage();
  storage.AddAdmissionPlugin(
      std::make_unique<apiserver::RbacEscalationAdmission>(
          *parts_->rbac_index, *parts_->authorizer));
  if (Status s = apiserver::EnsureBootstrapPolicy(storage); !s.ok()) {
    return Status(s.code(), "creating the default RBAC policy: " + s.message());
  }
  parts_->rbac_aggregation = std::make_unique<apiserver::RbacAggregation>(
      storage, *parts_->rbac_index);
  parts_->rbac_feed = std::make_unique<apiserver::RbacPolicyFeed>(
      *parts_->store, *parts_->rbac_index);
  parts_->rbac_feed->set_change_listener(
      [aggregation = parts_->rbac_aggregation.get()](bool roles_changed) {
        if (roles_changed) aggregation->Reconcile();
      });
  RETURN_IF_ERROR(parts_->rbac_feed->Start());
  parts_->rbac_aggregation->Reconcile();
  return OkStatus();
}

Status SecureServing::Attach(apiserver::ApiServer& server) {
  if (parts_->node_authorizer != nullptr) {
    server.storage().AddAdmissionPlugin(
        std::make_unique<apiserver::NodeRestrictionAdmission>(*parts_->store));
    parts_->node_authorizer->Start();
  }
  if (parts_->rbac_index != nullptr) RETURN_IF_ERROR(StartRbac(server));
  return OkStatus();
}

}  // namespace dralloc::cli
