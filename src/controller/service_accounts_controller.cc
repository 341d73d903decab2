#include "controller/service_accounts_controller.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "api/types/core.h"
#include "api/types/service_account.h"
#include "common/log.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

constexpr char kLogName[] = "serviceaccounts-controller";

}  // namespace

ServiceAccountsController::ServiceAccountsController(
    client::ApiClient& client, client::Informer& namespaces,
    client::Informer& service_accounts,
    ServiceAccountsControllerOptions options)
    : client_(client),
      namespaces_(namespaces),
      service_accounts_(service_accounts),
      options_(std::move(options)),
      queue_({.max_retries = options_.max_retries}) {
  namespaces_.AddHandler(
      [this](const ObjectPtr&, const ObjectPtr& now) { OnNamespace(now); });
  service_accounts_.AddHandler(
      [this](const ObjectPtr& old, const ObjectPtr& now) {
        OnServiceAccount(old, now);
      });
}

ServiceAccountsController::~ServiceAccountsController() { Stop(); }

void ServiceAccountsController::OnNamespace(const ObjectPtr& now) {
  const auto* namespace_ = As<api::Namespace>(now);
  if (namespace_ != nullptr) queue_.Add(namespace_->metadata.name);
}

void ServiceAccountsController::OnServiceAccount(const ObjectPtr& old,
                                                 const ObjectPtr& now) {
  if (now != nullptr) return;  // only a deletion can take an account away
  const auto* account = As<api::ServiceAccount>(old);
  if (account == nullptr) return;
  const auto& names = options_.accounts;
  if (std::find(names.begin(), names.end(), account->metadata.name) !=
      names.end()) {
    queue_.Add(account->metadata.namespace_);
  }
}

Status ServiceAccountsController::Sync(const std::string& name) {
  const auto* namespace_ = As<api::Namespace>(namespaces_.Get("", name));
  if (namespace_ == nullptr) return OkStatus();  // deleted
  if (namespace_->status.phase != "Active") return OkStatus();
  for (const std::string& account_name : options_.accounts) {
    if (service_accounts_.Get(name, account_name) != nullptr) continue;
    api::ServiceAccount account;
    account.api_version = "v1";
    account.kind = "ServiceAccount";
    account.metadata.namespace_ = name;
    account.metadata.name = account_name;
    StatusOr<ObjectPtr> created = client_.Create(std::move(account));
    if (!created.ok() &&
        created.status().code() != StatusCode::kAlreadyExists) {
      return created.status();
    }
    if (created.ok()) {
      MutexLock lock(mu_);
      ++metrics_.created;
    }
  }
  return OkStatus();
}

bool ServiceAccountsController::ProcessOne(std::chrono::milliseconds wait) {
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  queue_.Finish(*key, status.ok());
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (!status.ok()) ++metrics_.sync_errors;
  }
  if (!status.ok()) {
    // A namespace being deleted refuses creates; its next update (or
    // removal) settles it.
    log::Debug(kLogName, "namespace {}: {}", *key, status.message());
  }
  return true;
}

void ServiceAccountsController::Start() {
  worker_ = std::thread([this] {
    while (!stopping_) ProcessOne(std::chrono::milliseconds(200));
  });
}

void ServiceAccountsController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
}

ServiceAccountsControllerMetrics ServiceAccountsController::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
