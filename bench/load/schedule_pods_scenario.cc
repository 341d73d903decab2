#include "load/schedule_pods_scenario.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "load/http_connection.h"
#include "load/list_body_scanner.h"
#include "load/parallel_requests.h"

namespace dralloc::load {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::chrono::seconds kRequestTimeout(30);
constexpr std::chrono::seconds kListTimeout(300);
constexpr std::uint64_t kListBodyLimit = 2ull << 30;
constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::size_t kMaxLineBytes = 16u << 20;
constexpr std::chrono::milliseconds kPollInterval(2);
constexpr std::chrono::milliseconds kReopenDelay(200);
constexpr int kMaxWatchReopens = 10;
constexpr std::size_t kMaxProblems = 20;

// Kinds served at cluster scope (everything else is namespaced).
bool IsClusterScopedKind(std::string_view kind) {
  static const std::set<std::string_view> kClusterScoped = {
      "Namespace",
      "Node",
      "DeviceClass",
      "ResourceSlice",
      "DeviceTaintRule",
      "PersistentVolume",
      "StorageClass",
      "PriorityClass",
      "CSINode",
      "CSIDriver",
      "RuntimeClass",
      "ClusterRole",
      "ClusterRoleBinding",
      "ResourceClass"};
  return kClusterScoped.contains(kind);
}

// "DeviceClass" -> "deviceclasses", "ResourceSlice" -> "resourceslices".
std::string PluralResource(std::string_view kind) {
  if (kind == "Endpoints") return "endpoints";  // already plural
  std::string lower;
  for (const char c : kind) {
    lower.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (lower.ends_with("s") || lower.ends_with("x") || lower.ends_with("ch") ||
      lower.ends_with("sh")) {
    return lower + "es";
  }
  if (lower.ends_with("y") && lower.size() > 1 &&
      std::string_view("aeiou").find(lower[lower.size() - 2]) ==
          std::string_view::npos) {
    return lower.substr(0, lower.size() - 1) + "ies";
  }
  return lower + "s";
}

std::string StringAt(const json& object, std::string_view key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

const json* ObjectAt(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return nullptr;
  return &*it;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return NotFoundError(fmt::format("cannot open {}", path));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return DataLossError(fmt::format("cannot read {}", path));
  return contents.str();
}

std::string Truncated(std::string_view text, std::size_t limit = 300) {
  if (text.size() <= limit) return std::string(text);
  return fmt::format("{}...", text.substr(0, limit));
}

void AddProblem(std::vector<std::string>& problems, std::string problem) {
  if (problems.size() < kMaxProblems) problems.push_back(std::move(problem));
}

// A watch on one collection that reads newline-delimited events on its own
// io thread and reopens itself (from the last resourceVersion seen) when the
// server ends the stream early.
class PodWatcher {
 public:
  using EventCallback =
      std::function<void(const PodWatchEvent&, Clock::time_point)>;

  PodWatcher(const LoadTarget& target, std::string base_path,
             EventCallback on_event)
      : target_(target),
        base_path_(std::move(base_path)),
        on_event_(std::move(on_event)),
        work_(asio::make_work_guard(io_)),
        socket_(io_),
        retry_timer_(io_),
        chunk_(kReadChunkBytes) {
    beast::error_code ignored;  // target.host is always a valid literal
    endpoint_ = asio::ip::tcp::endpoint(
        asio::ip::make_address(target.host, ignored), target.port);
  }
  PodWatcher(const PodWatcher&) = delete;
  PodWatcher& operator=(const PodWatcher&) = delete;
  ~PodWatcher() { Stop(); }

  // Starts the io thread and opens the stream from `resource_version`;
  // returns once the response header arrived (OK) or the open failed.
  Status Open(std::string resource_version, std::chrono::milliseconds timeout) {
    resource_version_ = std::move(resource_version);
    std::future<Status> opened = opened_.get_future();
    thread_ = std::thread([this] { io_.run(); });
    asio::post(io_, [this] { Connect(); });
    if (opened.wait_for(timeout) != std::future_status::ready) {
      return Status(
          StatusCode::kDeadlineExceeded,
          fmt::format("watch {}: no response header in time", base_path_));
    }
    return opened.get();
  }

  // Closes the stream and joins the io thread. Idempotent.
  void Stop() {
    if (!thread_.joinable()) return;
    asio::post(io_, [this] {
      stopping_ = true;
      retry_timer_.cancel();
      beast::error_code ignored;
      socket_.close(ignored);
    });
    work_.reset();
    thread_.join();
  }

  // Read after Stop().
  int reopens() const { return reopens_; }
  std::int64_t events() const { return events_; }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void Connect() {
    if (stopping_) return;
    beast::error_code ignored;
    socket_.close(ignored);
    socket_ = asio::ip::tcp::socket(io_);
    buffer_.consume(buffer_.size());
    partial_line_.clear();
    parser_.emplace();
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    request_ = http::request<http::empty_body>{
        http::verb::get,
        fmt::format("{}&resourceVersion={}", base_path_,
                    UrlEncode(resource_version_)),
        11};
    request_.set(http::field::host, target_.HostHeader());
    request_.set(http::field::user_agent, "dralloc-api-load");
    request_.set(http::field::accept, "application/json");
    socket_.async_connect(endpoint_, [this](beast::error_code error) {
      if (error) return Ended(fmt::format("connect: {}", error.message()));
      beast::error_code ignored_option;
      socket_.set_option(asio::ip::tcp::no_delay(true), ignored_option);
      http::async_write(
          socket_, request_, [this](beast::error_code error, std::size_t) {
            if (error) {
              return Ended(fmt::format("send: {}", error.message()));
            }
            ReadHeader();
          });
    });
  }

  void ReadHeader() {
    http::async_read_header(
        socket_, buffer_, *parser_,
        [this](beast::error_code error, std::size_t) {
          if (error) return Ended(fmt::format("header: {}", error.message()));
          const int status = static_cast<int>(parser_->get().result_int());
          if (status != 200) {
            return Ended(fmt::format("watch answered HTTP {}", status));
          }
          Settle(OkStatus());
          ReadBody();
        });
  }

  void ReadBody() {
    if (parser_->is_done()) return Ended("server ended the stream");
    parser_->get().body().data = chunk_.data();
    parser_->get().body().size = chunk_.size();
    http::async_read_some(
        socket_, buffer_, *parser_,
        [this](beast::error_code error, std::size_t) { OnBody(error); });
  }

  void OnBody(beast::error_code error) {
    if (stopping_) return;
    const Clock::time_point now = Clock::now();
    const std::size_t filled = chunk_.size() - parser_->get().body().size;
    if (!Consume(std::string_view(chunk_.data(), filled), now)) return;
    if (error == http::error::need_buffer) error = {};
    if (error) return Ended(fmt::format("stream: {}", error.message()));
    ReadBody();
  }

  // False when the stream was given up (the caller must stop reading).
  bool Consume(std::string_view data, Clock::time_point now) {
    while (!data.empty()) {
      const std::size_t newline = data.find('\n');
      if (newline == std::string_view::npos) {
        partial_line_.append(data);
        if (partial_line_.size() > kMaxLineBytes) {
          GiveUp("watch line without a newline longer than 16 MiB");
          return false;
        }
        return true;
      }
      bool keep_going = true;
      if (partial_line_.empty()) {
        keep_going = ConsumeLine(data.substr(0, newline), now);
      } else {
        partial_line_.append(data.substr(0, newline));
        keep_going = ConsumeLine(partial_line_, now);
        partial_line_.clear();
      }
      if (!keep_going) return false;
      data.remove_prefix(newline + 1);
    }
    return true;
  }

  bool ConsumeLine(std::string_view line, Clock::time_point now) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.remove_suffix(1);
    }
    if (line.empty()) return true;
    const std::optional<PodWatchEvent> event = ParsePodWatchLine(line);
    if (!event.has_value()) {
      AddProblem(problems_,
                 fmt::format("unreadable watch line: {}", Truncated(line)));
      return true;
    }
    ++events_;
    if (event->type == "ERROR") {
      const std::string problem =
          fmt::format("watch ERROR event: code {}: {}", event->error_code,
                      event->error_message);
      // 410 Gone: the resourceVersion is too old; reopening from it cannot
      // work.
      if (event->error_code == 410) {
        GiveUp(problem);
        return false;
      }
      AddProblem(problems_, problem);
      return true;
    }
    if (!event->resource_version.empty()) {
      resource_version_ = event->resource_version;
    }
    if (event->type != "BOOKMARK") on_event_(*event, now);
    return true;
  }

  void Settle(Status status) {
    if (settled_) return;
    settled_ = true;
    opened_.set_value(std::move(status));
  }

  // The stream ended or could not be opened; reopen unless stopping.
  void Ended(std::string reason) {
    if (stopping_) return;
    if (!settled_) {
      Settle(UnavailableError(fmt::format("watch {}: {}", base_path_, reason)));
      return GiveUp("");
    }
    if (reopens_ >= kMaxWatchReopens) {
      return GiveUp(fmt::format("watch ended ({}); gave up after {} reopens",
                                reason, reopens_));
    }
    // Recoverable: counted in the report, not a problem.
    ++reopens_;
    retry_timer_.expires_after(kReopenDelay);
    retry_timer_.async_wait([this](beast::error_code error) {
      if (!error) Connect();
    });
  }

  void GiveUp(std::string problem) {
    if (!problem.empty()) AddProblem(problems_, std::move(problem));
    stopping_ = true;
    beast::error_code ignored;
    socket_.close(ignored);
  }

  const LoadTarget target_;
  const std::string base_path_;
  const EventCallback on_event_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  asio::ip::tcp::endpoint endpoint_;
  // Everything below is used on the io thread only (and read after Stop()).
  asio::ip::tcp::socket socket_;
  asio::steady_timer retry_timer_;
  http::request<http::empty_body> request_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  std::vector<char> chunk_;
  std::string partial_line_;
  std::string resource_version_;
  std::promise<Status> opened_;
  bool settled_ = false;
  bool stopping_ = false;
  int reopens_ = 0;
  std::int64_t events_ = 0;
  std::vector<std::string> problems_;
};

// POSTs the setup objects in order; 409 means it already exists.
Status CreateSetupObjects(const LoadTarget& target,
                          const std::vector<json>& objects,
                          SchedulePodsReport& report) {
  HttpConnection connection(target, kRequestTimeout);
  const Clock::time_point start = Clock::now();
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const json& object = objects[i];
    ASSIGN_OR_RETURN(const std::string path, CollectionPathFor(object));
    StatusOr<HttpResult> created =
        connection.Send(http::verb::post, path, object.dump());
    if (!created.ok()) {
      return Status(created.status().code(),
                    fmt::format("setup object {} ({} {}): {}", i + 1,
                                StringAt(object, "kind"), ObjectName(object),
                                created.status().message()));
    }
    if (created->status == 409) {
      ++report.setup_already_existed;
    } else if (created->status < 200 || created->status >= 300) {
      return InternalError(
          fmt::format("setup object {} ({} {}): POST {}: HTTP {}: {}", i + 1,
                      StringAt(object, "kind"), ObjectName(object), path,
                      created->status, Truncated(created->body)));
    }
    ++report.setup_objects;
  }
  report.setup_seconds = SecondsBetween(start, Clock::now());
  return OkStatus();
}

// Lists the claims of the namespace and checks their allocations.
void CheckClaims(const LoadTarget& target, SchedulePodsReport& report) {
  HttpConnection connection(target, kListTimeout);
  connection.set_body_limit(kListBodyLimit);
  const std::string path =
      fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims",
                  report.namespace_name);
  StatusOr<HttpResult> list = connection.Send(http::verb::get, path);
  if (!IsSuccess(list)) {
    AddProblem(report.problems,
               fmt::format("GET {}: {}", path,
                           list.ok() ? fmt::format("HTTP {}", list->status)
                                     : list.status().ToString()));
    return;
  }
  StatusOr<ClaimAllocationCheck> check = CheckClaimAllocations(list->body);
  if (!check.ok()) {
    AddProblem(report.problems,
               fmt::format("GET {}: {}", path, check.status().ToString()));
    return;
  }
  report.claims_checked = true;
  report.claims = *std::move(check);
}

json LatencyJson(const LatencySummary& latency) {
  return {{"count", latency.count}, {"mean", latency.mean_ms},
          {"p50", latency.p50_ms},  {"p90", latency.p90_ms},
          {"p99", latency.p99_ms},  {"max", latency.max_ms}};
}

}  // namespace

StatusOr<std::vector<json>> ParseJsonLines(std::string_view text) {
  std::vector<json> objects;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size()
                                                         : newline + 1);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) {
      return InvalidArgumentError(fmt::format(
          "line {}: not a JSON object: {}", line_number, Truncated(line, 80)));
    }
    objects.push_back(std::move(object));
  }
  return objects;
}

StatusOr<std::string> CollectionPathFor(const json& object) {
  const std::string api_version = StringAt(object, "apiVersion");
  const std::string kind = StringAt(object, "kind");
  if (api_version.empty() || kind.empty()) {
    return InvalidArgumentError(fmt::format(
        "object {} has no apiVersion or kind", Truncated(object.dump(), 80)));
  }
  std::string path = api_version.find('/') == std::string::npos
                         ? fmt::format("/api/{}", api_version)
                         : fmt::format("/apis/{}", api_version);
  if (!IsClusterScopedKind(kind)) {
    std::string namespace_name = ObjectNamespace(object);
    if (namespace_name.empty()) namespace_name = "default";
    path += fmt::format("/namespaces/{}", namespace_name);
  }
  path += "/" + PluralResource(kind);
  return path;
}

std::string ObjectName(const json& object) {
  const json* metadata = ObjectAt(object, "metadata");
  return metadata == nullptr ? "" : StringAt(*metadata, "name");
}

std::string ObjectNamespace(const json& object) {
  const json* metadata = ObjectAt(object, "metadata");
  return metadata == nullptr ? "" : StringAt(*metadata, "namespace");
}

std::optional<PodWatchEvent> ParsePodWatchLine(std::string_view line) {
  // Thousands of events per second share the cores with the server under
  // test: a reused simdjson parser keeps the watcher cheap.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object document;
  if (parser.parse(line.data(), line.size()).get_object().get(document)) {
    return std::nullopt;
  }
  auto string_at = [](simdjson::dom::object parent, std::string_view key) {
    std::string_view text;
    return parent[key].get_string().get(text) ? std::string()
                                              : std::string(text);
  };
  PodWatchEvent event;
  event.type = string_at(document, "type");
  if (event.type.empty()) return std::nullopt;
  simdjson::dom::object object;
  if (document["object"].get_object().get(object)) return std::nullopt;
  if (event.type == "ERROR") {
    event.error_message = string_at(object, "message");
    int64_t code = 0;
    if (!object["code"].get_int64().get(code)) {
      event.error_code = static_cast<int>(code);
    }
    return event;
  }
  simdjson::dom::object metadata;
  if (!object["metadata"].get_object().get(metadata)) {
    event.name = string_at(metadata, "name");
    event.namespace_name = string_at(metadata, "namespace");
    event.resource_version = string_at(metadata, "resourceVersion");
  }
  simdjson::dom::object spec;
  if (!object["spec"].get_object().get(spec)) {
    event.node_name = string_at(spec, "nodeName");
  }
  return event;
}

StatusOr<ClaimAllocationCheck> CheckClaimAllocations(std::string_view body) {
  const json list = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!list.is_object()) {
    return InvalidArgumentError("the claim list is not a JSON object");
  }
  const auto items = list.find("items");
  if (items == list.end() || !(items->is_array() || items->is_null())) {
    return InvalidArgumentError("the claim list has no items array");
  }
  ClaimAllocationCheck check;
  std::unordered_map<std::string, int> uses;
  if (items->is_null()) return check;
  for (const json& claim : *items) {
    ++check.claims;
    const json* status = ObjectAt(claim, "status");
    const json* allocation =
        status == nullptr ? nullptr : ObjectAt(*status, "allocation");
    if (allocation == nullptr) continue;
    ++check.allocated_claims;
    const json* devices = ObjectAt(*allocation, "devices");
    if (devices == nullptr) continue;
    const auto results = devices->find("results");
    if (results == devices->end() || !results->is_array()) continue;
    for (const json& result : *results) {
      ++check.allocated_devices;
      const auto admin = result.find("adminAccess");
      if (admin != result.end() && admin->is_boolean() && admin->get<bool>()) {
        continue;
      }
      // A device that allows multiple allocations gets a distinct shareID
      // per allocation; the (device, shareID) pair must still be unique.
      std::string key =
          fmt::format("{}/{}/{}", StringAt(result, "driver"),
                      StringAt(result, "pool"), StringAt(result, "device"));
      const std::string share = StringAt(result, "shareID");
      if (!share.empty()) key += "#" + share;
      if (++uses[key] == 2) {
        ++check.double_allocated_devices;
        if (check.double_allocated_examples.size() < 10) {
          check.double_allocated_examples.push_back(key);
        }
      }
    }
  }
  return check;
}

double ThroughputPodsPerSecond(std::int64_t bound, double span_seconds) {
  if (bound <= 0 || !(span_seconds > 0)) return 0;
  return static_cast<double>(bound) / span_seconds;
}

bool SchedulePodsReport::HasErrors() const {
  return pods_bound < pods || !claims_checked ||
         claims.double_allocated_devices > 0 || !problems.empty();
}

StatusOr<SchedulePodsReport> RunSchedulePodsScenario(
    const SchedulePodsOptions& options) {
  SchedulePodsReport report;
  report.options = options;

  // Inputs.
  ASSIGN_OR_RETURN(const std::string setup_text, ReadFile(options.setup_path));
  StatusOr<std::vector<json>> setup = ParseJsonLines(setup_text);
  if (!setup.ok()) {
    return InvalidArgumentError(
        fmt::format("{}: {}", options.setup_path, setup.status().message()));
  }
  ASSIGN_OR_RETURN(const std::string pods_text, ReadFile(options.pods_path));
  StatusOr<std::vector<json>> pods = ParseJsonLines(pods_text);
  if (!pods.ok()) {
    return InvalidArgumentError(
        fmt::format("{}: {}", options.pods_path, pods.status().message()));
  }
  if (pods->empty()) {
    return InvalidArgumentError(fmt::format("{}: no pods", options.pods_path));
  }
  std::unordered_map<std::string, std::size_t> pod_index;
  std::vector<std::string> pod_paths;
  std::vector<std::string> pod_bodies;
  for (const json& pod : *pods) {
    const std::string name = ObjectName(pod);
    std::string namespace_name = ObjectNamespace(pod);
    if (StringAt(pod, "kind") != "Pod" || name.empty()) {
      return InvalidArgumentError(
          fmt::format("{}: every line must be a named Pod", options.pods_path));
    }
    if (namespace_name.empty()) namespace_name = "default";
    if (report.namespace_name.empty()) report.namespace_name = namespace_name;
    if (namespace_name != report.namespace_name) {
      return InvalidArgumentError(fmt::format(
          "{}: all pods must be in one namespace ({} and {})",
          options.pods_path, report.namespace_name, namespace_name));
    }
    if (!pod_index.emplace(name, pod_paths.size()).second) {
      return InvalidArgumentError(
          fmt::format("{}: pod {} appears twice", options.pods_path, name));
    }
    ASSIGN_OR_RETURN(std::string path, CollectionPathFor(pod));
    pod_paths.push_back(std::move(path));
    pod_bodies.push_back(pod.dump());
  }
  report.pods = static_cast<std::int64_t>(pod_bodies.size());

  // Phase 1: setup objects.
  RETURN_IF_ERROR(CreateSetupObjects(options.target, *setup, report));

  // Phase 2: list the pods for a resourceVersion, then watch from it.
  const std::string pods_collection =
      fmt::format("/api/v1/namespaces/{}/pods", report.namespace_name);
  {
    HttpConnection connection(options.target, kListTimeout);
    connection.set_body_limit(kListBodyLimit);
    StatusOr<HttpResult> list =
        connection.Send(http::verb::get, pods_collection);
    if (!list.ok()) return list.status();
    if (list->status != 200) {
      return InternalError(fmt::format("GET {}: HTTP {}: {}", pods_collection,
                                       list->status, Truncated(list->body)));
    }
    ASSIGN_OR_RETURN(const ListBodySummary summary, ScanListBody(list->body));
    if (summary.resource_version.empty()) {
      return InternalError(fmt::format(
          "GET {}: the list has no metadata.resourceVersion", pods_collection));
    }
    report.watch_resource_version = summary.resource_version;
  }

  // Written on the watch thread only; read after it stopped.
  const Clock::time_point kNever = Clock::time_point::max();
  std::vector<Clock::time_point> bound_at(pod_bodies.size(), kNever);
  std::unordered_set<std::string> nodes_used;
  std::atomic<std::int64_t> bound_count{0};
  std::vector<Clock::time_point> create_sent(pod_bodies.size(), kNever);

  const auto watch_seconds =
      static_cast<long>(std::ceil(options.timeout_seconds)) + 120;
  PodWatcher watcher(
      options.target,
      // Only bound pods matter here: the server leaves out the events of
      // pods without a node (fieldSelector spec.nodeName!=).
      fmt::format("{}?watch=true&allowWatchBookmarks=true&timeoutSeconds={}"
                  "&fieldSelector=spec.nodeName%21%3D",
                  pods_collection, watch_seconds),
      [&](const PodWatchEvent& event, Clock::time_point now) {
        if (event.node_name.empty() || event.type == "DELETED") return;
        const auto it = pod_index.find(event.name);
        if (it == pod_index.end()) return;
        if (bound_at[it->second] != kNever) return;
        bound_at[it->second] = now;
        nodes_used.insert(event.node_name);
        bound_count.fetch_add(1, std::memory_order_relaxed);
      });
  RETURN_IF_ERROR(watcher.Open(report.watch_resource_version, kRequestTimeout));

  // Phase 3: create the pods.
  StallMonitor stall_monitor;
  stall_monitor.Start(Clock::now());
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options.timeout_seconds));
  ParallelRequestsResult creates = RunParallelRequests(
      options.target, report.pods, options.clients, kRequestTimeout, deadline,
      [&](HttpConnection& connection, std::int64_t index) {
        create_sent[index] = Clock::now();
        return connection.Send(http::verb::post, pod_paths[index],
                               pod_bodies[index]);
      },
      [](std::int64_t, const HttpResult&) {});
  report.pods_created = creates.succeeded;
  report.create_errors = creates.errors;
  if (creates.not_sent > 0) report.create_errors["not-sent"] = creates.not_sent;
  report.create_seconds = creates.seconds;
  report.creates_per_second =
      creates.seconds > 0 ? creates.succeeded / creates.seconds : 0;
  report.create_latency = SummarizeLatencies(std::move(creates.latencies_us));

  // Phase 4: wait for the bindings. Pods whose create failed may still have
  // been stored (e.g. a timed-out request), so wait for all of them until
  // the deadline, but stop early once every acknowledged pod is bound and
  // nothing is left in flight.
  const auto everything_bound = [&] {
    return bound_count.load(std::memory_order_relaxed) >= report.pods;
  };
  while (!everything_bound() && Clock::now() < deadline) {
    if (bound_count.load(std::memory_order_relaxed) >= report.pods_created &&
        report.pods_created < report.pods &&
        report.create_errors.count("transport") == 0) {
      break;  // the missing pods were rejected; they will never bind
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  report.stalls = stall_monitor.Stop();
  report.stall_threshold = stall_monitor.threshold();
  watcher.Stop();
  report.timed_out = !everything_bound() && Clock::now() >= deadline;
  report.watch_reopens = watcher.reopens();
  report.watch_events = watcher.events();
  for (const std::string& problem : watcher.problems()) {
    AddProblem(report.problems, problem);
  }

  // Results.
  Clock::time_point first_create = kNever;
  Clock::time_point last_bound = Clock::time_point::min();
  std::vector<std::int64_t> bind_latencies_us;
  for (std::size_t i = 0; i < bound_at.size(); ++i) {
    first_create = std::min(first_create, create_sent[i]);
    if (bound_at[i] == kNever) continue;
    ++report.pods_bound;
    last_bound = std::max(last_bound, bound_at[i]);
    if (create_sent[i] != kNever) {
      bind_latencies_us.push_back(
          std::chrono::duration_cast<std::chrono::microseconds>(bound_at[i] -
                                                                create_sent[i])
              .count());
    }
  }
  report.nodes_used = static_cast<std::int64_t>(nodes_used.size());
  if (report.pods_bound > 0 && first_create != kNever) {
    report.first_create_to_last_bound_seconds =
        SecondsBetween(first_create, last_bound);
    report.throughput_pods_per_second = ThroughputPodsPerSecond(
        report.pods_bound, report.first_create_to_last_bound_seconds);
  }
  report.bind_latency = SummarizeLatencies(std::move(bind_latencies_us));
  if (const auto conflicts = report.create_errors.find("409");
      conflicts != report.create_errors.end()) {
    AddProblem(report.problems,
               fmt::format("{} pods already existed (HTTP 409); start from an "
                           "empty server",
                           conflicts->second));
  }
  if (report.pods_bound < report.pods) {
    AddProblem(report.problems,
               fmt::format("{} of {} pods were not bound{}",
                           report.pods - report.pods_bound, report.pods,
                           report.timed_out ? " before the timeout" : ""));
  }

  // Phase 5: correctness of the allocations.
  CheckClaims(options.target, report);
  if (report.claims.double_allocated_devices > 0) {
    AddProblem(report.problems,
               fmt::format("{} devices are allocated to more than one claim",
                           report.claims.double_allocated_devices));
  }
  return report;
}

std::string FormatSchedulePodsReportText(const SchedulePodsReport& report) {
  std::string text = fmt::format(
      "schedule-pods: {} pods in namespace {} by {} clients; setup: {} "
      "objects ({} already existed) in {:.2f} s\n",
      report.pods, report.namespace_name, report.options.clients,
      report.setup_objects, report.setup_already_existed, report.setup_seconds);
  text += fmt::format(
      "create: {} created in {:.2f} s ({:.1f} pods/s), p50 {:.2f} ms, p99 "
      "{:.2f} ms; errors:{}\n",
      report.pods_created, report.create_seconds, report.creates_per_second,
      report.create_latency.p50_ms, report.create_latency.p99_ms,
      ErrorsText(report.create_errors));
  text += fmt::format(
      "bound: {} of {} on {} nodes{}; first create -> last bound {:.2f} s\n",
      report.pods_bound, report.pods, report.nodes_used,
      report.timed_out ? " (TIMED OUT)" : "",
      report.first_create_to_last_bound_seconds);
  text += fmt::format(
      "throughput: {:.1f} pods/s (bound / (last bound - first "
      "create))\n",
      report.throughput_pods_per_second);
  text += fmt::format(
      "create -> bound latency: p50 {:.1f} ms, p90 {:.1f} ms, p99 {:.1f} ms, "
      "max {:.1f} ms\n",
      report.bind_latency.p50_ms, report.bind_latency.p90_ms,
      report.bind_latency.p99_ms, report.bind_latency.max_ms);
  text +=
      fmt::format("machine stalls (this process's 1 ms sleeps overran): {}\n",
                  FormatStallSummary(SummarizeStalls(report.stalls),
                                     report.stall_threshold));
  text += fmt::format("watch: from resourceVersion {}, {} events, {} reopens\n",
                      report.watch_resource_version, report.watch_events,
                      report.watch_reopens);
  if (report.claims_checked) {
    text += fmt::format(
        "claims: {} listed, {} allocated, {} devices allocated; devices "
        "allocated to more than one claim: {}\n",
        report.claims.claims, report.claims.allocated_claims,
        report.claims.allocated_devices,
        report.claims.double_allocated_devices);
    for (const std::string& device : report.claims.double_allocated_examples) {
      text += fmt::format("  double-allocated: {}\n", device);
    }
  } else {
    text += "claims: NOT CHECKED\n";
  }
  for (const std::string& problem : report.problems) {
    text += fmt::format("PROBLEM: {}\n", problem);
  }
  return text;
}

std::string FormatSchedulePodsReportJson(const SchedulePodsReport& report) {
  const json document = {
      {"scenario", "schedule-pods"},
      {"namespace", report.namespace_name},
      {"clients", report.options.clients},
      {"timeout_seconds", report.options.timeout_seconds},
      {"setup_objects", report.setup_objects},
      {"setup_already_existed", report.setup_already_existed},
      {"setup_seconds", report.setup_seconds},
      {"pods", report.pods},
      {"pods_created", report.pods_created},
      {"create_errors_by_status", report.create_errors},
      {"create_seconds", report.create_seconds},
      {"creates_per_second", report.creates_per_second},
      {"create_latency_ms", LatencyJson(report.create_latency)},
      {"pods_bound", report.pods_bound},
      {"timed_out", report.timed_out},
      {"nodes_used", report.nodes_used},
      {"first_create_to_last_bound_seconds",
       report.first_create_to_last_bound_seconds},
      {"throughput_pods_per_second", report.throughput_pods_per_second},
      {"bind_latency_ms", LatencyJson(report.bind_latency)},
      {"machine_stalls", StallsJson(report.stalls, report.stall_threshold)},
      {"watch_resource_version", report.watch_resource_version},
      {"watch_events", report.watch_events},
      {"watch_reopens", report.watch_reopens},
      {"claims_checked", report.claims_checked},
      {"claims", report.claims.claims},
      {"allocated_claims", report.claims.allocated_claims},
      {"allocated_devices", report.claims.allocated_devices},
      {"double_allocated_devices", report.claims.double_allocated_devices},
      {"double_allocated_examples", report.claims.double_allocated_examples},
      {"problems", report.problems},
  };
  return document.dump(2) + "\n";
}

}  // namespace dralloc::load
