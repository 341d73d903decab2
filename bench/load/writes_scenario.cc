#include "load/writes_scenario.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/mutex.h"
#include "load/http_connection.h"
#include "load/object_manifests.h"

namespace dralloc::load {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::size_t kWriteOpCount = 3;
constexpr std::chrono::seconds kRequestTimeout(30);
// Pause after a transport failure so a dead server is not spun on.
constexpr std::chrono::milliseconds kTransportBackoff(20);

std::size_t OpIndex(WriteOp op) { return static_cast<std::size_t>(op); }

// Appends acknowledged creates to a file, one flushed line each.
class AckLog {
 public:
  AckLog() = default;
  AckLog(const AckLog&) = delete;
  AckLog& operator=(const AckLog&) = delete;
  ~AckLog() {
    if (file_ != nullptr) std::fclose(file_);
  }

  Status Open(const std::string& path) {
    file_ = std::fopen(path.c_str(), "a");
    if (file_ == nullptr) {
      return UnavailableError(fmt::format("cannot open ack log {}", path));
    }
    return OkStatus();
  }

  void Record(std::string_view name, std::string_view resource_version) {
    if (file_ == nullptr) return;
    MutexLock lock(mutex_);
    fmt::print(file_, "{} {}\n", name, resource_version);
    std::fflush(file_);
  }

 private:
  Mutex mutex_;  // serialises the lines written to file_
  std::FILE* file_ = nullptr;
};

// One timed request, for --latency-trace.
struct TracedRequest {
  std::int64_t start_us;
  std::int64_t latency_us;
  WriteOp op;
  int client_index;
};

struct ClientTally {
  std::array<std::vector<std::int64_t>, kWriteOpCount> latencies_us;
  std::vector<TracedRequest> trace;
  std::array<std::int64_t, kWriteOpCount> succeeded{};
  std::array<ErrorCounts, kWriteOpCount> errors;
};

// One client thread's loop. Works on one claim at a time: the last one it
// created, in the state last returned by the server.
class WriteClient {
 public:
  WriteClient(const WritesOptions& options, int client_index, AckLog& ack_log)
      : options_(options),
        client_index_(client_index),
        ack_log_(ack_log),
        connection_(options.target, kRequestTimeout),
        collection_path_(ResourceClaimsPath(options.namespace_name)) {}

  void Run(Clock::time_point start, Clock::time_point deadline) {
    run_start_ = start;
    std::optional<SendSchedule> schedule;
    if (options_.rate > 0) {
      schedule.emplace(start, options_.rate, options_.clients, client_index_);
    }
    while (Clock::now() < deadline) {
      for (const WriteOp op : options_.mix) {
        if (schedule.has_value()) {
          scheduled_ = schedule->Next();
          if (scheduled_ >= deadline) return;
          std::this_thread::sleep_until(scheduled_);
        }
        if (Clock::now() >= deadline) break;
        RunOp(op, /*timed=*/true);
      }
    }
  }

  // One untimed round of the mix, so that connection setup and the server's
  // first-request costs (its per-connection thread, per-thread caches) are
  // not charged to the run, as wrk connects before it measures. False if a
  // create in the mix failed.
  bool WarmUp() {
    const bool mix_creates = std::find(options_.mix.begin(), options_.mix.end(),
                                       WriteOp::kCreate) != options_.mix.end();
    // Without creates in the mix, get/update work on one seed claim.
    if (!mix_creates && !Create(/*timed=*/false)) return false;
    for (const WriteOp op : options_.mix) {
      if (!RunOp(op, /*timed=*/false)) return false;
    }
    return true;
  }

  ClientTally& tally() { return tally_; }

 private:
  // Runs one operation of the mix; false only if it was a failed create.
  bool RunOp(WriteOp op, bool timed) {
    switch (op) {
      case WriteOp::kCreate:
        return Create(timed);
      case WriteOp::kGet:
        Get(timed);
        return true;
      case WriteOp::kUpdate:
        Update(timed);
        return true;
    }
    return true;
  }

  // Sends one request, records it under `op` when `timed`, and returns the
  // result if it was a 2xx. Latency counts from the scheduled send time in
  // open-loop runs (never later than now), else from now.
  std::optional<HttpResult> Timed(WriteOp op, bool timed, http::verb method,
                                  const std::string& path,
                                  std::string_view body) {
    const Clock::time_point start = std::min(scheduled_, Clock::now());
    StatusOr<HttpResult> result = connection_.Send(method, path, body);
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
        Clock::now() - start);
    if (!IsSuccess(result)) {
      if (timed) ++tally_.errors[OpIndex(op)][ErrorKey(result)];
      if (!result.ok()) std::this_thread::sleep_for(kTransportBackoff);
      return std::nullopt;
    }
    if (timed) {
      ++tally_.succeeded[OpIndex(op)];
      tally_.latencies_us[OpIndex(op)].push_back(elapsed.count());
      if (!options_.latency_trace_path.empty()) {
        tally_.trace.push_back(
            {std::chrono::duration_cast<std::chrono::microseconds>(start -
                                                                   run_start_)
                 .count(),
             elapsed.count(), op, client_index_});
      }
    }
    return std::move(result).value();
  }

  // Adopts a returned object as the current state; false if it is not a
  // JSON object.
  bool Adopt(WriteOp op, HttpResult& result) {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::object object;
    if (parser.parse(result.body.data(), result.body.size())
            .get_object()
            .get(object)) {
      ++tally_.errors[OpIndex(op)]["undecodable-body"];
      current_.reset();
      return false;
    }
    current_ = std::move(result.body);
    return true;
  }

  bool Create(bool timed) {
    const std::string name = fmt::format("load-{}-{}-{}", options_.run_id,
                                         client_index_, next_sequence_++);
    const std::string body =
        ResourceClaimManifest(name, options_.namespace_name, options_.run_id)
            .dump();
    std::optional<HttpResult> result = Timed(
        WriteOp::kCreate, timed, http::verb::post, collection_path_, body);
    if (!result.has_value()) return false;
    const int status = result->status;
    if (!Adopt(WriteOp::kCreate, *result)) return false;
    current_name_ = name;
    if (status == 201) ack_log_.Record(name, ResourceVersionOf(*current_));
    return true;
  }

  void Get(bool timed) {
    if (current_name_.empty()) return;
    std::optional<HttpResult> result =
        Timed(WriteOp::kGet, timed, http::verb::get,
              fmt::format("{}/{}", collection_path_, current_name_), {});
    if (result.has_value()) Adopt(WriteOp::kGet, *result);
  }

  void Update(bool timed) {
    if (!current_.has_value()) return;
    std::optional<std::string> body = WithLabel(
        *current_, "dralloc.dev/load-update", std::to_string(next_update_++));
    if (!body.has_value()) {
      ++tally_.errors[OpIndex(WriteOp::kUpdate)]["undecodable-body"];
      current_.reset();
      return;
    }
    std::optional<HttpResult> result =
        Timed(WriteOp::kUpdate, timed, http::verb::put,
              fmt::format("{}/{}", collection_path_, current_name_), *body);
    if (result.has_value()) {
      Adopt(WriteOp::kUpdate, *result);
    } else {
      // A failed conditional update leaves our copy stale; the next get or
      // create refreshes it.
      current_.reset();
    }
  }

  const WritesOptions& options_;
  const int client_index_;
  AckLog& ack_log_;
  HttpConnection connection_;
  const std::string collection_path_;
  std::optional<std::string> current_;  // the claim's last returned body
  std::string current_name_;
  std::int64_t next_sequence_ = 0;
  std::int64_t next_update_ = 0;
  // The send time the current request was scheduled for (open loop).
  Clock::time_point scheduled_ = Clock::time_point::max();
  Clock::time_point run_start_;
  ClientTally tally_;
};

json LatencyJson(const LatencySummary& latency) {
  return {{"count", latency.count}, {"mean", latency.mean_ms},
          {"p50", latency.p50_ms},  {"p90", latency.p90_ms},
          {"p99", latency.p99_ms},  {"max", latency.max_ms}};
}

json OpJson(const OpReport& op) {
  return {{"succeeded", op.succeeded},
          {"failed", op.failed},
          {"ops_per_second", op.ops_per_second},
          {"latency_ms", LatencyJson(op.latency)},
          {"errors_by_status", op.errors}};
}

std::string FormatErrors(const ErrorCounts& errors) {
  if (errors.empty()) return "-";
  std::string text;
  for (const auto& [key, count] : errors) {
    if (!text.empty()) text += " ";
    text += fmt::format("{}={}", key, count);
  }
  return text;
}

std::string OpLine(const OpReport& op) {
  return fmt::format(
      "{:<8} {:>9} {:>10.1f} {:>8.2f} {:>8.2f} {:>8.2f} "
      "{:>9.2f}  {}\n",
      op.name, op.succeeded, op.ops_per_second, op.latency.p50_ms,
      op.latency.p90_ms, op.latency.p99_ms, op.latency.max_ms,
      FormatErrors(op.errors));
}

Status WriteLatencyTrace(
    const std::string& path, Clock::time_point start,
    const std::vector<std::unique_ptr<WriteClient>>& clients,
    const std::vector<Stall>& stalls) {
  std::vector<TracedRequest> trace;
  for (const auto& client : clients) {
    const std::vector<TracedRequest>& own = client->tally().trace;
    trace.insert(trace.end(), own.begin(), own.end());
  }
  std::sort(trace.begin(), trace.end(),
            [](const TracedRequest& a, const TracedRequest& b) {
              return a.start_us < b.start_us;
            });
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return UnavailableError(fmt::format("cannot write latency trace {}", path));
  }
  const double start_epoch =
      std::chrono::duration<double>(
          (std::chrono::system_clock::now() - (Clock::now() - start))
              .time_since_epoch())
          .count();
  fmt::print(file, "# run start, Unix seconds: {:.6f}\n", start_epoch);
  for (const Stall& stall : stalls) {
    fmt::print(file, "# stall {:.3f} {:.3f}\n", stall.start_ms,
               stall.overrun_ms);
  }
  for (const TracedRequest& request : trace) {
    fmt::print(file, "{:.3f} {:.3f} {} {}\n", request.start_us / 1000.0,
               request.latency_us / 1000.0, WriteOpName(request.op),
               request.client_index);
  }
  const bool closed = std::fclose(file) == 0;
  if (!closed) {
    return UnavailableError(fmt::format("cannot write latency trace {}", path));
  }
  return OkStatus();
}

}  // namespace

std::string_view WriteOpName(WriteOp op) {
  switch (op) {
    case WriteOp::kCreate:
      return "create";
    case WriteOp::kGet:
      return "get";
    case WriteOp::kUpdate:
      return "update";
  }
  return "unknown";
}

StatusOr<std::vector<WriteOp>> ParseWriteMix(std::string_view mix) {
  std::vector<WriteOp> ops;
  std::size_t start = 0;
  while (start <= mix.size()) {
    std::size_t comma = mix.find(',', start);
    if (comma == std::string_view::npos) comma = mix.size();
    const std::string_view entry = mix.substr(start, comma - start);
    if (entry == "create") {
      ops.push_back(WriteOp::kCreate);
    } else if (entry == "get") {
      ops.push_back(WriteOp::kGet);
    } else if (entry == "update") {
      ops.push_back(WriteOp::kUpdate);
    } else {
      return InvalidArgumentError(
          fmt::format("--mix entry {:?} is not one of create, get, update",
                      std::string(entry)));
    }
    start = comma + 1;
  }
  return ops;
}

SendSchedule::SendSchedule(Clock::time_point start, double rate, int clients,
                           int client_index)
    : start_(start), first_(client_index / rate), interval_(clients / rate) {}

Clock::time_point SendSchedule::Next() {
  const std::chrono::duration<double> offset =
      first_ + interval_ * static_cast<double>(sent_++);
  return start_ + std::chrono::duration_cast<Clock::duration>(offset);
}

StatusOr<WritesReport> RunWritesScenario(const WritesOptions& options_in) {
  WritesOptions options = options_in;
  if (options.run_id.empty()) options.run_id = MakeRunId();
  if (options.mix.empty()) return InvalidArgumentError("empty --mix");
  if (options.rate < 0) return InvalidArgumentError("--rate must be >= 0");
  {
    HttpConnection setup(options.target, kRequestTimeout);
    RETURN_IF_ERROR(EnsureNamespace(setup, options.namespace_name));
  }
  AckLog ack_log;
  if (!options.ack_log_path.empty()) {
    RETURN_IF_ERROR(ack_log.Open(options.ack_log_path));
  }

  std::vector<std::unique_ptr<WriteClient>> clients;
  for (int index = 0; index < options.clients; ++index) {
    clients.push_back(std::make_unique<WriteClient>(options, index, ack_log));
  }
  // Every client warms up on its own thread; the clock starts when the last
  // one is done, so neither thread creation nor warm-up is measured.
  Clock::time_point start;
  Clock::time_point deadline;
  std::atomic<int> failed_warm_ups = 0;
  StallMonitor stall_monitor;
  std::barrier warmed_up(options.clients, [&]() noexcept {
    start = Clock::now();
    stall_monitor.Start(start);
    deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options.duration_seconds));
  });
  {
    std::vector<std::jthread> threads;
    for (auto& client : clients) {
      threads.emplace_back([&] {
        if (!client->WarmUp()) ++failed_warm_ups;
        warmed_up.arrive_and_wait();
        if (failed_warm_ups == 0) client->Run(start, deadline);
      });
    }
  }
  if (failed_warm_ups > 0) {
    return UnavailableError(
        fmt::format("{} of {} clients could not create a claim in {} before "
                    "the run",
                    failed_warm_ups.load(), options.clients,
                    ResourceClaimsPath(options.namespace_name)));
  }
  WritesReport report;
  report.elapsed_seconds = SecondsBetween(start, Clock::now());
  report.stalls = stall_monitor.Stop();
  report.stall_threshold = stall_monitor.threshold();
  if (!options.latency_trace_path.empty()) {
    RETURN_IF_ERROR(WriteLatencyTrace(options.latency_trace_path, start,
                                      clients, report.stalls));
  }
  report.options = options;

  std::vector<std::int64_t> all_latencies;
  for (std::size_t op_index = 0; op_index < kWriteOpCount; ++op_index) {
    const WriteOp op = static_cast<WriteOp>(op_index);
    if (std::find(options.mix.begin(), options.mix.end(), op) ==
        options.mix.end()) {
      continue;
    }
    OpReport op_report{.name = std::string(WriteOpName(op))};
    std::vector<std::int64_t> latencies;
    for (auto& client : clients) {
      ClientTally& tally = client->tally();
      op_report.succeeded += tally.succeeded[op_index];
      MergeErrorCounts(tally.errors[op_index], op_report.errors);
      latencies.insert(latencies.end(), tally.latencies_us[op_index].begin(),
                       tally.latencies_us[op_index].end());
    }
    for (const auto& [key, count] : op_report.errors) {
      op_report.failed += count;
    }
    op_report.ops_per_second = op_report.succeeded / report.elapsed_seconds;
    all_latencies.insert(all_latencies.end(), latencies.begin(),
                         latencies.end());
    op_report.latency = SummarizeLatencies(std::move(latencies));
    report.total.succeeded += op_report.succeeded;
    report.total.failed += op_report.failed;
    MergeErrorCounts(op_report.errors, report.total.errors);
    report.ops.push_back(std::move(op_report));
  }
  report.total.name = "total";
  report.total.ops_per_second = report.total.succeeded / report.elapsed_seconds;
  report.total.latency = SummarizeLatencies(std::move(all_latencies));
  return report;
}

std::string FormatWritesReportText(const WritesReport& report) {
  std::string mix;
  for (const WriteOp op : report.options.mix) {
    if (!mix.empty()) mix += ",";
    mix += WriteOpName(op);
  }
  const std::string pacing =
      report.options.rate > 0
          ? fmt::format(
                "open loop at {:g} requests/s (latency from the "
                "scheduled send time)",
                report.options.rate)
          : std::string("closed loop");
  std::string text = fmt::format(
      "writes: {} clients, {:.1f} s, {}, namespace {}, mix {}, run {}\n",
      report.options.clients, report.elapsed_seconds, pacing,
      report.options.namespace_name, mix, report.options.run_id);
  text += fmt::format("{:<8} {:>9} {:>10} {:>8} {:>8} {:>8} {:>9}  {}\n", "op",
                      "ok", "ops/s", "p50 ms", "p90 ms", "p99 ms", "max ms",
                      "errors by status");
  for (const OpReport& op : report.ops) text += OpLine(op);
  text += OpLine(report.total);
  text +=
      fmt::format("machine stalls (this process's 1 ms sleeps overran): {}\n",
                  FormatStallSummary(SummarizeStalls(report.stalls),
                                     report.stall_threshold));
  return text;
}

std::string FormatWritesReportJson(const WritesReport& report) {
  json ops = json::object();
  for (const OpReport& op : report.ops) ops[op.name] = OpJson(op);
  json mix = json::array();
  for (const WriteOp op : report.options.mix) mix.push_back(WriteOpName(op));
  const json document = {
      {"scenario", "writes"},
      {"clients", report.options.clients},
      {"rate", report.options.rate},
      {"namespace", report.options.namespace_name},
      {"mix", mix},
      {"run_id", report.options.run_id},
      {"elapsed_seconds", report.elapsed_seconds},
      {"ops", ops},
      {"total", OpJson(report.total)},
      {"stalls", StallsJson(report.stalls, report.stall_threshold)},
  };
  return document.dump(2) + "\n";
}

}  // namespace dralloc::load
