#include "leaderelection/leader_elector.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "apiserver/in_process_api_client.h"
#include "apiserver/resource_storage.h"
#include "store/memory_store.h"

namespace dralloc::leaderelection {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Time moves only when a test (or a Sleep of the elector) moves it.
class FakeElectionClock : public ElectionClock {
 public:
  std::chrono::steady_clock::time_point Now() override { return now_; }
  std::chrono::system_clock::time_point WallNow() override { return wall_; }
  bool Sleep(std::chrono::nanoseconds duration, StopSignal& stop) override {
    Advance(duration);
    if (on_sleep) on_sleep();
    return !stop.Raised();
  }
  void Advance(std::chrono::nanoseconds duration) {
    now_ += duration;
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(
        duration);
  }
  // Runs after every Sleep: the test's hook into a running election.
  std::function<void()> on_sleep;

 private:
  std::chrono::steady_clock::time_point now_{};
  std::chrono::system_clock::time_point wall_{seconds(1'800'000'000)};
};

// Forwards to another client; `before_update` runs before each Update, so a
// test can slip a competing write between an elector's read and its write.
class InterleavingClient : public client::ApiClient {
 public:
  explicit InterleavingClient(client::ApiClient& inner) : inner_(inner) {}
  StatusOr<client::ObjectList> List(const api::ResourceInfo& r) override {
    return inner_.List(r);
  }
  StatusOr<std::unique_ptr<client::WatchStream>> Watch(
      const api::ResourceInfo& r, int64_t rv) override {
    return inner_.Watch(r, rv);
  }
  StatusOr<client::ObjectPtr> Get(const api::ResourceInfo& r,
                                  std::string_view ns,
                                  std::string_view name) override {
    return inner_.Get(r, ns, name);
  }
  StatusOr<client::ObjectPtr> Create(api::Object o) override {
    return inner_.Create(std::move(o));
  }
  StatusOr<client::ObjectPtr> Update(api::Object o) override {
    if (before_update) std::exchange(before_update, nullptr)();
    return inner_.Update(std::move(o));
  }
  StatusOr<client::ObjectPtr> UpdateStatus(api::Object o) override {
    return inner_.UpdateStatus(std::move(o));
  }
  Status Delete(const api::ResourceInfo& r, std::string_view ns,
                std::string_view name, std::string_view uid) override {
    return inner_.Delete(r, ns, name, uid);
  }
  Status Bind(std::string_view ns, std::string_view name, std::string_view uid,
              std::string_view node) override {
    return inner_.Bind(ns, name, uid, node);
  }
  Status CreateEvent(const api::Event& event) override {
    return inner_.CreateEvent(event);
  }
  std::function<void()> before_update;  // runs once

 private:
  client::ApiClient& inner_;
};

LeaderElectionConfig Config(std::string identity) {
  LeaderElectionConfig config;
  config.lease_namespace = "kube-system";
  config.lease_name = "dralloc-scheduler";
  config.identity = std::move(identity);
  return config;  // 15 s / 10 s / 2 s, as upstream
}

class LeaderElectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::Namespace ns;
    ns.metadata.name = "kube-system";
    ASSERT_TRUE(client_.Create(ns).ok());
  }

  api::LeaseSpec StoredSpec() {
    auto got = client_.Get(client::ResourceFor<api::Lease>(), "kube-system",
                           "dralloc-scheduler");
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok()) return {};
    return std::get<api::Lease>(**got).spec;
  }
  // Writes the lease as another process would.
  void Overwrite(const std::string& holder, int32_t duration_seconds) {
    auto got = client_.Get(client::ResourceFor<api::Lease>(), "kube-system",
                           "dralloc-scheduler");
    ASSERT_TRUE(got.ok()) << got.status();
    api::Lease lease = std::get<api::Lease>(**got);
    lease.spec.holder_identity = holder;
    lease.spec.lease_duration_seconds = duration_seconds;
    lease.spec.renew_time = FormatMicroTime(clock_.WallNow());
    auto updated = client_.Update(lease);
    ASSERT_TRUE(updated.ok()) << updated.status();
  }

  store::MemoryStore store_;
  apiserver::ResourceStorage storage_{store_};
  apiserver::InProcessApiClient client_{storage_, "test"};
  FakeElectionClock clock_;
};

TEST_F(LeaderElectorTest, AcquiresAnAbsentLease) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  EXPECT_FALSE(a.IsLeader());
  ASSERT_TRUE(a.TryAcquireOrRenew());
  EXPECT_TRUE(a.IsLeader());
  api::LeaseSpec spec = StoredSpec();
  EXPECT_EQ(spec.holder_identity, "a");
  EXPECT_EQ(spec.lease_duration_seconds, 15);
  EXPECT_EQ(spec.lease_transitions, 0);
  ASSERT_TRUE(spec.renew_time.has_value());
  EXPECT_TRUE(
      std::regex_match(*spec.renew_time,
                       std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << *spec.renew_time;
  EXPECT_EQ(spec.acquire_time, spec.renew_time);
}

TEST_F(LeaderElectorTest, RenewalKeepsAcquireTimeAndTransitions) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  const api::LeaseSpec first = StoredSpec();
  clock_.Advance(seconds(2));
  ASSERT_TRUE(a.TryAcquireOrRenew());
  const api::LeaseSpec renewed = StoredSpec();
  EXPECT_EQ(renewed.acquire_time, first.acquire_time);
  EXPECT_NE(renewed.renew_time, first.renew_time);
  EXPECT_EQ(renewed.lease_transitions, 0);
}

TEST_F(LeaderElectorTest, TakesOverOnlyAfterTheLeaseExpiresOnItsOwnClock) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  std::vector<std::string> seen_by_b;
  LeaderElector b(client_, Config("b"),
                  {.on_new_leader =
                       [&](const std::string& id) { seen_by_b.push_back(id); }},
                  clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  EXPECT_FALSE(b.TryAcquireOrRenew());  // b first sees the record now
  EXPECT_EQ(b.ObservedHolder(), "a");
  clock_.Advance(seconds(10));
  ASSERT_TRUE(a.TryAcquireOrRenew());   // a renews
  EXPECT_FALSE(b.TryAcquireOrRenew());  // b sees the change: its wait restarts
  clock_.Advance(seconds(14));
  EXPECT_FALSE(b.TryAcquireOrRenew());
  clock_.Advance(seconds(2));  // 16 s since b saw the renewal
  ASSERT_TRUE(b.TryAcquireOrRenew());
  EXPECT_TRUE(b.IsLeader());
  api::LeaseSpec spec = StoredSpec();
  EXPECT_EQ(spec.holder_identity, "b");
  EXPECT_EQ(spec.lease_transitions, 1);
  EXPECT_FALSE(a.TryAcquireOrRenew());  // a sees b and stands down
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(seen_by_b, (std::vector<std::string>{"a", "b"}));
}

TEST_F(LeaderElectorTest, AConflictingWriteLosesTheRace) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  InterleavingClient racing(client_);
  LeaderElector b(racing, Config("b"), {}, clock_);
  EXPECT_FALSE(b.TryAcquireOrRenew());
  clock_.Advance(seconds(16));  // expired for b
  // c takes the lease between b's read and b's write: b's write is 409.
  racing.before_update = [&] { Overwrite("c", 15); };
  EXPECT_FALSE(b.TryAcquireOrRenew());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_EQ(StoredSpec().holder_identity, "c");
  // c's record is new to b: b waits a full lease duration again.
  EXPECT_FALSE(b.TryAcquireOrRenew());
  EXPECT_EQ(b.ObservedHolder(), "c");
}

TEST_F(LeaderElectorTest, ReleaseHandsOverAtOnce) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  LeaderElector b(client_, Config("b"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  EXPECT_FALSE(b.TryAcquireOrRenew());
  ASSERT_TRUE(a.Release().ok());
  EXPECT_FALSE(a.IsLeader());
  api::LeaseSpec released = StoredSpec();
  EXPECT_EQ(released.holder_identity, "");
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_EQ(released.lease_transitions, 0);
  ASSERT_TRUE(b.TryAcquireOrRenew());  // no waiting for expiry
  EXPECT_EQ(StoredSpec().holder_identity, "b");
  EXPECT_EQ(StoredSpec().lease_transitions, 1);
  EXPECT_TRUE(a.Release().ok());  // not leading: nothing to write
  EXPECT_EQ(StoredSpec().holder_identity, "b");
}

TEST_F(LeaderElectorTest, ReleaseIsPreconditionedOnTheResourceVersion) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  Overwrite("c", 15);  // a has not seen this write
  Status released = a.Release();
  EXPECT_EQ(released.code(), StatusCode::kAborted) << released;
  EXPECT_EQ(StoredSpec().holder_identity, "c");
}

TEST_F(LeaderElectorTest, TransitionsCountChangesOfHolder) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  LeaderElector b(client_, Config("b"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  ASSERT_TRUE(a.Release().ok());
  ASSERT_TRUE(b.TryAcquireOrRenew());
  ASSERT_TRUE(b.Release().ok());
  ASSERT_TRUE(a.TryAcquireOrRenew());
  ASSERT_TRUE(a.TryAcquireOrRenew());  // a renewal is no transition
  EXPECT_EQ(StoredSpec().lease_transitions, 2);
}

TEST_F(LeaderElectorTest, RunStopsLeadingWhenRenewalsFailPastTheDeadline) {
  std::vector<std::string> calls;
  LeaderElector a(client_, Config("a"),
                  {.on_started_leading = [&] { calls.push_back("started"); },
                   .on_stopped_leading = [&] { calls.push_back("stopped"); }},
                  clock_);
  int sleeps = 0;
  std::chrono::steady_clock::time_point stolen_at;
  clock_.on_sleep = [&] {
    // After two renewals another holder takes the lease for a long time.
    if (++sleeps == 2) {
      Overwrite("thief", 3600);
      stolen_at = clock_.Now();
    }
    if (sleeps >= 100) {  // bound the test if Run never gives up
      ADD_FAILURE() << "Run did not give up";
      a.Stop();
    }
  };
  a.Run();
  EXPECT_EQ(calls, (std::vector<std::string>{"started", "stopped"}));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_GE(clock_.Now() - stolen_at, seconds(10));  // renewDeadline
  EXPECT_LE(clock_.Now() - stolen_at, seconds(14));  // + one retry period
  EXPECT_EQ(StoredSpec().holder_identity, "thief");  // nothing released
}

TEST_F(LeaderElectorTest, RunReleasesWhenStopped) {
  std::vector<std::string> calls;
  std::unique_ptr<LeaderElector> a;
  a = std::make_unique<LeaderElector>(
      client_, Config("a"),
      LeaderCallbacks{.on_started_leading =
                          [&] {
                            calls.push_back("started");
                            a->Stop();
                          },
                      .on_stopped_leading =
                          [&] {
                            calls.push_back("stopped");
                            // Work stops before the lease is given up.
                            EXPECT_EQ(StoredSpec().holder_identity, "a");
                          }},
      clock_);
  a->Run();
  EXPECT_EQ(calls, (std::vector<std::string>{"started", "stopped"}));
  EXPECT_EQ(StoredSpec().holder_identity, "");
  EXPECT_EQ(StoredSpec().lease_duration_seconds, 1);
}

TEST_F(LeaderElectorTest, RunWaitsForAHeldLeaseThenLeads) {
  LeaderElector a(client_, Config("a"), {}, clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew());
  bool started = false;
  LeaderElector d(client_, Config("d"),
                  {.on_started_leading = [&] { started = true; }}, clock_);
  const auto start = clock_.Now();
  int sleeps = 0;
  clock_.on_sleep = [&] {
    if (started) d.Stop();
    if (++sleeps >= 100) {  // bound the test if Run never acquires
      ADD_FAILURE() << "Run never acquired";
      d.Stop();
    }
  };
  d.Run();
  EXPECT_TRUE(started);
  // a never renewed: d leads once a's record is 15 s old on d's clock.
  EXPECT_GE(clock_.Now() - start, seconds(15));
  EXPECT_EQ(StoredSpec().lease_transitions, 1);
}

TEST(LeaderElectionConfigTest, UpstreamRules) {
  struct Case {
    std::string name;
    std::function<void(LeaderElectionConfig&)> change;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"defaults", [](LeaderElectionConfig&) {}, true},
      {"no name", [](LeaderElectionConfig& c) { c.lease_name.clear(); }, false},
      {"duration not above deadline",
       [](LeaderElectionConfig& c) { c.lease_duration = seconds(10); }, false},
      {"deadline not above 1.2 retries",
       [](LeaderElectionConfig& c) { c.renew_deadline = milliseconds(2'400); },
       false},
      {"short but consistent",
       [](LeaderElectionConfig& c) {
         c.lease_duration = seconds(3);
         c.renew_deadline = seconds(2);
         c.retry_period = milliseconds(500);
       },
       true},
      {"zero retry",
       [](LeaderElectionConfig& c) { c.retry_period = milliseconds(0); },
       false},
  };
  for (const Case& c : cases) {
    LeaderElectionConfig config = Config("a");
    c.change(config);
    EXPECT_EQ(ValidateConfig(config).ok(), c.valid) << c.name;
  }
}

TEST(LeaderElectionIdentityTest, HostnameAndRandomSuffix) {
  const std::string one = DefaultIdentity(), two = DefaultIdentity();
  EXPECT_NE(one, two);
  EXPECT_NE(one.find('_'), std::string::npos) << one;
}

TEST(FormatMicroTimeTest, SixFractionalDigitsInUtc) {
  const std::chrono::system_clock::time_point t{
      std::chrono::microseconds(1'764'329'405'123'456)};
  EXPECT_EQ(FormatMicroTime(t), "2025-11-28T11:30:05.123456Z");
  EXPECT_EQ(FormatMicroTime(std::chrono::system_clock::time_point{}),
            "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace dralloc::leaderelection
