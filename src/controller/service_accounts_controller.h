// ServiceAccountsController: upstream's serviceaccounts-controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go): every
// active namespace has the ServiceAccount "default", which pods and
// in-cluster drivers run as unless they name another one.
//
// A namespace is synced when it is added or updated and when its "default"
// ServiceAccount is deleted. A namespace whose phase is not Active
// (Terminating) is left alone, and a create that finds the account already
// there (another server's controller won the race) is a success.
#ifndef DRALLOC_CONTROLLER_SERVICE_ACCOUNTS_CONTROLLER_H_
#define DRALLOC_CONTROLLER_SERVICE_ACCOUNTS_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::controller {

struct ServiceAccountsControllerOptions {
  // The accounts every namespace gets (upstream: just "default").
  std::vector<std::string> accounts = {"default"};
  // Requeues of a failing namespace, each after client-go's backoff
  // (client/retry_queue.h), before it waits for its next change.
  int max_retries = 5;
};

struct ServiceAccountsControllerMetrics {
  uint64_t syncs = 0;    // namespace keys processed
  uint64_t created = 0;  // ServiceAccounts this controller created
  uint64_t sync_errors = 0;
};

class ServiceAccountsController {
 public:
  // `namespaces` and `service_accounts` inform on Namespaces and
  // ServiceAccounts (all namespaces); they must not be pumped before the
  // controller is constructed (it registers handlers).
  ServiceAccountsController(client::ApiClient& client,
                            client::Informer& namespaces,
                            client::Informer& service_accounts,
                            ServiceAccountsControllerOptions options = {});
  ~ServiceAccountsController();

  // Processes one queued namespace, waiting up to `wait` for one; false
  // when there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  void Start();
  void Stop();
  // Nothing queued or in progress.
  bool Idle() const { return queue_.Idle(); }
  ServiceAccountsControllerMetrics metrics() const EXCLUDES(mu_);

 private:
  void OnNamespace(const client::ObjectPtr& now);
  void OnServiceAccount(const client::ObjectPtr& old,
                        const client::ObjectPtr& now);
  // Creates the missing accounts of namespace `name`.
  Status Sync(const std::string& name) EXCLUDES(mu_);

  client::ApiClient& client_;
  client::Informer& namespaces_;
  client::Informer& service_accounts_;
  ServiceAccountsControllerOptions options_;
  client::RetryQueue queue_;

  // mu_ guards metrics_; never held across an API call.
  mutable Mutex mu_;
  ServiceAccountsControllerMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_SERVICE_ACCOUNTS_CONTROLLER_H_
