#include "scheduler/scheduler.h"

#include <fmt/format.h>

#include <algorithm>

#include "allocator/allocator.h"
#include "api/pod_conditions.h"
#include "api/validation/limits.h"
#include "api/well_known.h"
#include "common/clock.h"
#include "common/log.h"
#include "scheduler/node_filter.h"
#include "scheduler/unschedulable_message.h"

namespace dralloc::scheduler {
namespace {

using client::As;
using client::ObjectPtr;
using Clock = std::chrono::steady_clock;

constexpr int kWriteAttempts = 5;
constexpr std::string_view kFinalizer = api::kDeleteProtectionFinalizer;

bool HasFinalizer(const api::ObjectMeta& meta) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(),
                   kFinalizer) != meta.finalizers.end();
}

bool ReservedFor(const api::ResourceClaim& claim, std::string_view uid) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const auto& ref) { return ref.uid == uid; });
}

api::ResourceClaimConsumerReference ConsumerRef(const api::Pod& pod) {
  return {.api_group = "",
          .resource = "pods",
          .name = pod.metadata.name,
          .uid = pod.metadata.uid};
}

bool PodPending(const api::Pod& pod) {
  return pod.spec.node_name.empty() && !pod.metadata.deletion_timestamp &&
         pod.status.phase != "Succeeded" && pod.status.phase != "Failed";
}

// Upstream's numFeasibleNodesToFind with the default adaptive percentage.
size_t FeasibleNodesToFind(size_t nodes) {
  constexpr size_t kMinFeasible = 100;
  if (nodes < kMinFeasible) return nodes;
  int64_t percentage = 50 - static_cast<int64_t>(nodes) / 125;
  percentage = std::max<int64_t>(percentage, 5);
  return std::max(kMinFeasible, nodes * percentage / 100);
}

// KEP-4816 scoring: for each result of a prioritized list, 8 - the index of
// the chosen subrequest.
int64_t PrioritizedListScore(const api::ResourceClaim& claim,
                             const api::AllocationResult& allocation) {
  int64_t score = 0;
  for (const auto& result : allocation.devices.results) {
    const size_t slash = result.request.find('/');
    if (slash == std::string::npos) continue;
    const std::string_view parent =
        std::string_view(result.request).substr(0, slash);
    const std::string_view sub =
        std::string_view(result.request).substr(slash + 1);
    for (const api::DeviceRequest& request : claim.spec.devices.requests) {
      if (request.name != parent) continue;
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        if (request.first_available[i].name == sub) {
          score += std::max<int64_t>(0, 8 - static_cast<int64_t>(i));
        }
      }
    }
  }
  return score;
}

bool HasPrioritizedList(const api::ResourceClaim& claim) {
  return std::any_of(
      claim.spec.devices.requests.begin(), claim.spec.devices.requests.end(),
      [](const api::DeviceRequest& r) { return r.first_available.size() > 1; });
}

int64_t RevisionOf(const api::Object& object) {
  return client::AssumeCache::RevisionOf(object);
}

}  // namespace

struct Scheduler::Outcome {
  enum class Kind { kSkip, kGated, kUnschedulable, kReserved };
  Kind kind = Kind::kSkip;
  std::string message;
  std::optional<BindTask> task;
  // PostFilter: allocated claims to release so the pod can go elsewhere.
  std::vector<ObjectPtr> deallocate;
};

Scheduler::Scheduler(client::ApiClient& client, SchedulerInformers informers,
                     SchedulerOptions options)
    : client_(client),
      informers_(informers),
      options_(std::move(options)),
      claims_(informers.claims) {
  informers_.pods.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnPod(o, n); });
  informers_.claims.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnClaim(o, n); });
  informers_.nodes.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnNode(o, n); });
  for (client::Informer* source :
       {&informers_.slices, &informers_.classes, &informers_.slice_patches,
        &informers_.taint_rules}) {
    source->AddHandler([this](const ObjectPtr& o, const ObjectPtr& n) {
      OnDeviceSource(o, n);
    });
  }
}

Scheduler::~Scheduler() { Stop(); }

bool Scheduler::Responsible(const api::Pod& pod) const {
  const std::string& name = pod.spec.scheduler_name;
  if (name == options_.scheduler_name) return true;
  return options_.schedule_default_pods &&
         (name.empty() || name == "default-scheduler");
}

// ---- informer handlers -------------------------------------------------

void Scheduler::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const api::Pod* pod = As<api::Pod>(now);
  const std::string key = client::ObjectKey(*(now ? now : old));
  std::lock_guard lock(mu_);
  if (pod == nullptr || !PodPending(*pod) || !Responsible(*pod)) {
    Forget(key);
    return;
  }
  if (const api::Pod* before = As<api::Pod>(old)) {
    // Our own condition updates change nothing that matters for placement.
    // (Queue membership first: it is cheaper than comparing specs.)
    if (!gated_.contains(key) &&
        (unschedulable_.contains(key) || in_active_.contains(key) ||
         in_backoff_.contains(key)) &&
        before->status.resource_claim_statuses ==
            pod->status.resource_claim_statuses &&
        before->metadata.labels == pod->metadata.labels &&
        before->spec == pod->spec) {
      return;
    }
  }
  Activate(key);
}

void Scheduler::OnClaim(const ObjectPtr& old, const ObjectPtr& now) {
  const std::string key = client::ObjectKey(*(now ? now : old));
  const auto* before = As<api::ResourceClaim>(old);
  const auto* after = As<api::ResourceClaim>(now);
  std::lock_guard lock(mu_);
  claims_.Observe(key, now);
  Recount(key);
  const bool freed =
      (before != nullptr && before->status.allocation &&
       (after == nullptr || !after->status.allocation)) ||
      (before != nullptr && after != nullptr &&
       after->status.reserved_for.size() < before->status.reserved_for.size());
  if (freed) MoveAllUnschedulable();
  if (before == nullptr && after != nullptr) {
    // Pods that waited for this claim to appear.
    auto waiting = waiting_for_claim_.find(key);
    if (waiting != waiting_for_claim_.end()) {
      std::vector<std::string> pods = std::move(waiting->second);
      waiting_for_claim_.erase(waiting);
      for (const std::string& pod_key : pods) {
        if (gated_.contains(pod_key) || unschedulable_.contains(pod_key)) {
          Activate(pod_key);
        }
      }
    }
  }
}

void Scheduler::OnDeviceSource(const ObjectPtr&, const ObjectPtr&) {
  std::lock_guard lock(mu_);
  inventory_dirty_ = true;
  MoveAllUnschedulable();
}

void Scheduler::OnNode(const ObjectPtr& old, const ObjectPtr& now) {
  const auto* before = As<api::Node>(old);
  const auto* after = As<api::Node>(now);
  std::lock_guard lock(mu_);
  nodes_dirty_ = true;
  if (after != nullptr &&
      (before == nullptr || before->metadata.labels != after->metadata.labels ||
       before->spec.taints != after->spec.taints ||
       before->spec.unschedulable != after->spec.unschedulable)) {
    MoveAllUnschedulable();
  }
}

// ---- queue -------------------------------------------------------------

void Scheduler::Activate(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
  if (binding_.contains(key) || in_active_.contains(key) ||
      in_backoff_.contains(key)) {
    return;
  }
  auto attempts = attempts_.find(key);
  if (attempts != attempts_.end() && options_.initial_backoff.count() > 0) {
    auto delay =
        options_.initial_backoff * (1 << std::min(attempts->second - 1, 10));
    delay = std::min<std::chrono::milliseconds>(delay, options_.max_backoff);
    const auto when = Clock::now() + delay;
    backoff_.emplace(when, key);
    in_backoff_[key] = when;
    return;
  }
  active_.push_back(key);
  in_active_.insert(key);
  queue_cv_.notify_one();
}

void Scheduler::MoveAllUnschedulable() {
  // In key order: the queue order must not depend on hashing.
  std::vector<std::string> keys(unschedulable_.begin(), unschedulable_.end());
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) Activate(key);
}

void Scheduler::Forget(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
  binding_.erase(key);
  attempts_.erase(key);
  last_message_.erase(key);
  if (in_active_.erase(key) > 0) std::erase(active_, key);
  if (auto it = in_backoff_.find(key); it != in_backoff_.end()) {
    auto [first, last] = backoff_.equal_range(it->second);
    for (auto b = first; b != last; ++b) {
      if (b->second == key) {
        backoff_.erase(b);
        break;
      }
    }
    in_backoff_.erase(it);
  }
}

std::optional<std::string> Scheduler::PopLocked() {
  const auto now = Clock::now();
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    std::string key = backoff_.begin()->second;
    backoff_.erase(backoff_.begin());
    in_backoff_.erase(key);
    if (!in_active_.contains(key)) {
      active_.push_back(key);
      in_active_.insert(key);
    }
  }
  if (active_.empty()) return std::nullopt;
  std::string key = std::move(active_.front());
  active_.pop_front();
  in_active_.erase(key);
  return key;
}

void Scheduler::RequeueAfterFailure(const std::string& key) {
  std::lock_guard lock(mu_);
  binding_.erase(key);
  ++attempts_[key];
  Activate(key);
}

bool Scheduler::Idle() const {
  std::lock_guard lock(mu_);
  return active_.empty() && backoff_.empty() && binding_.empty() &&
         binds_in_flight_.load() == 0;
}

SchedulerStats Scheduler::stats() {
  std::lock_guard lock(mu_);
  BookBoundLocked();
  return stats_;
}

// ---- state -------------------------------------------------------------

void Scheduler::Recount(const std::string& claim_key) {
  ObjectPtr object = claims_.Get(claim_key);
  const auto* claim = As<api::ResourceClaim>(object);
  const api::AllocationResult* now =
      claim != nullptr && claim->status.allocation ? &*claim->status.allocation
                                                   : nullptr;
  auto counted = counted_.find(claim_key);
  if (counted != counted_.end()) {
    if (counted->second == object) return;  // the same version
    const api::AllocationResult& before =
        *As<api::ResourceClaim>(counted->second)->status.allocation;
    if (now != nullptr && before.devices == now->devices) {
      counted->second = std::move(object);  // keeps what it counts alive
      return;
    }
    allocated_.RemoveAllocation(before);
    counted_.erase(counted);
  }
  if (now != nullptr) {
    allocated_.AddAllocation(*now);
    counted_.emplace(claim_key, std::move(object));
  }
}

void Scheduler::RefreshLocked() {
  if (inventory_dirty_) {
    std::vector<api::ResourceSlice> slices;
    std::vector<api::ResourceSlicePatch> patches;
    std::vector<api::DeviceTaintRule> rules;
    std::vector<api::DeviceClass> classes;
    for (const ObjectPtr& o : informers_.slices.List()) {
      if (const auto* s = As<api::ResourceSlice>(o)) slices.push_back(*s);
    }
    for (const ObjectPtr& o : informers_.slice_patches.List()) {
      if (const auto* p = As<api::ResourceSlicePatch>(o)) patches.push_back(*p);
    }
    for (const ObjectPtr& o : informers_.taint_rules.List()) {
      if (const auto* r = As<api::DeviceTaintRule>(o)) rules.push_back(*r);
    }
    for (const ObjectPtr& o : informers_.classes.List()) {
      if (const auto* c = As<api::DeviceClass>(o)) classes.push_back(*c);
    }
    inventory_.Update(std::move(slices), std::move(patches), std::move(rules),
                      std::move(classes));
    inventory_dirty_ = false;
  }
  if (nodes_dirty_) {
    nodes_.clear();
    for (ObjectPtr& o : informers_.nodes.List()) {
      const auto* node = As<api::Node>(o);
      if (node == nullptr) continue;
      nodes_.push_back({o, node, allocator::NodeInfo::FromNode(*node)});
    }
    std::sort(nodes_.begin(), nodes_.end(),
              [](const NodeEntry& a, const NodeEntry& b) {
                return a.info.name < b.info.name;
              });
    nodes_dirty_ = false;
  }
}

void Scheduler::WarmUp() {
  std::lock_guard lock(mu_);
  RefreshLocked();
}

// ---- the scheduling cycle ---------------------------------------------

Scheduler::Outcome Scheduler::Cycle(const ObjectPtr& pod_object) {
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  const std::string& ns = pod.metadata.namespace_;
  Outcome out;
  RefreshLocked();
  // A PreFilter rejection is reported for all nodes at once, as upstream.
  auto prefilter_reject = [&](std::string message) {
    out.kind = Outcome::Kind::kUnschedulable;
    out.message =
        fmt::format("0/{} nodes are available: {}.", nodes_.size(), message);
    return out;
  };

  // PreFilter: the pod's claims.
  struct PodClaim {
    std::string name;  // pod.spec.resourceClaims[].name
    std::string key;
    ObjectPtr object;
    const api::ResourceClaim* claim = nullptr;
  };
  std::vector<PodClaim> pod_claims;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    std::string claim_name;
    if (entry.resource_claim_name) {
      claim_name = *entry.resource_claim_name;
    } else {
      const api::PodResourceClaimStatus* status = nullptr;
      for (const auto& s : pod.status.resource_claim_statuses) {
        if (s.name == entry.name) status = &s;
      }
      if (status == nullptr) {
        out.kind = Outcome::Kind::kGated;
        out.message = fmt::format(
            "waiting for resource claim \"{}\" to be "
            "created",
            entry.name);
        return out;
      }
      if (!status->resource_claim_name) continue;  // not needed
      claim_name = *status->resource_claim_name;
    }
    PodClaim pc{entry.name, client::ObjectKey(ns, claim_name), nullptr,
                nullptr};
    pc.object = claims_.Get(pc.key);
    pc.claim = As<api::ResourceClaim>(pc.object);
    if (pc.claim == nullptr) {
      waiting_for_claim_[pc.key].push_back(
          client::ObjectKey(ns, pod.metadata.name));
      if (!entry.resource_claim_name) {
        out.kind = Outcome::Kind::kGated;  // created, cache not there yet
        return out;
      }
      return prefilter_reject(
          fmt::format("resourceclaim \"{}\" not found", claim_name));
    }
    if (pc.claim->metadata.deletion_timestamp) {
      return prefilter_reject(
          fmt::format("resourceclaim \"{}\" is being deleted", claim_name));
    }
    if (entry.resource_claim_template_name) {
      const auto& owners = pc.claim->metadata.owner_references;
      const bool owned =
          std::any_of(owners.begin(), owners.end(), [&](auto& o) {
            return o.uid == pod.metadata.uid && o.controller.value_or(false);
          });
      if (!owned) {
        return prefilter_reject(fmt::format(
            "ResourceClaim {} was not created for the pod", claim_name));
      }
    }
    if (pc.claim->status.allocation &&
        !ReservedFor(*pc.claim, pod.metadata.uid) &&
        static_cast<int64_t>(pc.claim->status.reserved_for.size()) >=
            api::kResourceClaimReservedForMaxSize) {
      return prefilter_reject(
          fmt::format("resourceclaim \"{}\" in use", claim_name));
    }
    if (std::none_of(pod_claims.begin(), pod_claims.end(),
                     [&](const PodClaim& p) { return p.key == pc.key; })) {
      pod_claims.push_back(std::move(pc));
    }
  }

  std::vector<const api::ResourceClaim*> to_allocate;
  std::vector<size_t> to_allocate_index;
  bool wants_scores = options_.placement != Placement::kDefault;
  for (size_t i = 0; i < pod_claims.size(); ++i) {
    if (pod_claims[i].claim->status.allocation) continue;
    to_allocate.push_back(pod_claims[i].claim);
    to_allocate_index.push_back(i);
    wants_scores = wants_scores || HasPrioritizedList(*pod_claims[i].claim);
  }

  // Filter.
  allocator::AllocatorOptions allocator_options;
  allocator_options.max_steps = options_.max_steps;
  allocator::Allocator allocator(inventory_, allocated_, allocator_options);
  struct Candidate {
    size_t node = 0;
    std::vector<api::AllocationResult> results;
  };
  std::vector<Candidate> feasible;
  UnschedulableReasons reasons;
  std::set<std::string> unavailable_claims;  // allocated elsewhere
  const size_t n = nodes_.size();
  const size_t want = (wants_scores || options_.evaluate_all_nodes)
                          ? FeasibleNodesToFind(n)
                          : 1;
  size_t evaluated = 0;
  for (; evaluated < n && feasible.size() < want; ++evaluated) {
    const NodeEntry& entry = nodes_[(next_start_node_ + evaluated) % n];
    ++stats_.nodes_evaluated;
    std::string mismatch = NodeMismatch(pod, *entry.node, entry.info);
    if (!mismatch.empty()) {
      reasons.Add(mismatch);
      continue;
    }
    bool available = true;
    for (const PodClaim& pc : pod_claims) {
      const auto& allocation = pc.claim->status.allocation;
      if (allocation && allocation->node_selector &&
          !allocator::NodeSelectorMatches(*allocation->node_selector,
                                          entry.info)) {
        unavailable_claims.insert(pc.key);
        available = false;
      }
    }
    if (!available) {
      reasons.Add("resourceclaim not available on the node");
      continue;
    }
    Candidate candidate{(next_start_node_ + evaluated) % n, {}};
    if (!to_allocate.empty()) {
      ++stats_.allocator_calls;
      auto allocation = allocator.Allocate(entry.info, to_allocate);
      if (!allocation.ok()) {
        if (allocation.status().code() == StatusCode::kInvalidArgument) {
          // Not about this node: no node can help.
          return prefilter_reject(allocation.status().message());
        }
        reasons.Add(allocation.status().code() == StatusCode::kResourceExhausted
                        ? "timed out trying to allocate devices"
                        : allocation.status().message());
        continue;
      }
      if (!allocation->allocated) {
        reasons.AddAllocatorExplanation(
            *allocation, entry.info.name, [&](std::string_view claim_name) {
              for (const PodClaim& pc : pod_claims) {
                if (pc.claim->metadata.name == claim_name) return pc.name;
              }
              return std::string(claim_name);
            });
        continue;
      }
      candidate.results = std::move(allocation->results);
    }
    feasible.push_back(std::move(candidate));
  }
  if (n > 0) next_start_node_ = (next_start_node_ + evaluated) % n;

  if (feasible.empty()) {
    out.kind = Outcome::Kind::kUnschedulable;
    out.message = reasons.Message(n);
    // PostFilter: release one allocated claim the pod alone would use.
    for (const PodClaim& pc : pod_claims) {
      if (!unavailable_claims.contains(pc.key)) continue;
      const auto& reserved = pc.claim->status.reserved_for;
      if (reserved.empty() ||
          (reserved.size() == 1 && reserved[0].uid == pod.metadata.uid)) {
        out.deallocate.push_back(pc.object);
        break;
      }
    }
    return out;
  }

  // Score.
  size_t best = 0;
  if (feasible.size() > 1) {
    std::vector<int64_t> dra(feasible.size(), 0);
    std::vector<int64_t> placement(feasible.size(), 0);
    int64_t max_dra = 0;
    for (size_t c = 0; c < feasible.size(); ++c) {
      for (size_t r = 0; r < feasible[c].results.size(); ++r) {
        dra[c] += PrioritizedListScore(*to_allocate[r], feasible[c].results[r]);
      }
      max_dra = std::max(max_dra, dra[c]);
      if (options_.placement != Placement::kDefault) {
        auto view = inventory_.ViewFor(nodes_[feasible[c].node].info);
        size_t used = 0, total = 0;
        for (const auto& pool : view->pools) {
          total += pool.devices.size();
          for (uint32_t d : pool.devices) {
            if (allocated_.IsInUse(inventory_.devices()[d].id)) ++used;
          }
        }
        const int64_t fill =
            total == 0 ? 0 : static_cast<int64_t>(used * 100 / total);
        placement[c] =
            options_.placement == Placement::kPack ? fill : 100 - fill;
      }
    }
    int64_t best_score = -1;
    for (size_t c = 0; c < feasible.size(); ++c) {
      const int64_t normalized = max_dra > 0 ? dra[c] * 100 / max_dra : 0;
      const int64_t score = 2 * normalized + placement[c];
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
  }

  // Reserve.
  Candidate& chosen = feasible[best];
  BindTask task{pod_object, nodes_[chosen.node].info.name, {}};
  const std::string now = NowRfc3339();
  for (size_t i = 0; i < pod_claims.size(); ++i) {
    const PodClaim& pc = pod_claims[i];
    auto pos = std::find(to_allocate_index.begin(), to_allocate_index.end(), i);
    const bool allocate = pos != to_allocate_index.end();
    if (!allocate && ReservedFor(*pc.claim, pod.metadata.uid)) continue;
    api::ResourceClaim assumed = *pc.claim;
    if (allocate) {
      assumed.status.allocation =
          std::move(chosen.results[pos - to_allocate_index.begin()]);
      assumed.status.allocation->allocation_timestamp = now;
      if (!HasFinalizer(assumed.metadata)) {
        assumed.metadata.finalizers.emplace_back(kFinalizer);
      }
    }
    assumed.status.reserved_for.push_back(ConsumerRef(pod));
    auto assumed_object =
        std::make_shared<const api::Object>(std::move(assumed));
    claims_.Assume(pc.key, assumed_object);
    Recount(pc.key);
    task.claims.push_back({pc.key, pc.object, assumed_object, allocate});
  }
  out.kind = Outcome::Kind::kReserved;
  out.task = std::move(task);
  return out;
}

bool Scheduler::ScheduleOne(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  BookBoundLocked();
  std::optional<std::string> key = PopLocked();
  if (!key && wait.count() > 0) {
    queue_cv_.wait_for(lock, wait, [this] {
      return !active_.empty() || stopping_ ||
             (!backoff_.empty() && backoff_.begin()->first <= Clock::now());
    });
    key = PopLocked();
  }
  if (!key) return false;
  ObjectPtr pod_object = informers_.pods.Get(*key);
  const api::Pod* pod = As<api::Pod>(pod_object);
  if (pod == nullptr || !PodPending(*pod) || !Responsible(*pod) ||
      binding_.contains(*key)) {
    return true;
  }
  Outcome outcome = Cycle(pod_object);
  switch (outcome.kind) {
    case Outcome::Kind::kSkip:
      return true;
    case Outcome::Kind::kGated:
      gated_.insert(*key);
      return true;
    case Outcome::Kind::kUnschedulable: {
      ++stats_.unschedulable;
      ++attempts_[*key];
      unschedulable_.insert(*key);
      const bool changed = last_message_[*key] != outcome.message;
      last_message_[*key] = outcome.message;
      lock.unlock();
      for (const ObjectPtr& claim_object : outcome.deallocate) {
        api::ResourceClaim claim = std::get<api::ResourceClaim>(*claim_object);
        claim.status.allocation.reset();
        claim.status.reserved_for.clear();
        claim.status.devices.clear();
        if (client_.UpdateStatus(api::Object(std::move(claim))).ok()) {
          std::lock_guard relock(mu_);
          ++stats_.deallocations;
          outcome.message += " deallocation of ResourceClaim completed";
        }
      }
      if (changed) ReportUnschedulable(*pod, outcome.message);
      return true;
    }
    case Outcome::Kind::kReserved:
      break;
  }
  binding_.insert(*key);
  ++binds_in_flight_;
  lock.unlock();
  if (options_.binders <= 0) {
    RunBindTask(std::move(*outcome.task));
  } else {
    {
      std::lock_guard bind_lock(bind_mu_);
      bind_queue_.push_back(std::move(*outcome.task));
    }
    bind_cv_.notify_one();
  }
  return true;
}

// ---- binding -------------------------------------------------------------

Status Scheduler::Bind(const BindTask& task,
                       std::vector<std::pair<std::string, int64_t>>& written) {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  for (const ClaimWrite& write : task.claims) {
    const auto& base = std::get<api::ResourceClaim>(*write.base);
    const std::string& ns = base.metadata.namespace_;
    const std::string& name = base.metadata.name;
    ObjectPtr current = write.base;
    const auto& assumed = std::get<api::ResourceClaim>(*write.assumed);
    auto refetch = [&]() -> Status {
      auto fresh = client_.Get(client::ResourceClaimsResource(), ns, name);
      if (!fresh.ok()) return fresh.status();
      current = std::move(*fresh);
      return OkStatus();
    };
    bool done = false;
    for (int attempt = 0; attempt < kWriteAttempts && !done; ++attempt) {
      const auto* claim = As<api::ResourceClaim>(current);
      if (write.allocate && claim->status.allocation) {
        return Status(StatusCode::kAborted,
                      fmt::format("claim {} was allocated concurrently", name));
      }
      if (!write.allocate && !claim->status.allocation) {
        // Another pod's binder may still be writing the allocation this
        // pod was scheduled against (a shared claim); give it a moment.
        std::this_thread::sleep_for(std::chrono::milliseconds(5 << attempt));
        RETURN_IF_ERROR(refetch());
        claim = As<api::ResourceClaim>(current);
        if (!claim->status.allocation) continue;
      }
      // The delete-protection finalizer (metadata), the allocation and the
      // reservation (status). Upstream's PreBind writes the finalizer
      // first, then the status; an in-process client writes all at once.
      api::ResourceClaim next = *claim;
      const bool add_finalizer =
          write.allocate && !HasFinalizer(claim->metadata);
      if (add_finalizer) next.metadata.finalizers.emplace_back(kFinalizer);
      if (write.allocate) next.status.allocation = assumed.status.allocation;
      if (!ReservedFor(next, pod.metadata.uid)) {
        next.status.reserved_for.push_back(ConsumerRef(pod));
      }
      const std::string sent_version = next.metadata.resource_version;
      StatusOr<ObjectPtr> result =
          add_finalizer ? client_.UpdateWithStatus(api::Object(std::move(next)))
                        : client_.UpdateStatus(api::Object(std::move(next)));
      if (result.ok()) {
        written.emplace_back(write.key, RevisionOf(**result));
        done = true;
        break;
      }
      if (result.status().code() != StatusCode::kAborted)
        return result.status();
      RETURN_IF_ERROR(refetch());
      if (api::MetaOf(*current).resource_version == sent_version) {
        // Not a stale version: the server refused the allocation (a device
        // was taken by another scheduler).
        return result.status();
      }
    }
    if (!done) {
      return Status(StatusCode::kAborted,
                    fmt::format("claim {} kept changing", name));
    }
  }
  return client_.Bind(pod.metadata.namespace_, pod.metadata.name,
                      pod.metadata.uid, task.node);
}

void Scheduler::Unreserve(
    const BindTask& task,
    const std::vector<std::pair<std::string, int64_t>>& written) {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  // If the pod got bound anyway (another scheduler bound it using the claims
  // we wrote), the claims are in use: keep them.
  auto current = client_.Get(client::PodsResource(), pod.metadata.namespace_,
                             pod.metadata.name);
  const auto* now = current.ok() ? As<api::Pod>(*current) : nullptr;
  const bool bound_elsewhere = now != nullptr &&
                               now->metadata.uid == pod.metadata.uid &&
                               !now->spec.node_name.empty();
  for (const auto& [key, revision] : written) {
    if (bound_elsewhere) break;
    // Take the reservation back (and the allocation we made, if nobody
    // else uses it).
    const ClaimWrite* write = nullptr;
    for (const ClaimWrite& w : task.claims) {
      if (w.key == key) write = &w;
    }
    const auto& base = std::get<api::ResourceClaim>(*write->base);
    for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
      auto fresh = client_.Get(client::ResourceClaimsResource(),
                               base.metadata.namespace_, base.metadata.name);
      if (!fresh.ok()) break;
      api::ResourceClaim claim = std::get<api::ResourceClaim>(**fresh);
      std::erase_if(claim.status.reserved_for, [&](const auto& ref) {
        return ref.uid == pod.metadata.uid;
      });
      if (write->allocate && claim.status.reserved_for.empty()) {
        claim.status.allocation.reset();
        claim.status.devices.clear();
      }
      auto updated = client_.UpdateStatus(api::Object(std::move(claim)));
      if (updated.ok() || updated.status().code() != StatusCode::kAborted)
        break;
    }
  }
  std::lock_guard lock(mu_);
  for (const ClaimWrite& write : task.claims) {
    claims_.Restore(write.key);
    Recount(write.key);
  }
}

void Scheduler::RunBindTask(BindTask task) {
  BoundPod done{client::ObjectKey(*task.pod), {}};
  Status status = Bind(task, done.written);
  if (status.ok()) {
    // Booked by the scheduling thread (BookBoundLocked), which holds mu_
    // most of the time: taking mu_ here for every pod made the two threads
    // take turns on it. The assumed claims keep their devices meanwhile.
    std::lock_guard lock(bound_mu_);
    bound_.push_back(std::move(done));
  } else {
    log::Debug("scheduler", "binding pod {} to {} failed: {}", done.pod_key,
               task.node, status.message());
    Unreserve(task, done.written);
    {
      std::lock_guard lock(mu_);
      ++stats_.bind_failures;
    }
    RequeueAfterFailure(done.pod_key);
  }
  if (--binds_in_flight_ == 0) {
    // Under bind_mu_, so that WaitForBinds cannot miss the wake-up between
    // testing the count and sleeping.
    { std::lock_guard lock(bind_mu_); }
    binds_done_cv_.notify_all();
  }
}

void Scheduler::BookBoundLocked() {
  std::vector<BoundPod> bound;
  {
    std::lock_guard lock(bound_mu_);
    bound.swap(bound_);
  }
  for (const BoundPod& pod : bound) {
    for (const auto& [claim_key, revision] : pod.written) {
      claims_.Confirm(claim_key, revision);
      Recount(claim_key);
    }
    // Claims that needed no write (already reserved) carry no assumption.
    ++stats_.scheduled;
    attempts_.erase(pod.pod_key);
    last_message_.erase(pod.pod_key);
  }
}

void Scheduler::WaitForBinds() {
  std::unique_lock lock(bind_mu_);
  binds_done_cv_.wait(lock, [this] { return binds_in_flight_.load() == 0; });
}

void Scheduler::ReportUnschedulable(const api::Pod& pod,
                                    const std::string& message) {
  api::Pod updated = pod;
  api::PodCondition& condition = api::ConditionOf(updated, "PodScheduled");
  const std::string now = NowRfc3339();
  if (condition.status != "False") condition.last_transition_time = now;
  condition.status = "False";
  condition.reason = "Unschedulable";
  condition.message = message;
  if (!(updated.status == pod.status)) {
    (void)client_.UpdateStatus(api::Object(std::move(updated)));
  }
  api::Event event = client::PodWarningEvent(pod, "FailedScheduling", message,
                                             options_.scheduler_name);
  if (Status created = client_.CreateEvent(event); !created.ok()) {
    log::Warn("scheduler", "event for pod {}/{}: {}", pod.metadata.namespace_,
              pod.metadata.name, created.message());
  }
}

void Scheduler::BinderLoop() {
  while (true) {
    BindTask task;
    {
      std::unique_lock lock(bind_mu_);
      bind_cv_.wait(lock, [this] { return stopping_ || !bind_queue_.empty(); });
      if (bind_queue_.empty()) return;
      task = std::move(bind_queue_.front());
      bind_queue_.pop_front();
    }
    RunBindTask(std::move(task));
  }
}

void Scheduler::StartBinders() {
  for (int i = 0; i < options_.binders; ++i) {
    binders_.emplace_back([this] { BinderLoop(); });
  }
}

void Scheduler::Start() {
  StartBinders();
  loop_ = std::thread([this] {
    for (client::Informer* informer :
         {&informers_.pods, &informers_.nodes, &informers_.claims,
          &informers_.slices, &informers_.classes, &informers_.slice_patches,
          &informers_.taint_rules}) {
      while (!stopping_ &&
             !informer->WaitForSync(std::chrono::milliseconds(200))) {
      }
    }
    while (!stopping_) ScheduleOne(std::chrono::milliseconds(200));
  });
}

void Scheduler::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  { std::lock_guard lock(bind_mu_); }
  bind_cv_.notify_all();
  for (std::thread& binder : binders_) binder.join();
  binders_.clear();
}

}  // namespace dralloc::scheduler
