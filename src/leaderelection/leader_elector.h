// LeaderElector: leader election over a coordination.k8s.io/v1 Lease, with
// the semantics of client-go's leaderelection package (LeaseLock).
//
// A candidate takes the lease when it is absent, already ours, released
// (empty holderIdentity) or expired. Expiry is judged locally: the record
// (holder, times, duration, transitions) must have stayed unchanged for
// leaseDurationSeconds of *our* monotonic clock since we last saw it
// change. Writes are optimistic on the Lease's resourceVersion, so of two
// candidates racing for an expired lease one gets 409 and tries again a
// retry period later. leaseTransitions counts changes of holder.
//
// While leading, the elector renews every RetryPeriod; when no renewal has
// succeeded for RenewDeadline it stops leading (OnStoppedLeading) and Run
// returns: like client-go, an elector leads at most once per Run. With
// release_on_cancel, stopping a leader writes the lease back with an empty
// holder and a one-second duration so another candidate takes over at its
// next attempt.
#ifndef DRALLOC_LEADERELECTION_LEADER_ELECTOR_H_
#define DRALLOC_LEADERELECTION_LEADER_ELECTOR_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "api/types/lease.h"
#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "leaderelection/election_clock.h"
#include "leaderelection/stop_signal.h"

namespace dralloc::leaderelection {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;
  // Empty: DefaultIdentity().
  std::string identity;
  // Upstream's defaults (kube-scheduler, kube-controller-manager).
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  bool release_on_cancel = true;
};

// Checks what client-go's NewLeaderElector checks: names set, durations
// positive, leaseDuration > renewDeadline > 1.2 * retryPeriod.
Status ValidateConfig(const LeaderElectionConfig& config);

// "<hostname>_<random uuid>", as kube-scheduler names its candidates.
std::string DefaultIdentity();

// Called from the thread running Run; they must return promptly (start or
// stop work elsewhere), since renewals wait for them.
struct LeaderCallbacks {
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // A different holder was observed (may be empty: released).
  std::function<void(const std::string& identity)> on_new_leader;
};

class LeaderElector {
 public:
  // `client` and `clock` outlive the elector; `config` must pass
  // ValidateConfig.
  LeaderElector(client::ApiClient& client, LeaderElectionConfig config,
                LeaderCallbacks callbacks, ElectionClock& clock);

  // Acquires (retrying every retry period), leads while renewals succeed,
  // and returns when leadership is lost or Stop() was called (releasing the
  // lease first when configured to).
  void Run();
  // Makes Run return soon; safe from any thread or a signal-watching loop.
  void Stop() { stop_.Raise(); }

  // One attempt to acquire or renew (client-go's tryAcquireOrRenew): true
  // when we hold the lease afterwards. Exposed for tests.
  bool TryAcquireOrRenew() EXCLUDES(mu_);
  // Writes the lease back released if we hold it (see the header comment).
  Status Release() EXCLUDES(mu_);

  bool IsLeader() const EXCLUDES(mu_);
  // The holder last observed ("" before any observation or when released).
  std::string ObservedHolder() const EXCLUDES(mu_);
  const std::string& identity() const { return config_.identity; }

 private:
  // Retries every (jittered) retry period; false when stopped first.
  bool Acquire();
  // Renews until no renewal succeeded for renew_deadline, or Stop().
  void RenewWhileLeading();
  // One renewal round: tries now and every retry period until the renew
  // deadline; false when the deadline passed (or Stop()) without success.
  bool RenewBeforeDeadline();
  std::chrono::nanoseconds JitteredRetryPeriod();

  bool Attempt(std::optional<std::string>& new_leader) REQUIRES(mu_);
  // Writes `lease` (create or update); on success it is the stored object.
  bool Write(api::Lease lease, bool create) REQUIRES(mu_);
  // Records `spec` as observed now; sets `new_leader` on a change of holder.
  void Observe(const api::LeaseSpec& spec,
               std::chrono::steady_clock::time_point now,
               std::optional<std::string>& new_leader) REQUIRES(mu_);
  bool LeadingLocked() const REQUIRES(mu_);
  // The record a write stamps now: our identity, duration and times.
  api::LeaseSpec RecordNow() const;
  std::string LeaseName() const;

  client::ApiClient& client_;
  LeaderElectionConfig config_;
  LeaderCallbacks callbacks_;
  ElectionClock& clock_;
  StopSignal stop_;

  mutable Mutex mu_;
  std::optional<api::LeaseSpec> observed_ GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point observed_time_ GUARDED_BY(mu_);
  // The stored lease from our last read or write: its resourceVersion is
  // the precondition of the next write.
  std::optional<api::Lease> last_lease_ GUARDED_BY(mu_);
  uint64_t jitter_state_ = 0;  // Run's thread only
};

}  // namespace dralloc::leaderelection

#endif  // DRALLOC_LEADERELECTION_LEADER_ELECTOR_H_
