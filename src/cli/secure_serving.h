// SecureServing: what SecurityFlags ask for, built over the server's store:
// the authenticator chain (client certificates, the token file,
// service-account tokens), the authorizer chain of --authorization-mode,
// the admission plugins that go with them, and the background components
// they need (the Node authorizer's graph, RBAC's policy feed).
#ifndef DRALLOC_CLI_SECURE_SERVING_H_
#define DRALLOC_CLI_SECURE_SERVING_H_

#include <memory>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "cli/security_flags.h"
#include "common/status.h"
#include "store/store.h"

namespace dralloc::cli {

class SecureServing {
 public:
  // Builds the chains into `options` (before the ApiServer is made from
  // them). InvalidArgument names the flag whose file or value is unusable.
  static StatusOr<std::unique_ptr<SecureServing>> Configure(
      const SecurityFlags& flags, store::Store& store,
      apiserver::ApiServerOptions& options);
  ~SecureServing();

  // Registers the admission plugins on `server` and starts the background
  // components; call before server.Start().
  Status Attach(apiserver::ApiServer& server);

 private:
  struct Parts;
  explicit SecureServing(std::unique_ptr<Parts> parts);
  // The escalation admission, the default policy, the feed and the
  // aggregation of RBAC mode.
  Status StartRbac(apiserver::ApiServer& server);
  // The signer, TokenRequest handler and verifier of the service-account
  // flags (none without keys).
  static Status ConfigureServiceAccounts(const SecurityFlags& flags,
                                         store::Store& store, Parts& parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_SECURE_SERVING_H_
