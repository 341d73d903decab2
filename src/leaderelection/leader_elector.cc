#include "leaderelection/leader_elector.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <utility>
#include <variant>

#include "common/clock.h"
#include "common/log.h"

namespace dralloc::leaderelection {
namespace {

constexpr std::string_view kComponent = "leaderelection";
// client-go's JitterFactor: the acquire loop waits retryPeriod plus up to
// 1.2 retryPeriods, and renewDeadline must exceed 1.2 retryPeriods.
constexpr double kJitterFactor = 1.2;

const api::ResourceInfo& LeasesResource() {
  return client::ResourceFor<api::Lease>();
}

}  // namespace

Status ValidateConfig(const LeaderElectionConfig& config) {
  const auto invalid = [](std::string message) {
    return InvalidArgumentError("leader election: " + std::move(message));
  };
  if (config.lease_name.empty()) return invalid("lease name must be set");
  if (config.lease_namespace.empty()) {
    return invalid("lease namespace must be set");
  }
  if (config.retry_period.count() <= 0) {
    return invalid("retryPeriod must be greater than zero");
  }
  if (config.lease_duration <= config.renew_deadline) {
    return invalid("leaseDuration must be greater than renewDeadline");
  }
  if (config.renew_deadline.count() <=
      kJitterFactor * static_cast<double>(config.retry_period.count())) {
    return invalid("renewDeadline must be greater than retryPeriod*1.2");
  }
  if (config.lease_duration < std::chrono::seconds(1)) {
    return invalid("leaseDuration must be at least one second");
  }
  return OkStatus();
}

std::string DefaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
    return NewUid();
  }
  return fmt::format("{}_{}", host, NewUid());
}

LeaderElector::LeaderElector(client::ApiClient& client,
                             LeaderElectionConfig config,
                             LeaderCallbacks callbacks, ElectionClock& clock)
    : client_(client),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)),
      clock_(clock),
      jitter_state_(std::random_device{}()) {
  if (config_.identity.empty()) config_.identity = DefaultIdentity();
}

std::string LeaderElector::LeaseName() const {
  return fmt::format("{}/{}", config_.lease_namespace, config_.lease_name);
}

api::LeaseSpec LeaderElector::RecordNow() const {
  const std::string now = FormatMicroTime(clock_.WallNow());
  api::LeaseSpec record;
  record.holder_identity = config_.identity;
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration);
  record.lease_duration_seconds = static_cast<int32_t>(seconds.count());
  record.acquire_time = now;
  record.renew_time = now;
  record.lease_transitions = 0;
  return record;
}

bool LeaderElector::IsLeader() const {
  MutexLock lock(mu_);
  return LeadingLocked();
}

bool LeaderElector::LeadingLocked() const {
  return observed_.has_value() &&
         observed_->holder_identity.value_or("") == config_.identity;
}

std::string LeaderElector::ObservedHolder() const {
  MutexLock lock(mu_);
  return observed_.has_value() ? observed_->holder_identity.value_or("") : "";
}

void LeaderElector::Observe(const api::LeaseSpec& spec,
                            std::chrono::steady_clock::time_point now,
                            std::optional<std::string>& new_leader) {
  const std::string holder = spec.holder_identity.value_or("");
  const bool changed = !observed_.has_value() ||
                       observed_->holder_identity.value_or("") != holder;
  if (changed) new_leader = holder;
  observed_ = spec;
  observed_time_ = now;
}

bool LeaderElector::Write(api::Lease lease, bool create) {
  StatusOr<client::ObjectPtr> written =
      create ? client_.Create(api::Object(std::move(lease)))
             : client_.Update(api::Object(std::move(lease)));
  if (!written.ok()) {
    // 409 (another candidate wrote first) and transport errors alike: try
    // again at the next period, as client-go does.
    log::Debug(kComponent, "{} lease {}: {}", create ? "creating" : "updating",
               LeaseName(), written.status().message());
    return false;
  }
  const auto* stored = std::get_if<api::Lease>(written->get());
  if (stored == nullptr) return false;
  last_lease_ = *stored;
  return true;
}

bool LeaderElector::TryAcquireOrRenew() {
  std::optional<std::string> new_leader;
  bool held = false;
  {
    MutexLock lock(mu_);
    held = Attempt(new_leader);
  }
  if (new_leader.has_value()) {
    log::Info(kComponent, "lease {}: new leader \"{}\"", LeaseName(),
              *new_leader);
    if (callbacks_.on_new_leader) callbacks_.on_new_leader(*new_leader);
  }
  return held;
}

bool LeaderElector::Attempt(std::optional<std::string>& new_leader) {
  const auto now = clock_.Now();
  api::LeaseSpec record = RecordNow();
  StatusOr<client::ObjectPtr> got = client_.Get(
      LeasesResource(), config_.lease_namespace, config_.lease_name);
  if (!got.ok()) {
    if (got.status().code() != StatusCode::kNotFound) {
      log::Warn(kComponent, "reading lease {}: {}", LeaseName(),
                got.status().message());
      return false;
    }
    api::Lease lease;
    lease.metadata.name = config_.lease_name;
    lease.metadata.namespace_ = config_.lease_namespace;
    lease.spec = record;
    if (!Write(std::move(lease), /*create=*/true)) return false;
    Observe(record, now, new_leader);
    return true;
  }
  const auto* current = std::get_if<api::Lease>(got->get());
  if (current == nullptr) return false;
  last_lease_ = *current;
  if (!observed_.has_value() || *observed_ != current->spec) {
    Observe(current->spec, now, new_leader);
  }
  const std::string holder = current->spec.holder_identity.value_or("");
  const bool ours = holder == config_.identity;
  const auto duration =
      std::chrono::seconds(current->spec.lease_duration_seconds.value_or(0));
  if (!holder.empty() && !ours && observed_time_ + duration > now) {
    return false;  // held by another candidate and not expired
  }
  const int32_t transitions = current->spec.lease_transitions.value_or(0);
  if (ours) {
    record.acquire_time = current->spec.acquire_time;
    record.lease_transitions = transitions;
  } else {
    record.lease_transitions = transitions + 1;
  }
  api::Lease updated = *current;
  updated.spec = record;
  if (!Write(std::move(updated), /*create=*/false)) return false;
  Observe(record, now, new_leader);
  return true;
}

Status LeaderElector::Release() {
  MutexLock lock(mu_);
  if (!LeadingLocked() || !last_lease_.has_value()) return OkStatus();
  const std::string now = FormatMicroTime(clock_.WallNow());
  api::Lease released = *last_lease_;
  released.spec.holder_identity = "";
  released.spec.lease_duration_seconds = 1;
  released.spec.acquire_time = now;
  released.spec.renew_time = now;
  released.spec.lease_transitions = observed_->lease_transitions;
  StatusOr<client::ObjectPtr> written =
      client_.Update(api::Object(std::move(released)));
  if (!written.ok()) {
    return Status(written.status().code(),
                  fmt::format("releasing lease {}: {}", LeaseName(),
                              written.status().message()));
  }
  std::optional<std::string> ignored;
  if (const auto* stored = std::get_if<api::Lease>(written->get())) {
    last_lease_ = *stored;
    Observe(stored->spec, clock_.Now(), ignored);
  }
  log::Info(kComponent, "released lease {}", LeaseName());
  return OkStatus();
}

std::chrono::nanoseconds LeaderElector::JitteredRetryPeriod() {
  std::mt19937_64 rng(jitter_state_);
  jitter_state_ = rng();
  const double fraction = static_cast<double>(jitter_state_ >> 11) /
                          static_cast<double>(1ULL << 53);
  const auto period = std::chrono::duration_cast<std::chrono::nanoseconds>(
      config_.retry_period);
  return period +
         std::chrono::nanoseconds(static_cast<int64_t>(
             fraction * kJitterFactor * static_cast<double>(period.count())));
}

bool LeaderElector::Acquire() {
  log::Info(kComponent, "{} attempting to acquire lease {}", config_.identity,
            LeaseName());
  while (!stop_.Raised()) {
    if (TryAcquireOrRenew()) {
      log::Info(kComponent, "{} acquired lease {}", config_.identity,
                LeaseName());
      return true;
    }
    if (!clock_.Sleep(JitteredRetryPeriod(), stop_)) return false;
  }
  return false;
}

bool LeaderElector::RenewBeforeDeadline() {
  const auto deadline = clock_.Now() + config_.renew_deadline;
  while (true) {
    if (TryAcquireOrRenew()) return true;
    const auto now = clock_.Now();
    if (now >= deadline) return false;
    const auto wait = std::min<std::chrono::nanoseconds>(config_.retry_period,
                                                         deadline - now);
    if (!clock_.Sleep(wait, stop_)) return false;
  }
}

void LeaderElector::RenewWhileLeading() {
  while (!stop_.Raised()) {
    if (!RenewBeforeDeadline()) {
      if (!stop_.Raised()) {
        log::Warn(kComponent, "{} failed to renew lease {}: timed out",
                  config_.identity, LeaseName());
      }
      return;
    }
    if (!clock_.Sleep(config_.retry_period, stop_)) return;
  }
}

void LeaderElector::Run() {
  if (!Acquire()) return;
  if (callbacks_.on_started_leading) callbacks_.on_started_leading();
  RenewWhileLeading();
  // Guarded work stops before the release, so a successor never overlaps it.
  if (callbacks_.on_stopped_leading) callbacks_.on_stopped_leading();
  if (config_.release_on_cancel) {
    if (Status released = Release(); !released.ok()) {
      log::Warn(kComponent, "{}", released.message());
    }
  }
}

}  // namespace dralloc::leaderelection
