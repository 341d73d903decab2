#include "apiserver/rbac_policy_feed.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "api/codec.h"
#include "common/log.h"

namespace dralloc::apiserver {
namespace {

// The storage prefixes of the four kinds (ResourceStorage::Prefix).
constexpr std::array<std::string_view, 4> kPrefixes = {
    "/clusterroles/", "/roles/", "/clusterrolebindings/", "/rolebindings/"};
// How long one watch is waited on per pass (the passes cycle the four).
constexpr std::chrono::milliseconds kPollTimeout{20};

std::optional<api::Object> Decode(const store::Value& value) {
  if (!value) return std::nullopt;
  std::vector<api::DecodeResult> decoded = api::DecodeDocument(*value);
  if (decoded.size() != 1 || !decoded[0].object) return std::nullopt;
  return std::move(*decoded[0].object);
}

}  // namespace

RbacPolicyFeed::RbacPolicyFeed(store::Store& store, rbac::PolicyIndex& index)
    : store_(store), index_(index) {}

RbacPolicyFeed::~RbacPolicyFeed() { Stop(); }

Status RbacPolicyFeed::Start() {
  RETURN_IF_ERROR(Relist());
  thread_ = std::thread([this] { Run(); });
  return OkStatus();
}

void RbacPolicyFeed::Stop() {
  // The thread notices within one poll timeout; it alone touches the
  // watches once started.
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

Status RbacPolicyFeed::Relist() {
  for (auto& watcher : watchers_) watcher->Stop();
  watchers_.clear();
  const int64_t revision = store_.Revision();
  std::vector<api::Object> objects;
  for (std::string_view prefix : kPrefixes) {
    ASSIGN_OR_RETURN(store::ListResult listed,
                     store_.ListAt(prefix, "", 0, revision));
    for (const store::KeyValue& kv : listed.items) {
      if (auto object = Decode(kv.value)) objects.push_back(std::move(*object));
    }
  }
  index_.Reset(objects);
  for (std::string_view prefix : kPrefixes) {
    ASSIGN_OR_RETURN(std::unique_ptr<store::Watcher> watcher,
                     store_.Watch(std::string(prefix), revision));
    watchers_.push_back(std::move(watcher));
  }
  ++lists_;
  if (listener_) listener_(/*cluster_roles_changed=*/true);
  MarkSynced(revision);
  return OkStatus();
}

void RbacPolicyFeed::Run() {
  while (!stopping_) {
    Status status = PollOnce();
    if (status.ok() || stopping_) continue;
    log::Warn("rbac", "policy feed: {}; listing again", status.ToString());
    while (!stopping_ && !Relist().ok()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

Status RbacPolicyFeed::PollOnce() {
  // Every write up to here is delivered to a watch once this pass finds
  // all of them idle.
  const int64_t target = store_.Revision();
  bool idle = true;
  bool cluster_roles_changed = false;
  for (auto& watcher : watchers_) {
    ASSIGN_OR_RETURN(std::vector<store::WatchEvent> events,
                     watcher->Next(kPollTimeout));
    if (!events.empty()) idle = false;
    for (const store::WatchEvent& event : events) {
      ApplyEvent(event, cluster_roles_changed);
    }
  }
  if (!idle && listener_) listener_(cluster_roles_changed);
  if (idle) MarkSynced(target);
  return OkStatus();
}

void RbacPolicyFeed::ApplyEvent(const store::WatchEvent& event,
                                bool& cluster_roles_changed) {
  std::optional<api::Object> object = Decode(event.kv.value);
  if (!object) return;
  if (std::holds_alternative<api::ClusterRole>(*object)) {
    cluster_roles_changed = true;
  }
  if (event.type == store::WatchEvent::Type::kDelete) {
    index_.Remove(*object);
  } else {
    index_.Upsert(*object);
  }
}

void RbacPolicyFeed::MarkSynced(int64_t revision) {
  MutexLock lock(mu_);
  if (revision > synced_revision_) synced_revision_ = revision;
  synced_cv_.SignalAll();
}

int64_t RbacPolicyFeed::synced_revision() const {
  MutexLock lock(mu_);
  return synced_revision_;
}

bool RbacPolicyFeed::WaitForRevision(int64_t revision,
                                     std::chrono::milliseconds timeout) {
  MutexLock lock(mu_);
  return synced_cv_.WaitFor(mu_, timeout, [&]() REQUIRES(mu_) {
    return synced_revision_ >= revision;
  });
}

}  // namespace dralloc::apiserver
