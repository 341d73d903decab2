#include "controller/device_taint_eviction_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <utility>

#include "api/claim_helpers.h"
#include "common/clock.h"
#include "common/log.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

constexpr std::string_view kNoExecute = "NoExecute";
// tolerationSeconds beyond this (about 100 years) count as this, so that
// adding them to a time point cannot overflow.
constexpr int64_t kMaxTolerationSeconds = int64_t{100} * 366 * 24 * 3600;

// A taint on one device and the rule it came from ("" for the slice).
struct DeviceTaintSource {
  api::DeviceTaint taint;
  std::string rule;
};

std::string DeviceId(std::string_view driver, std::string_view pool,
                     std::string_view device) {
  return fmt::format("{}/{}/{}", driver, pool, device);
}

std::string TaintKey(const api::DeviceTaint& taint) {
  return fmt::format("{}={}:{}", taint.key, taint.value, taint.effect);
}

std::string PodKey(const api::Pod& pod) {
  return fmt::format("{}/{}", pod.metadata.namespace_, pod.metadata.name);
}

void FoldEarliest(std::optional<SystemTime>& earliest, SystemTime time) {
  if (!earliest.has_value() || time < *earliest) earliest = time;
}

// A Normal DeviceTaintManagerEviction event about `pod`, as upstream's
// recorder sends them.
api::Event EvictionEvent(const api::Pod& pod, std::string message) {
  api::Event event = client::PodWarningEvent(
      pod, "DeviceTaintManagerEviction", std::move(message),
      std::string(kDeviceTaintEvictionComponent));
  event.type = "Normal";
  return event;
}

// The newest generation of each pool (driver/pool): slices of older
// generations are being replaced and their taints no longer count.
std::map<std::pair<std::string_view, std::string_view>, int64_t>
NewestGenerations(const std::vector<const api::ResourceSlice*>& slices) {
  std::map<std::pair<std::string_view, std::string_view>, int64_t> newest;
  for (const api::ResourceSlice* slice : slices) {
    auto [it, inserted] =
        newest.try_emplace({slice->spec.driver, slice->spec.pool.name},
                           slice->spec.pool.generation);
    if (!inserted)
      it->second = std::max(it->second, slice->spec.pool.generation);
  }
  return newest;
}

// Whether `rule` names `result`'s device by driver, pool and device name
// only: such a rule still applies to an allocated device whose slice is gone
// (a class or CEL selector needs the device itself).
bool SelectsByNameOnly(const api::DeviceTaintRule& rule,
                       const api::DeviceRequestAllocationResult& result) {
  if (!rule.spec.device_selector.has_value()) return true;
  const api::DeviceTaintSelector& selector = *rule.spec.device_selector;
  if (selector.device_class_name.has_value() || !selector.selectors.empty()) {
    return false;
  }
  return (!selector.driver || *selector.driver == result.driver) &&
         (!selector.pool || *selector.pool == result.pool) &&
         (!selector.device || *selector.device == result.device);
}

// Taints from rules on allocated devices that no slice publishes any more.
void AddUnpublishedDeviceTaints(
    const TaintEvictionInputs& inputs,
    std::map<std::string, std::vector<DeviceTaintSource>>& taints) {
  for (const api::ResourceClaim* claim : inputs.claims) {
    if (!claim->status.allocation.has_value()) continue;
    for (const api::DeviceRequestAllocationResult& result :
         claim->status.allocation->devices.results) {
      const std::string id =
          DeviceId(result.driver, result.pool, result.device);
      if (taints.contains(id)) continue;
      auto& list = taints[id];
      for (const api::DeviceTaintRule* rule : inputs.rules) {
        if (SelectsByNameOnly(*rule, result)) {
          list.push_back({rule->spec.taint, rule->metadata.name});
        }
      }
    }
  }
}

// device id → its taints, from the slices (newest pool generation) and the
// rules.
std::map<std::string, std::vector<DeviceTaintSource>> CollectDeviceTaints(
    const TaintEvictionInputs& inputs) {
  std::map<std::string, std::vector<DeviceTaintSource>> taints;
  std::vector<std::pair<std::string, allocator::SlicePatcher>> patchers;
  for (const api::DeviceTaintRule* rule : inputs.rules) {
    patchers.emplace_back(rule->metadata.name,
                          allocator::SlicePatcher({}, {*rule}, inputs.classes));
  }
  const auto newest = NewestGenerations(inputs.slices);
  for (const api::ResourceSlice* slice : inputs.slices) {
    const api::ResourceSliceSpec& spec = slice->spec;
    if (spec.pool.generation < newest.at({spec.driver, spec.pool.name})) {
      continue;
    }
    for (const api::Device& device : spec.devices) {
      auto& list = taints[DeviceId(spec.driver, spec.pool.name, device.name)];
      for (const api::DeviceTaint& taint : device.taints) {
        list.push_back({taint, ""});
      }
    }
    std::vector<allocator::PatchProblem> problems;
    for (const auto& [rule, patcher] : patchers) {
      const api::ResourceSlice patched = patcher.Apply(*slice, problems);
      for (size_t i = 0; i < patched.spec.devices.size(); ++i) {
        const api::Device& device = patched.spec.devices[i];
        const size_t own = spec.devices[i].taints.size();
        auto& list = taints[DeviceId(spec.driver, spec.pool.name, device.name)];
        for (size_t t = own; t < device.taints.size(); ++t) {
          list.push_back({device.taints[t], rule});
        }
      }
    }
  }
  AddUnpublishedDeviceTaints(inputs, taints);
  return taints;
}

// When `source` evicts a pod whose allocated device has `tolerations`;
// nullopt when never. As upstream's claimEvictionTime: only matching
// tolerations with effect NoExecute count (not an empty effect); any of
// them without tolerationSeconds tolerates for ever, otherwise the
// smallest tolerationSeconds (negative: 0) wins.
std::optional<SystemTime> TaintEvictionTime(
    const DeviceTaintSource& source,
    const std::vector<api::DeviceToleration>& tolerations,
    const TaintEvictionInputs& inputs) {
  if (source.taint.effect != kNoExecute) return std::nullopt;
  std::optional<int64_t> seconds;
  for (const api::DeviceToleration& toleration : tolerations) {
    if (toleration.effect != kNoExecute ||
        !api::DeviceTolerationMatches(toleration, source.taint)) {
      continue;
    }
    if (!toleration.toleration_seconds.has_value()) return std::nullopt;
    const int64_t these = std::clamp<int64_t>(*toleration.toleration_seconds, 0,
                                              kMaxTolerationSeconds);
    seconds = std::min(seconds.value_or(these), these);
  }
  if (!seconds.has_value()) return inputs.now;
  std::optional<SystemTime> added;
  if (source.taint.time_added.has_value()) {
    added = ParseUtcTime(*source.taint.time_added);
  }
  if (!added.has_value()) {
    added = inputs.first_seen ? inputs.first_seen(source.taint) : inputs.now;
  }
  return *added + std::chrono::seconds(*seconds);
}

const api::ResourceClaim* FindClaim(const TaintEvictionInputs& inputs,
                                    const std::string& namespace_,
                                    const std::string& name) {
  for (const api::ResourceClaim* claim : inputs.claims) {
    if (claim->metadata.namespace_ == namespace_ &&
        claim->metadata.name == name) {
      return claim;
    }
  }
  return nullptr;
}

// Folds the eviction time of one taint into `plan`.
void FoldEviction(SystemTime at, const std::string& rule,
                  std::optional<PlannedEviction>& plan, const api::Pod& pod) {
  if (!plan.has_value() || at < plan->evict_at) {
    plan = PlannedEviction{.pod = &pod, .evict_at = at, .rules = {}};
  }
  if (at == plan->evict_at && !rule.empty() &&
      std::find(plan->rules.begin(), plan->rules.end(), rule) ==
          plan->rules.end()) {
    plan->rules.push_back(rule);
  }
}

std::optional<PlannedEviction> PlanPod(
    const api::Pod& pod, const TaintEvictionInputs& inputs,
    const std::map<std::string, std::vector<DeviceTaintSource>>& taints) {
  if (pod.metadata.deletion_timestamp.has_value()) return std::nullopt;
  if (pod.spec.node_name.empty()) return std::nullopt;
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    return std::nullopt;
  }
  std::optional<PlannedEviction> plan;
  for (const std::string& name : api::PodClaimNames(pod)) {
    const api::ResourceClaim* claim =
        FindClaim(inputs, pod.metadata.namespace_, name);
    if (claim == nullptr || !claim->status.allocation.has_value()) continue;
    for (const api::DeviceRequestAllocationResult& result :
         claim->status.allocation->devices.results) {
      auto found =
          taints.find(DeviceId(result.driver, result.pool, result.device));
      if (found == taints.end()) continue;
      for (const DeviceTaintSource& source : found->second) {
        std::optional<SystemTime> at =
            TaintEvictionTime(source, result.tolerations, inputs);
        if (at.has_value()) FoldEviction(*at, source.rule, plan, pod);
      }
    }
  }
  return plan;
}

std::string Plural(int64_t count, std::string_view one, std::string_view many) {
  return count == 1 ? fmt::format("1 {}", one)
                    : fmt::format("{} {}", count, many);
}

// Whether a device of `slices` carries a NoExecute taint itself.
bool AnyNoExecuteTaint(const std::vector<const api::ResourceSlice*>& slices) {
  for (const api::ResourceSlice* slice : slices) {
    for (const api::Device& device : slice->spec.devices) {
      for (const api::DeviceTaint& taint : device.taints) {
        if (taint.effect == "NoExecute") return true;
      }
    }
  }
  return false;
}

}  // namespace

std::vector<PlannedEviction> PlanDeviceTaintEvictions(
    const TaintEvictionInputs& inputs) {
  const auto taints = CollectDeviceTaints(inputs);
  std::vector<PlannedEviction> plans;
  for (const api::Pod* pod : inputs.pods) {
    std::optional<PlannedEviction> plan = PlanPod(*pod, inputs, taints);
    if (plan.has_value()) plans.push_back(std::move(*plan));
  }
  return plans;
}

RuleEvictionCounts SimulateNoExecute(const TaintEvictionInputs& inputs,
                                     const api::DeviceTaintRule& rule) {
  api::DeviceTaintRule as_no_execute = rule;
  as_no_execute.spec.taint.effect = std::string(kNoExecute);
  TaintEvictionInputs simulated = inputs;
  simulated.rules = {&as_no_execute};
  const auto taints = CollectDeviceTaints(simulated);
  const std::string& name = rule.metadata.name;
  const auto selected = [&](const std::string& device) {
    auto found = taints.find(device);
    return found != taints.end() &&
           std::any_of(
               found->second.begin(), found->second.end(),
               [&](const DeviceTaintSource& s) { return s.rule == name; });
  };
  RuleEvictionCounts counts;
  for (const api::ResourceSlice* slice : inputs.slices) {
    for (const api::Device& device : slice->spec.devices) {
      counts.published_devices += selected(
          DeviceId(slice->spec.driver, slice->spec.pool.name, device.name));
    }
  }
  for (const api::ResourceClaim* claim : inputs.claims) {
    if (!claim->status.allocation.has_value()) continue;
    for (const auto& result : claim->status.allocation->devices.results) {
      counts.allocated_devices +=
          selected(DeviceId(result.driver, result.pool, result.device));
    }
  }
  std::set<std::string> namespaces;
  for (const PlannedEviction& plan : PlanDeviceTaintEvictions(simulated)) {
    if (std::find(plan.rules.begin(), plan.rules.end(), name) ==
        plan.rules.end()) {
      continue;
    }
    ++counts.pending_pods;
    namespaces.insert(plan.pod->metadata.namespace_);
  }
  counts.pending_namespaces = static_cast<int64_t>(namespaces.size());
  return counts;
}

api::Condition RuleEvictionCondition(const api::DeviceTaintRule& rule,
                                     const RuleEvictionCounts& counts) {
  api::Condition condition{.type = std::string(kEvictionInProgress),
                           .status = "False",
                           .observed_generation = rule.metadata.generation,
                           .last_transition_time = "",
                           .reason = "",
                           .message = ""};
  const std::string& effect = rule.spec.taint.effect;
  const std::string namespaces =
      counts.pending_namespaces == 1
          ? std::string("1 namespace")
          : fmt::format("{} different namespaces", counts.pending_namespaces);
  if (effect == kNoExecute) {
    if (counts.pending_pods > 0) {
      condition.status = "True";
      condition.reason = "PodsPendingEviction";
      condition.message =
          fmt::format("{} to be evicted in {}.",
                      counts.pending_pods == 1
                          ? std::string("1 pod needs")
                          : fmt::format("{} pods need", counts.pending_pods),
                      namespaces);
    } else {
      condition.reason = counts.evicted_pods > 0 ? "Completed" : "NotStarted";
    }
  } else if (effect == "None") {
    condition.reason = "NoEffect";
    condition.message = fmt::format(
        "{} selected. {} selected. {} be evicted in {} if the effect was "
        "NoExecute. This information will not be updated again. Recreate the "
        "DeviceTaintRule to trigger an update.",
        Plural(counts.published_devices, "published device",
               "published devices"),
        Plural(counts.allocated_devices, "allocated device",
               "allocated devices"),
        Plural(counts.pending_pods, "pod would", "pods would"), namespaces);
  } else {
    condition.reason = "OtherEffect";
    condition.message = "Eviction only happens for the NoExecute effect.";
  }
  if (counts.evicted_pods > 0) {
    if (!condition.message.empty()) condition.message += " ";
    condition.message += Plural(counts.evicted_pods, "pod", "pods") +
                         " evicted since starting the controller.";
  }
  return condition;
}

DeviceTaintEvictionController::DeviceTaintEvictionController(
    client::ApiClient& client, client::Informer& pods, client::Informer& claims,
    client::Informer& slices, client::Informer& rules,
    client::Informer& classes, DeviceTaintEvictionOptions options)
    : client_(client),
      pods_(pods),
      claims_(claims),
      slices_(slices),
      rules_(rules),
      classes_(classes),
      options_(options) {
  for (client::Informer* informer : {&slices_, &rules_, &classes_}) {
    informer->AddHandler(
        [this](const ObjectPtr&, const ObjectPtr&) { MarkDirty(); });
  }
  // Pods and claims change thousands of times a second under load; while
  // no NoExecute taint and no rule exists their changes cannot start or
  // stop an eviction, and a round (which reads every pod) is not run.
  for (client::Informer* informer : {&pods_, &claims_}) {
    informer->AddHandler([this](const ObjectPtr&, const ObjectPtr&) {
      if (pods_matter_.load(std::memory_order_relaxed)) MarkDirty();
    });
  }
}

DeviceTaintEvictionController::~DeviceTaintEvictionController() { Stop(); }

void DeviceTaintEvictionController::MarkDirty() {
  {
    MutexLock lock(mu_);
    dirty_ = true;
  }
  wake_.SignalAll();
}

SystemTime DeviceTaintEvictionController::FirstSeen(
    const api::DeviceTaint& taint) {
  MutexLock lock(mu_);
  return first_seen_
      .try_emplace(TaintKey(taint), std::chrono::system_clock::now())
      .first->second;
}

StatusOr<bool> DeviceTaintEvictionController::Evict(const api::Pod& cached) {
  // The cache may lag behind an eviction of an earlier round: decide on the
  // pod as the API has it now, as upstream does.
  StatusOr<ObjectPtr> fresh = client_.Get(
      client::PodsResource(), cached.metadata.namespace_, cached.metadata.name);
  if (fresh.status().code() == StatusCode::kNotFound) return false;
  RETURN_IF_ERROR(fresh.status());
  const api::Pod* pod = As<api::Pod>(*fresh);
  if (pod == nullptr || pod->metadata.uid != cached.metadata.uid ||
      pod->metadata.deletion_timestamp.has_value()) {
    return false;
  }
  // Best effort, as upstream's recorder.
  (void)client_.CreateEvent(EvictionEvent(*pod, "Marking for deletion"));
  RETURN_IF_ERROR(MarkDisruptionTarget(*pod));
  Status deleted = client_.Delete(
      client::PodsResource(), pod->metadata.namespace_, pod->metadata.name,
      client::DeleteOptions{.uid = pod->metadata.uid});
  if (deleted.code() == StatusCode::kNotFound ||
      deleted.code() == StatusCode::kAborted) {
    return false;
  }
  RETURN_IF_ERROR(deleted);
  return true;
}

Status DeviceTaintEvictionController::MarkDisruptionTarget(
    const api::Pod& pod) {
  const api::PodCondition condition{
      .type = "DisruptionTarget",
      .status = "True",
      .last_probe_time = std::nullopt,
      .last_transition_time = NowRfc3339(),
      .reason = "DeletionByDeviceTaintManager",
      .message = "Device Taint manager: deleting due to NoExecute taint"};
  api::Pod updated = pod;
  auto& conditions = updated.status.conditions;
  auto existing = std::find_if(
      conditions.begin(), conditions.end(),
      [](const api::PodCondition& c) { return c.type == "DisruptionTarget"; });
  if (existing == conditions.end()) {
    conditions.push_back(condition);
  } else if (existing->status != condition.status ||
             existing->reason != condition.reason ||
             existing->message != condition.message) {
    *existing = condition;
  } else {
    return OkStatus();
  }
  StatusOr<ObjectPtr> written = client_.UpdateStatus(updated);
  if (written.status().code() == StatusCode::kNotFound) return OkStatus();
  return written.status();
}

std::optional<SystemTime> DeviceTaintEvictionController::RunOnce(
    SystemTime now) {
  std::vector<ObjectPtr> keep;  // owns what `inputs` points to
  TaintEvictionInputs inputs;
  auto collect = [&keep]<typename T>(client::Informer& informer,
                                     std::vector<const T*>& out) {
    for (ObjectPtr& object : informer.List()) {
      if (const T* typed = As<T>(object)) {
        out.push_back(typed);
        keep.push_back(std::move(object));
      }
    }
  };
  collect(pods_, inputs.pods);
  collect(claims_, inputs.claims);
  collect(slices_, inputs.slices);
  collect(rules_, inputs.rules);
  std::vector<const api::DeviceClass*> classes;
  collect(classes_, classes);
  inputs.classes = [&classes](std::string_view name) {
    for (const api::DeviceClass* c : classes) {
      if (c->metadata.name == name) return c;
    }
    return static_cast<const api::DeviceClass*>(nullptr);
  };
  inputs.now = now;
  inputs.first_seen = [this](const api::DeviceTaint& t) {
    return FirstSeen(t);
  };

  std::vector<PlannedEviction> plans = PlanDeviceTaintEvictions(inputs);
  CancelDroppedEvictions(inputs, plans);
  std::vector<PlannedEviction> pending;
  std::optional<SystemTime> next;
  for (PlannedEviction& plan : plans) {
    if (plan.evict_at > now) {
      FoldEarliest(next, plan.evict_at);
      pending.push_back(std::move(plan));
      continue;
    }
    const api::Pod& pod = *plan.pod;
    log::Info(kDeviceTaintEvictionComponent, "evicting pod {}/{}",
              pod.metadata.namespace_, pod.metadata.name);
    StatusOr<bool> evicted = Evict(pod);
    MutexLock lock(mu_);
    if (!evicted.ok()) {
      ++metrics_.eviction_errors;
      log::Warn(kDeviceTaintEvictionComponent, "evicting pod {}/{}: {}",
                pod.metadata.namespace_, pod.metadata.name,
                evicted.status().ToString());
      pending.push_back(std::move(plan));
      continue;
    }
    // Counted once: later rounds that still see the pod in a lagging cache
    // find it gone or being deleted and evict nothing.
    if (!*evicted) continue;
    ++metrics_.pods_evicted;
    for (const std::string& rule : plan.rules) {
      for (const api::DeviceTaintRule* r : inputs.rules) {
        if (r->metadata.name != rule) continue;
        ++evicted_by_rule_[r->metadata.uid];
        // As upstream, the status is rechecked one period later rather than
        // now, when the cache still shows the pod (the earliest request
        // stands, as in a delaying work queue).
        const SystemTime recheck = now + options_.rule_status_period;
        auto [it, inserted] =
            status_recheck_.try_emplace(r->metadata.uid, recheck);
        if (!inserted) it->second = std::min(it->second, recheck);
      }
    }
  }
  {
    MutexLock lock(mu_);
    scheduled_.clear();
    for (const PlannedEviction& plan : pending) {
      scheduled_[PodKey(*plan.pod)] = plan.pod->metadata.uid;
    }
  }
  if (std::optional<SystemTime> due =
          UpdateRuleStatuses(inputs, pending, now)) {
    FoldEarliest(next, *due);
  }
  MutexLock lock(mu_);
  // This round rechecked every rule: drop the rechecks that are due, and
  // those of rules that are gone.
  std::set<std::string_view> rules;
  for (const api::DeviceTaintRule* rule : inputs.rules) {
    rules.insert(rule->metadata.uid);
  }
  std::erase_if(status_recheck_, [&](const auto& entry) {
    return entry.second <= now || !rules.contains(entry.first);
  });
  for (const auto& [uid, at] : status_recheck_) FoldEarliest(next, at);
  ++metrics_.rounds;
  // Set before a slice or rule change could mark the next round dirty, so
  // no change is missed: such a change runs a round that reads every pod.
  pods_matter_.store(!inputs.rules.empty() || !scheduled_.empty() ||
                         AnyNoExecuteTaint(inputs.slices),
                     std::memory_order_relaxed);
  return next;
}

void DeviceTaintEvictionController::CancelDroppedEvictions(
    const TaintEvictionInputs& inputs,
    const std::vector<PlannedEviction>& plans) {
  std::map<std::string, std::string> dropped;
  {
    MutexLock lock(mu_);
    dropped = scheduled_;
  }
  for (const PlannedEviction& plan : plans) {
    auto found = dropped.find(PodKey(*plan.pod));
    if (found != dropped.end() && found->second == plan.pod->metadata.uid) {
      dropped.erase(found);
    }
  }
  if (dropped.empty()) return;
  for (const api::Pod* pod : inputs.pods) {
    auto found = dropped.find(PodKey(*pod));
    if (found == dropped.end() || found->second != pod->metadata.uid) continue;
    // Upstream re-plans a pod only when its claims, their taints or its
    // node change: a pod that is going away gets no event.
    if (pod->metadata.deletion_timestamp.has_value() ||
        pod->status.phase == "Succeeded" || pod->status.phase == "Failed") {
      continue;
    }
    log::Info(kDeviceTaintEvictionComponent,
              "cancelling the eviction of pod {}/{}", pod->metadata.namespace_,
              pod->metadata.name);
    // Best effort, as upstream's recorder.
    (void)client_.CreateEvent(EvictionEvent(*pod, "Cancelling deletion"));
    MutexLock lock(mu_);
    ++metrics_.evictions_cancelled;
  }
}

RuleEvictionCounts DeviceTaintEvictionController::CountsFor(
    const TaintEvictionInputs& inputs, const api::DeviceTaintRule& rule,
    const std::vector<PlannedEviction>& pending) {
  RuleEvictionCounts counts;
  if (rule.spec.taint.effect == "None") {
    counts = SimulateNoExecute(inputs, rule);
  } else {
    std::set<std::string> namespaces;
    for (const PlannedEviction& plan : pending) {
      if (std::find(plan.rules.begin(), plan.rules.end(), rule.metadata.name) ==
          plan.rules.end()) {
        continue;
      }
      ++counts.pending_pods;
      namespaces.insert(plan.pod->metadata.namespace_);
    }
    counts.pending_namespaces = static_cast<int64_t>(namespaces.size());
  }
  MutexLock lock(mu_);
  auto found = evicted_by_rule_.find(rule.metadata.uid);
  if (found != evicted_by_rule_.end()) counts.evicted_pods = found->second;
  return counts;
}

std::optional<SystemTime> DeviceTaintEvictionController::UpdateRuleStatuses(
    const TaintEvictionInputs& inputs,
    const std::vector<PlannedEviction>& pending, SystemTime now) {
  std::optional<SystemTime> due;
  for (const api::DeviceTaintRule* rule : inputs.rules) {
    api::DeviceTaintRule updated = *rule;
    auto& conditions = updated.status.conditions;
    auto existing = std::find_if(
        conditions.begin(), conditions.end(),
        [](const api::Condition& c) { return c.type == kEvictionInProgress; });
    // A None rule's simulation is written once per generation.
    if (rule->spec.taint.effect == "None" && existing != conditions.end() &&
        existing->observed_generation == rule->metadata.generation &&
        existing->reason == "NoEffect") {
      continue;
    }
    // The throttle, checked before counting as upstream does: at one
    // generation, no write until a period after the last change. A new
    // generation is reported at once.
    if (existing != conditions.end() &&
        existing->observed_generation == rule->metadata.generation) {
      const std::optional<SystemTime> changed =
          ParseUtcTime(existing->last_transition_time);
      if (changed.has_value() && now < *changed + options_.rule_status_period) {
        FoldEarliest(due, *changed + options_.rule_status_period);
        continue;
      }
    }
    api::Condition wanted =
        RuleEvictionCondition(*rule, CountsFor(inputs, *rule, pending));
    if (existing != conditions.end()) {
      wanted.last_transition_time = existing->last_transition_time;
      if (*existing == wanted) continue;
    }
    // Bumped on every change, not only of the status: it is the
    // throttle's clock.
    wanted.last_transition_time = FormatUtcTime(now);
    if (existing != conditions.end()) {
      *existing = wanted;
    } else {
      conditions.push_back(wanted);
    }
    StatusOr<ObjectPtr> written = client_.UpdateStatus(updated);
    MutexLock lock(mu_);
    if (written.ok()) ++metrics_.rule_status_updates;
  }
  return due;
}

void DeviceTaintEvictionController::Loop() {
  std::optional<SystemTime> next;
  while (true) {
    {
      MutexLock lock(mu_);
      auto wait = options_.max_wait;
      if (next.has_value()) {
        auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
            *next - std::chrono::system_clock::now());
        wait = std::clamp(until + std::chrono::milliseconds(1),
                          std::chrono::milliseconds(0), wait);
      }
      wake_.WaitFor(mu_, wait,
                    [this]() REQUIRES(mu_) { return dirty_ || stopping_; });
      if (stopping_) return;
      dirty_ = false;
    }
    next = RunOnce(std::chrono::system_clock::now());
  }
}

void DeviceTaintEvictionController::Start() {
  if (worker_.joinable()) return;
  {
    MutexLock lock(mu_);
    stopping_ = false;
  }
  worker_ = std::thread([this] { Loop(); });
}

void DeviceTaintEvictionController::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (worker_.joinable()) worker_.join();
}

DeviceTaintEvictionMetrics DeviceTaintEvictionController::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
