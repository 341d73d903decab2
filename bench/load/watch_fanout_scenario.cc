#include "load/watch_fanout_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/mutex.h"
#include "load/http_connection.h"
#include "load/list_body_scanner.h"
#include "load/object_manifests.h"
#include "load/parallel_requests.h"
#include "load/watch_event_scanner.h"

namespace dralloc::load {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::chrono::seconds kRequestTimeout(30);
constexpr std::size_t kReadChunkBytes = 32 * 1024;
// A watch line longer than this means the stream is not newline-delimited.
constexpr std::size_t kMaxLineBytes = 16u << 20;
constexpr std::chrono::milliseconds kPollInterval(5);

// One watch stream, driven entirely by the io_context's single thread.
// received() may be read from any thread; every other result is read only
// after that thread has stopped.
class WatchStream : public std::enable_shared_from_this<WatchStream> {
 public:
  // Called once on the io thread when the response header arrived or the
  // open failed.
  using SettledCallback = std::function<void(WatchStream&)>;

  WatchStream(asio::io_context& io, const LoadTarget& target,
              const std::string& path, std::size_t expected_events)
      : socket_(io), chunk_(kReadChunkBytes) {
    request_ = http::request<http::empty_body>{http::verb::get, path, 11};
    request_.set(http::field::host, target.HostHeader());
    request_.set(http::field::user_agent, "dralloc-api-load");
    request_.set(http::field::accept, "application/json");
    beast::error_code ignored;  // target.host is always a valid literal
    endpoint_ = asio::ip::tcp::endpoint(
        asio::ip::make_address(target.host, ignored), target.port);
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    resource_versions_.reserve(expected_events);
  }

  void Start(SettledCallback on_settled) {
    on_settled_ = std::move(on_settled);
    socket_.async_connect(endpoint_,
                          [self = shared_from_this()](beast::error_code error) {
                            self->OnConnected(error);
                          });
  }

  // Closes the socket; pending operations complete with operation_aborted.
  // Call on the io thread, or after it stopped.
  void Stop() {
    stopping_ = true;
    beast::error_code ignored;
    socket_.close(ignored);
  }

  std::int64_t received() const {
    return received_.load(std::memory_order_relaxed);
  }
  bool ended() const { return ended_.load(std::memory_order_relaxed); }
  bool established() const { return established_; }
  const std::string& open_error() const { return open_error_; }
  const std::string& end_reason() const { return end_reason_; }
  const std::vector<std::uint64_t>& resource_versions() const {
    return resource_versions_;
  }
  std::int64_t order_violations() const { return order_violations_; }
  std::int64_t odd_events() const { return odd_events_; }

 private:
  void OnConnected(beast::error_code error) {
    if (error) return Settle(false, "transport");
    beast::error_code ignored;
    socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    http::async_write(
        socket_, request_,
        [self = shared_from_this()](beast::error_code error, std::size_t) {
          if (error) return self->Settle(false, "transport");
          self->ReadHeader();
        });
  }

  void ReadHeader() {
    http::async_read_header(
        socket_, buffer_, parser_,
        [self = shared_from_this()](beast::error_code error, std::size_t) {
          if (error) return self->Settle(false, "transport");
          const int status = static_cast<int>(self->parser_.get().result_int());
          if (status != 200) return self->Settle(false, std::to_string(status));
          self->Settle(true, "");
          self->ReadBody();
        });
  }

  void ReadBody() {
    if (parser_.is_done()) return End("server ended the stream");
    parser_.get().body().data = chunk_.data();
    parser_.get().body().size = chunk_.size();
    http::async_read_some(
        socket_, buffer_, parser_,
        [self = shared_from_this()](beast::error_code error, std::size_t) {
          self->OnBody(error);
        });
  }

  void OnBody(beast::error_code error) {
    if (stopping_) return;
    const std::size_t filled = chunk_.size() - parser_.get().body().size;
    Consume(std::string_view(chunk_.data(), filled));
    if (error == http::error::need_buffer) error = {};
    if (error) return End(fmt::format("stream failed: {}", error.message()));
    if (ended()) return;
    ReadBody();
  }

  void Consume(std::string_view data) {
    while (!data.empty()) {
      const std::size_t newline = data.find('\n');
      if (newline == std::string_view::npos) {
        partial_line_.append(data);
        if (partial_line_.size() > kMaxLineBytes) {
          End("watch line without a newline longer than 16 MiB");
        }
        return;
      }
      if (partial_line_.empty()) {
        ConsumeLine(data.substr(0, newline));
      } else {
        partial_line_.append(data.substr(0, newline));
        ConsumeLine(partial_line_);
        partial_line_.clear();
      }
      data.remove_prefix(newline + 1);
    }
  }

  void ConsumeLine(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.remove_suffix(1);
    }
    if (line.empty()) return;
    const std::optional<WatchEventLine> event = ScanWatchEventLine(line);
    if (!event.has_value()) {
      ++odd_events_;
      return;
    }
    if (event->type == "BOOKMARK") return;
    const std::optional<std::uint64_t> rv =
        ParseResourceVersion(event->resource_version);
    if (event->type != "ADDED" || !rv.has_value()) {
      ++odd_events_;
      return;
    }
    if (!resource_versions_.empty() && *rv <= resource_versions_.back()) {
      ++order_violations_;
    }
    resource_versions_.push_back(*rv);
    received_.fetch_add(1, std::memory_order_relaxed);
  }

  void Settle(bool established, std::string error_key) {
    if (stopping_) return;
    established_ = established;
    open_error_ = std::move(error_key);
    if (!established) ended_.store(true, std::memory_order_relaxed);
    if (on_settled_) {
      SettledCallback callback = std::move(on_settled_);
      on_settled_ = nullptr;
      callback(*this);
    }
  }

  void End(std::string reason) {
    end_reason_ = std::move(reason);
    ended_.store(true, std::memory_order_relaxed);
  }

  asio::ip::tcp::socket socket_;
  asio::ip::tcp::endpoint endpoint_;
  beast::flat_buffer buffer_;
  http::request<http::empty_body> request_;
  http::response_parser<http::buffer_body> parser_;
  std::vector<char> chunk_;
  std::string partial_line_;
  SettledCallback on_settled_;
  bool stopping_ = false;
  bool established_ = false;
  std::string open_error_;
  std::string end_reason_;
  std::atomic<bool> ended_{false};
  std::atomic<std::int64_t> received_{0};
  std::vector<std::uint64_t> resource_versions_;
  std::int64_t order_violations_ = 0;
  std::int64_t odd_events_ = 0;
};

// Opens the watchers on the io thread, at most `window` at a time.
class WatchOpener {
 public:
  WatchOpener(std::vector<std::shared_ptr<WatchStream>>& streams, int window)
      : streams_(streams), window_(window) {}

  // Runs on the io thread.
  void Begin() {
    for (int i = 0; i < window_; ++i) OpenNext();
  }

  int settled() const { return settled_.load(); }

 private:
  void OpenNext() {
    if (next_ >= streams_.size()) return;
    streams_[next_++]->Start([this](WatchStream&) {
      settled_.fetch_add(1);
      OpenNext();
    });
  }

  std::vector<std::shared_ptr<WatchStream>>& streams_;
  const int window_;
  std::size_t next_ = 0;  // io thread only
  std::atomic<int> settled_{0};
};

// Counts of `a` values missing from `b`; both ascending and duplicate-free.
std::int64_t CountMissing(const std::vector<std::uint64_t>& a,
                          const std::vector<std::uint64_t>& b) {
  std::int64_t missing = 0;
  std::size_t j = 0;
  for (const std::uint64_t value : a) {
    while (j < b.size() && b[j] < value) ++j;
    if (j == b.size() || b[j] != value) ++missing;
  }
  return missing;
}

}  // namespace

bool WatchFanoutReport::HasErrors() const {
  return established < options.watchers || !watch_open_errors.empty() ||
         !write_errors.empty() || delivery_timed_out || lost_events > 0 ||
         unexpected_events > 0 || order_violations > 0 || odd_events > 0 ||
         streams_ended_early > 0 || !problems.empty();
}

StatusOr<WatchFanoutReport> RunWatchFanoutScenario(
    const WatchFanoutOptions& options_in) {
  WatchFanoutReport report;
  report.options = options_in;
  WatchFanoutOptions& options = report.options;
  if (options.run_id.empty()) options.run_id = MakeRunId();
  if (options.namespace_name.empty()) {
    options.namespace_name = fmt::format("load-watch-{}", options.run_id);
  }
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options.timeout_seconds));
  const std::string claims_path = ResourceClaimsPath(options.namespace_name);

  {
    HttpConnection setup(options.target, kRequestTimeout);
    RETURN_IF_ERROR(EnsureNamespace(setup, options.namespace_name));
    StatusOr<HttpResult> list = setup.Send(http::verb::get, claims_path);
    if (!list.ok()) return list.status();
    if (list->status != 200) {
      return InternalError(fmt::format("GET {}: HTTP {}: {}", claims_path,
                                       list->status, list->body));
    }
    ASSIGN_OR_RETURN(const ListBodySummary summary, ScanListBody(list->body));
    if (summary.resource_version.empty()) {
      return InternalError(fmt::format(
          "GET {}: the list has no metadata.resourceVersion", claims_path));
    }
    report.list_resource_version = summary.resource_version;
  }

  const std::string watch_path =
      fmt::format("{}?watch=true&resourceVersion={}&timeoutSeconds={}",
                  claims_path, UrlEncode(report.list_resource_version),
                  static_cast<long>(std::ceil(options.timeout_seconds)));
  asio::io_context io;
  std::vector<std::shared_ptr<WatchStream>> streams;
  streams.reserve(options.watchers);
  for (int i = 0; i < options.watchers; ++i) {
    streams.push_back(std::make_shared<WatchStream>(
        io, options.target, watch_path,
        static_cast<std::size_t>(options.writes)));
  }
  WatchOpener opener(streams, options.open_window);
  auto work = asio::make_work_guard(io);
  std::thread io_thread([&io] { io.run(); });
  const auto stop_io = [&] {
    work.reset();
    io.stop();
    if (io_thread.joinable()) io_thread.join();
    for (auto& stream : streams) stream->Stop();
    // Lets the aborted operations finish so every stream is released.
    io.restart();
    io.run_for(std::chrono::seconds(2));
  };

  // Phase 1: open every watch.
  const Clock::time_point open_start = Clock::now();
  asio::post(io, [&opener] { opener.Begin(); });
  while (opener.settled() < options.watchers && Clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
  }
  report.open_seconds = SecondsBetween(open_start, Clock::now());
  if (opener.settled() < options.watchers) {
    report.problems.push_back(
        fmt::format("only {} of {} watch requests were answered in time",
                    opener.settled(), options.watchers));
    stop_io();
    return report;
  }
  for (const auto& stream : streams) {
    if (stream->established()) {
      ++report.established;
    } else {
      ++report.watch_open_errors[stream->open_error()];
    }
  }

  // Phase 2: the writes.
  Mutex acked_mutex;  // guards acked_versions and undecodable_acks
  std::vector<std::uint64_t> acked_versions;
  acked_versions.reserve(options.writes);
  std::int64_t undecodable_acks = 0;
  const json manifest = ResourceClaimManifest(
      "placeholder", options.namespace_name, options.run_id);
  const Clock::time_point write_start = Clock::now();
  ParallelRequestsResult writes = RunParallelRequests(
      options.target, options.writes, options.clients, kRequestTimeout,
      deadline,
      [&](HttpConnection& connection, std::int64_t index) {
        json claim = manifest;
        claim["metadata"]["name"] =
            fmt::format("load-{}-w-{}", options.run_id, index);
        return connection.Send(http::verb::post, claims_path, claim.dump());
      },
      [&](std::int64_t, const HttpResult& result) {
        const std::optional<std::uint64_t> rv =
            ParseResourceVersion(ResourceVersionOf(result.body));
        MutexLock lock(acked_mutex);
        if (rv.has_value()) {
          acked_versions.push_back(*rv);
        } else {
          ++undecodable_acks;
        }
      });
  const Clock::time_point last_ack = Clock::now();
  report.writes_acknowledged = writes.succeeded;
  report.write_errors = writes.errors;
  if (writes.not_sent > 0) report.write_errors["not-sent"] = writes.not_sent;
  report.write_seconds = writes.seconds;
  report.writes_per_second =
      writes.seconds > 0 ? writes.succeeded / writes.seconds : 0;
  report.write_latency = SummarizeLatencies(std::move(writes.latencies_us));
  if (undecodable_acks > 0) {
    report.problems.push_back(fmt::format(
        "{} create responses had no numeric metadata.resourceVersion",
        undecodable_acks));
  }

  // Phase 3: wait until every live watcher has every acknowledged event.
  const std::int64_t expected =
      static_cast<std::int64_t>(acked_versions.size());
  const auto all_delivered = [&] {
    return std::all_of(streams.begin(), streams.end(), [&](const auto& s) {
      return !s->established() || s->ended() || s->received() >= expected;
    });
  };
  while (!all_delivered() && Clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
  }
  const Clock::time_point delivered = Clock::now();
  report.delivery_timed_out = !all_delivered();
  report.deliver_seconds = SecondsBetween(write_start, delivered);
  report.deliver_after_last_write_seconds = SecondsBetween(last_ack, delivered);
  stop_io();

  // Phase 4: compare what each watcher saw with what was acknowledged.
  std::sort(acked_versions.begin(), acked_versions.end());
  if (std::adjacent_find(acked_versions.begin(), acked_versions.end()) !=
      acked_versions.end()) {
    report.problems.push_back(
        "two acknowledged creates share one resourceVersion");
  }
  bool first = true;
  for (const auto& stream : streams) {
    if (!stream->established()) continue;
    std::vector<std::uint64_t> seen = stream->resource_versions();
    const auto count = static_cast<std::int64_t>(seen.size());
    report.min_events_per_watcher =
        first ? count : std::min(report.min_events_per_watcher, count);
    report.max_events_per_watcher =
        first ? count : std::max(report.max_events_per_watcher, count);
    first = false;
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    report.lost_events += CountMissing(acked_versions, seen);
    report.unexpected_events += CountMissing(seen, acked_versions);
    report.order_violations += stream->order_violations();
    report.odd_events += stream->odd_events();
    if (stream->ended()) {
      ++report.streams_ended_early;
      if (report.problems.size() < 10) {
        report.problems.push_back(fmt::format("a watch stream ended early: {}",
                                              stream->end_reason()));
      }
    }
  }
  return report;
}

std::string FormatWatchFanoutReportText(const WatchFanoutReport& report) {
  const WatchFanoutOptions& options = report.options;
  std::string text = fmt::format(
      "watch-fanout: {} watchers, {} writes by {} clients, namespace {}, "
      "from list resourceVersion {}\n",
      options.watchers, options.writes, options.clients, options.namespace_name,
      report.list_resource_version);
  text += fmt::format("watches: {} established in {:.2f} s; failed:{}\n",
                      report.established, report.open_seconds,
                      ErrorsText(report.watch_open_errors));
  text += fmt::format(
      "writes: {} acknowledged in {:.2f} s ({:.1f}/s), p50 {:.2f} ms, p99 "
      "{:.2f} ms, max {:.2f} ms; errors:{}\n",
      report.writes_acknowledged, report.write_seconds,
      report.writes_per_second, report.write_latency.p50_ms,
      report.write_latency.p99_ms, report.write_latency.max_ms,
      ErrorsText(report.write_errors));
  text += fmt::format(
      "delivery: {:.2f} s from first write ({:.2f} s after the last ack){}\n",
      report.deliver_seconds, report.deliver_after_last_write_seconds,
      report.delivery_timed_out ? " TIMED OUT" : "");
  text += fmt::format(
      "events per watcher: min {}, max {}; lost {}, unexpected {}, order "
      "violations {}, odd events {}, streams ended early {}\n",
      report.min_events_per_watcher, report.max_events_per_watcher,
      report.lost_events, report.unexpected_events, report.order_violations,
      report.odd_events, report.streams_ended_early);
  for (const std::string& problem : report.problems) {
    text += fmt::format("PROBLEM: {}\n", problem);
  }
  return text;
}

std::string FormatWatchFanoutReportJson(const WatchFanoutReport& report) {
  const json document = {
      {"scenario", "watch-fanout"},
      {"watchers", report.options.watchers},
      {"writes", report.options.writes},
      {"clients", report.options.clients},
      {"namespace", report.options.namespace_name},
      {"run_id", report.options.run_id},
      {"list_resource_version", report.list_resource_version},
      {"established", report.established},
      {"open_seconds", report.open_seconds},
      {"watch_open_errors_by_status", report.watch_open_errors},
      {"writes_acknowledged", report.writes_acknowledged},
      {"write_seconds", report.write_seconds},
      {"writes_per_second", report.writes_per_second},
      {"write_latency_ms",
       {{"p50", report.write_latency.p50_ms},
        {"p90", report.write_latency.p90_ms},
        {"p99", report.write_latency.p99_ms},
        {"max", report.write_latency.max_ms}}},
      {"write_errors_by_status", report.write_errors},
      {"deliver_seconds", report.deliver_seconds},
      {"deliver_after_last_write_seconds",
       report.deliver_after_last_write_seconds},
      {"delivery_timed_out", report.delivery_timed_out},
      {"min_events_per_watcher", report.min_events_per_watcher},
      {"max_events_per_watcher", report.max_events_per_watcher},
      {"lost_events", report.lost_events},
      {"unexpected_events", report.unexpected_events},
      {"order_violations", report.order_violations},
      {"odd_events", report.odd_events},
      {"streams_ended_early", report.streams_ended_early},
      {"problems", report.problems},
  };
  return document.dump(2) + "\n";
}

}  // namespace dralloc::load
