#include "controller/pod_gc_controller.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "common/log.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

constexpr std::string_view kComponent = "pod-gc";

// The node a pod is bound to ("" when none), for a possibly null object.
std::string NodeOf(const ObjectPtr& object) {
  const api::Pod* pod = As<api::Pod>(object);
  return pod == nullptr ? std::string() : pod->spec.node_name;
}

}  // namespace

bool NodeIsReady(const api::Node& node) {
  for (const auto& [name, value] : node.status.unknown_fields) {
    if (name != "conditions") continue;
    const nlohmann::json conditions =
        nlohmann::json::parse(value.json, nullptr, /*allow_exceptions=*/false);
    if (!conditions.is_array()) return false;
    for (const nlohmann::json& condition : conditions) {
      if (condition.is_object() && condition.value("type", "") == "Ready") {
        return condition.value("status", "") == "True";
      }
    }
  }
  return false;
}

PodGcController::PodGcController(client::ApiClient& client,
                                 client::Informer& pods,
                                 client::Informer& nodes, PodGcOptions options)
    : client_(client),
      pods_(pods),
      nodes_(nodes),
      options_(options),
      queue_({.max_retries = options_.max_retries}) {
  pods_.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnPod(o, n); });
  nodes_.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnNode(o, n); });
}

PodGcController::~PodGcController() { Stop(); }

void PodGcController::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const api::Pod* pod = As<api::Pod>(now ? now : old);
  if (pod == nullptr) return;
  std::string key =
      client::ObjectKey(pod->metadata.namespace_, pod->metadata.name);
  const std::string old_node = NodeOf(old);
  const std::string new_node = NodeOf(now);
  {
    MutexLock lock(mu_);
    if (old_node != new_node && !old_node.empty()) {
      auto it = pods_by_node_.find(old_node);
      if (it != pods_by_node_.end()) {
        it->second.erase(key);
        if (it->second.empty()) pods_by_node_.erase(it);
      }
    }
    if (!new_node.empty()) pods_by_node_[new_node].insert(key);
    if (!now) {
      orphaned_since_.erase(key);
      quarantined_.erase(key);
      return;
    }
  }
  const bool terminating = pod->metadata.deletion_timestamp.has_value();
  if (terminating ||
      (!new_node.empty() && nodes_.Get("", new_node) == nullptr)) {
    queue_.Add(std::move(key));
  }
}

void PodGcController::OnNode(const ObjectPtr& old, const ObjectPtr& now) {
  const api::Node* node = As<api::Node>(now ? now : old);
  if (node == nullptr) return;
  // Only a node that went away or stopped being Ready changes a decision
  // (a Ready node's pods are its agent's).
  const bool was_ready = old && NodeIsReady(*As<api::Node>(old));
  const bool is_ready = now && NodeIsReady(*As<api::Node>(now));
  if (now && (is_ready || (old && !was_ready))) return;
  std::vector<std::string> keys;
  {
    MutexLock lock(mu_);
    auto it = pods_by_node_.find(node->metadata.name);
    if (it == pods_by_node_.end()) return;
    keys.assign(it->second.begin(), it->second.end());
  }
  for (std::string& key : keys) {
    const ObjectPtr pod = pods_.Get(key);
    // Pods of a node that still exists matter only while terminating.
    if (now && (!pod || !api::MetaOf(*pod).deletion_timestamp)) continue;
    queue_.Add(std::move(key));
  }
}

StatusOr<std::optional<bool>> PodGcController::NodeReady(
    const std::string& node) {
  StatusOr<ObjectPtr> current = client_.Get(client::NodesResource(), "", node);
  if (!current.ok()) {
    if (current.status().code() == StatusCode::kNotFound) {
      return std::optional<bool>();
    }
    return current.status();
  }
  const api::Node* typed = As<api::Node>(*current);
  return std::optional<bool>(typed != nullptr && NodeIsReady(*typed));
}

Status PodGcController::ForceDelete(const api::Pod& pod) {
  Status deleted = client_.Delete(
      client::PodsResource(), pod.metadata.namespace_, pod.metadata.name,
      client::DeleteOptions{.grace_period_seconds = 0,
                            .uid = pod.metadata.uid});
  // Gone already, or replaced by a pod of the same name (its own events
  // decide about it).
  if (deleted.code() == StatusCode::kNotFound ||
      deleted.code() == StatusCode::kAborted) {
    return OkStatus();
  }
  return deleted;
}

Status PodGcController::Sync(const std::string& key) {
  const ObjectPtr object = pods_.Get(key);
  const api::Pod* pod = As<api::Pod>(object);
  if (pod == nullptr) return OkStatus();
  const bool terminating = pod->metadata.deletion_timestamp.has_value();
  const std::string& node = pod->spec.node_name;
  if (node.empty()) {
    if (!terminating) return OkStatus();
    log::Info(kComponent, "deleting unscheduled terminating pod {}", key);
    return ForceDelete(*pod);
  }
  ASSIGN_OR_RETURN(std::optional<bool> ready, NodeReady(node));
  if (ready.has_value()) {
    {
      MutexLock lock(mu_);
      orphaned_since_.erase(key);
      quarantined_.erase(key);
    }
    if (!terminating || *ready) return OkStatus();
    log::Info(kComponent,
              "deleting terminating pod {}: node {} has no Ready node agent",
              key, node);
    RETURN_IF_ERROR(ForceDelete(*pod));
    MutexLock lock(mu_);
    ++metrics_.terminating_deleted;
    return OkStatus();
  }
  if (!terminating) {
    const auto now = std::chrono::steady_clock::now();
    MutexLock lock(mu_);
    const auto since = orphaned_since_.try_emplace(key, now).first->second;
    if (now - since < options_.orphan_quarantine) {
      quarantined_.insert(key);  // QueueDueOrphans queues it when due
      return OkStatus();
    }
  }
  log::Info(kComponent, "deleting {} pod {}: node {} does not exist",
            terminating ? "terminating" : "orphaned", key, node);
  RETURN_IF_ERROR(ForceDelete(*pod));
  MutexLock lock(mu_);
  orphaned_since_.erase(key);
  ++(terminating ? metrics_.terminating_deleted : metrics_.orphans_deleted);
  return OkStatus();
}

void PodGcController::QueueDueOrphans() {
  std::vector<std::string> due;
  {
    const auto now = std::chrono::steady_clock::now();
    MutexLock lock(mu_);
    for (auto it = quarantined_.begin(); it != quarantined_.end();) {
      auto since = orphaned_since_.find(*it);
      if (since == orphaned_since_.end() ||
          now - since->second >= options_.orphan_quarantine) {
        due.push_back(*it);
        it = quarantined_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (std::string& key : due) queue_.Add(std::move(key));
}

bool PodGcController::ProcessOne(std::chrono::milliseconds wait) {
  QueueDueOrphans();
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  queue_.Finish(*key, status.ok());
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (!status.ok()) ++metrics_.sync_errors;
  }
  if (!status.ok()) log::Warn(kComponent, "{}: {}", *key, status.message());
  return true;
}

void PodGcController::Start() {
  worker_ = std::thread([this] {
    while (!stopping_) ProcessOne(std::chrono::milliseconds(200));
  });
}

void PodGcController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
}

PodGcMetrics PodGcController::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
