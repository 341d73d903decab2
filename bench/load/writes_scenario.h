// The `writes` scenario: N client threads, each on its own kept-alive
// connection, create ResourceClaims and read and update them for a fixed
// time; reports throughput, latency percentiles and errors per operation.
// Every connection is opened (one untimed list request) before the clock
// starts.
#ifndef DRALLOC_BENCH_LOAD_WRITES_SCENARIO_H_
#define DRALLOC_BENCH_LOAD_WRITES_SCENARIO_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "load/latency_summary.h"
#include "load/load_support.h"
#include "load/load_target.h"
#include "load/stall_monitor.h"

namespace dralloc::load {

enum class WriteOp {
  // POST a new claim (unique name).
  kCreate,
  // GET the claim this client last created.
  kGet,
  // PUT the last returned state with a changed metadata.labels entry; the
  // body carries the returned resourceVersion, so it is a conditional update.
  kUpdate,
};

std::string_view WriteOpName(WriteOp op);

// Parses "create,get,update" (any order, repeats allowed: an op named twice
// runs twice per round). kInvalidArgument for empty or unknown entries.
StatusOr<std::vector<WriteOp>> ParseWriteMix(std::string_view mix);

struct WritesOptions {
  LoadTarget target;
  int clients = 4;
  double duration_seconds = 10;
  std::string namespace_name = "default";
  std::vector<WriteOp> mix = {WriteOp::kCreate, WriteOp::kGet,
                              WriteOp::kUpdate};
  // When set, every acknowledged create (HTTP 201) is appended to this file
  // as "NAME RESOURCEVERSION\n" and flushed at once (crash tests read it).
  std::string ack_log_path;
  // Keeps object names of separate runs apart; MakeRunId() when empty.
  std::string run_id;
  // Requests per second offered by all clients together; 0 runs closed-loop
  // (each client sends its next request as soon as the last one returns).
  // With a rate, each client sends on a fixed schedule and a request's
  // latency is counted from its scheduled time, so a stalled server is
  // charged for the requests that queued up behind the stall.
  double rate = 0;
  // When set, every timed request is written here after the run as
  // "START_MS LATENCY_MS OP CLIENT\n" below a "# run start, Unix seconds: T"
  // line and a "# stall START_MS OVERRUN_MS" line per machine stall (see
  // StallMonitor), START_MS counted from the run's start
  // (the scheduled send time in open-loop runs), sorted by start: shows
  // whether a tail comes from periodic stalls or from scattered delays.
  std::string latency_trace_path;
};

// The open-loop send times of one client: `clients` clients share `rate`
// requests per second, each sending every clients/rate seconds, client i
// offset by i/rate seconds so that the sends interleave evenly.
class SendSchedule {
 public:
  SendSchedule(std::chrono::steady_clock::time_point start, double rate,
               int clients, int client_index);
  // The scheduled time of the next request; advances the schedule.
  std::chrono::steady_clock::time_point Next();

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::duration<double> first_;
  std::chrono::duration<double> interval_;
  std::int64_t sent_ = 0;
};

struct OpReport {
  std::string name;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
  // Successful requests per second of the run.
  double ops_per_second = 0;
  // Latency of successful requests.
  LatencySummary latency;
  ErrorCounts errors;
};

struct WritesReport {
  WritesOptions options;
  double elapsed_seconds = 0;
  std::vector<OpReport> ops;  // one per distinct op in the mix
  OpReport total;
  // Times this process could not run for a while (see StallMonitor).
  std::vector<Stall> stalls;
  std::chrono::milliseconds stall_threshold = StallMonitor::kDefaultThreshold;

  bool HasErrors() const { return total.failed > 0; }
};

// Runs the scenario. Request failures are counted in the report; the Status
// is an error only when the run cannot start (namespace, ack log).
StatusOr<WritesReport> RunWritesScenario(const WritesOptions& options);

std::string FormatWritesReportText(const WritesReport& report);
std::string FormatWritesReportJson(const WritesReport& report);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_WRITES_SCENARIO_H_
