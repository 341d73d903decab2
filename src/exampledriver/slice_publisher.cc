#include "exampledriver/slice_publisher.h"

#include <algorithm>
#include <utility>

#include "common/log.h"

namespace dralloc::exampledriver {
namespace {

constexpr char kComponent[] = "exampledriver";

// `spec` with the pool's bookkeeping cleared, for content comparison.
api::ResourceSliceSpec Content(api::ResourceSliceSpec spec) {
  spec.pool.generation = 0;
  spec.pool.resource_slice_count = 0;
  return spec;
}

// True when `existing` already is exactly the desired pool: one slice per
// desired spec, all at one generation with the right slice count.
bool PoolMatches(const std::vector<api::ResourceSlice>& existing,
                 const std::vector<api::ResourceSliceSpec>& desired) {
  if (existing.size() != desired.size() || existing.empty()) return false;
  const int64_t generation = existing.front().spec.pool.generation;
  std::vector<bool> used(existing.size(), false);
  for (const api::ResourceSliceSpec& want : desired) {
    bool found = false;
    for (size_t i = 0; i < existing.size() && !found; ++i) {
      const api::ResourceSliceSpec& have = existing[i].spec;
      if (used[i] || have.pool.generation != generation ||
          have.pool.resource_slice_count != std::ssize(desired) ||
          Content(have) != want) {
        continue;
      }
      used[i] = true;
      found = true;
    }
    if (!found) return false;
  }
  return true;
}

api::ResourceSlice NewSlice(const api::ResourceSliceSpec& spec) {
  api::ResourceSlice slice;
  slice.api_version = "resource.k8s.io/v1";
  slice.kind = "ResourceSlice";
  slice.metadata.generate_name = *spec.node_name + "-" + spec.driver + "-";
  slice.spec = spec;
  return slice;
}

}  // namespace

SlicePublisher::SlicePublisher(client::ApiClient* client,
                               std::vector<api::ResourceSliceSpec> desired)
    : client_(client), desired_(std::move(desired)) {
  for (auto& spec : desired_) spec = Content(std::move(spec));
  if (!desired_.empty()) {
    driver_ = desired_.front().driver;
    node_ = desired_.front().node_name.value_or("");
  }
}

SlicePublisher::~SlicePublisher() { Stop(); }

StatusOr<std::vector<api::ResourceSlice>> SlicePublisher::ListOwnSlices() {
  // A node may list only its own slices (the Node authorizer requires this
  // field selector); a client that cannot filter returns all of them, hence
  // the check below. Slices without a node name (network-attached pools)
  // have nothing to select on.
  const api::ResourceInfo& slices = client::ResourceSlicesResource();
  ASSIGN_OR_RETURN(
      client::ObjectList list,
      node_.empty() ? client_->List(slices)
                    : client_->ListMatching(slices, "spec.nodeName=" + node_));
  std::vector<api::ResourceSlice> own;
  for (const client::ObjectPtr& object : list.items) {
    const auto* slice = std::get_if<api::ResourceSlice>(object.get());
    if (slice != nullptr && slice->spec.driver == driver_ &&
        slice->spec.node_name == node_) {
      own.push_back(*slice);
    }
  }
  return own;
}

StatusOr<SyncOutcome> SlicePublisher::Sync() {
  MutexLock lock(sync_mu_);
  ASSIGN_OR_RETURN(std::vector<api::ResourceSlice> existing, ListOwnSlices());
  SyncOutcome outcome;
  if (PoolMatches(existing, desired_)) {
    outcome.generation = existing.front().spec.pool.generation;
    last_generation_ = std::max(last_generation_, outcome.generation);
    return outcome;
  }
  int64_t generation = last_generation_;
  for (const auto& slice : existing) {
    generation = std::max(generation, slice.spec.pool.generation);
  }
  outcome.generation = generation + 1;
  last_generation_ = outcome.generation;
  // Slices of another pool name cannot be renamed (immutable): delete them.
  std::vector<api::ResourceSlice> reusable;
  std::vector<api::ResourceSlice> extra;
  for (auto& slice : existing) {
    (slice.spec.pool.name == node_ ? reusable : extra)
        .push_back(std::move(slice));
  }
  for (size_t i = 0; i < desired_.size(); ++i) {
    api::ResourceSliceSpec spec = desired_[i];
    spec.pool.generation = outcome.generation;
    spec.pool.resource_slice_count = std::ssize(desired_);
    if (i < reusable.size()) {
      api::ResourceSlice slice = reusable[i];
      slice.spec = std::move(spec);
      RETURN_IF_ERROR(
          client_->Update(std::move(slice))
              .status()
              .WithPrefix("resourceslice " + reusable[i].metadata.name));
      ++outcome.updated;
    } else {
      RETURN_IF_ERROR(client_->Create(NewSlice(spec))
                          .status()
                          .WithPrefix("resourceslice for node " + node_));
      ++outcome.created;
    }
  }
  for (size_t i = desired_.size(); i < reusable.size(); ++i) {
    extra.push_back(std::move(reusable[i]));
  }
  for (const auto& slice : extra) {
    Status status = client_->Delete(client::ResourceSlicesResource(), "",
                                    slice.metadata.name, slice.metadata.uid);
    if (!status.ok() && status.code() != StatusCode::kNotFound) {
      return status.WithPrefix("resourceslice " + slice.metadata.name);
    }
    ++outcome.deleted;
  }
  log::Info(kComponent,
            "node {} driver {}: pool generation {} ({} created, {} updated, "
            "{} deleted)",
            node_, driver_, outcome.generation, outcome.created,
            outcome.updated, outcome.deleted);
  return outcome;
}

void SlicePublisher::Start(std::chrono::milliseconds interval) {
  {
    MutexLock lock(mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this, interval] { Loop(interval); });
}

void SlicePublisher::Loop(std::chrono::milliseconds interval) {
  while (true) {
    {
      MutexLock lock(mu_);
      if (wake_.WaitFor(mu_, interval,
                        [&]() REQUIRES(mu_) { return stopping_; })) {
        return;
      }
    }
    auto outcome = Sync();
    if (!outcome.ok()) {
      log::Warn(kComponent, "syncing ResourceSlices of node {}: {}", node_,
                outcome.status().message());
    }
  }
}

void SlicePublisher::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

}  // namespace dralloc::exampledriver
