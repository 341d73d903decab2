#include "client/http_api_client.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/codec.h"
#include "client/internal/http_connection.h"
#include "common/mutex.h"

namespace dralloc::client {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using internal::Clock;
using internal::Connection;
using internal::Endpoint;
using internal::Guarded;
using internal::MakeTlsContext;
using internal::Parser;
using internal::ParseServerUrl;
using internal::Request;
using internal::TlsContext;
using internal::TransportError;
using std::chrono::milliseconds;

constexpr uint64_t kMaxBodyBytes = uint64_t{1} << 31;
constexpr size_t kMaxIdleConnections = 16;
// Watches run until stopped; the server bounds them by its own maximum.
constexpr int kWatchTimeoutSeconds = 86400;

// Sets `out` from `field` when it is present with the right type.
template <class T>
void ReadIfPresent(simdjson::simdjson_result<simdjson::dom::element> field,
                   T& out) {
  T value;
  if (field.get(value) == simdjson::SUCCESS) out = value;
}

// The Status of a non-2xx response; the message is the server's when the
// body is a Status object.
Status StatusFromResponse(int code, std::string_view body) {
  const nlohmann::json parsed =
      nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message;
  std::string reason;
  if (parsed.is_object() && parsed.value("kind", "") == "Status") {
    message = parsed.value("message", "");
    reason = parsed.value("reason", "");
  }
  if (message.empty()) {
    message = "HTTP " + std::to_string(code) + ": " +
              std::string(body.substr(0, 256));
  }
  return StatusForApiError(code, reason, std::move(message));
}

// The status an ERROR watch event carries.
Status StatusFromErrorEvent(simdjson::dom::element object) {
  int64_t code = 500;
  std::string_view message = "watch error";
  std::string_view reason;
  ReadIfPresent(object["code"], code);
  ReadIfPresent(object["message"], message);
  ReadIfPresent(object["reason"], reason);
  return StatusForApiError(static_cast<int>(code), reason,
                           std::string(message));
}

StatusOr<api::Object> TakeSingleObject(std::vector<api::DecodeResult> results,
                                       std::string_view kind) {
  const std::string prefix =
      "cannot decode " + std::string(kind) + " from server: ";
  if (results.size() != 1) {
    return InternalError(prefix + "expected one object, got " +
                         std::to_string(results.size()));
  }
  api::DecodeResult& result = results.front();
  if (!result.errors.empty()) {
    return InternalError(prefix + result.errors.front().ToString());
  }
  if (!result.object) return InternalError(prefix + "no object");
  return std::move(*result.object);
}

// Decodes one object of `info`; list items from real servers may lack
// apiVersion and kind, which are then taken from `info`.
StatusOr<api::Object> DecodeServerObject(simdjson::dom::element element,
                                         const api::ResourceInfo& info) {
  api::DecodeOptions options;
  options.strict = false;  // servers may know newer fields
  simdjson::dom::element kind;
  if (element["kind"].get(kind) == simdjson::SUCCESS) {
    return TakeSingleObject(api::DecodeElement(element, options), info.kind);
  }
  std::string text = simdjson::minify(element);
  if (!text.starts_with('{')) {
    return InternalError("cannot decode " + std::string(info.kind) +
                         " from server: not an object");
  }
  const std::string type_meta = nlohmann::json{
      {"apiVersion", info.GroupVersion(info.versions[0])},
      {"kind", info.kind}}.dump();
  text = type_meta.substr(0, type_meta.size() - 1) +
         (text == "{}" ? "}" : "," + text.substr(1));
  return TakeSingleObject(api::DecodeDocument(text, options), info.kind);
}

StatusOr<api::Object> DecodeServerText(std::string_view text,
                                       const api::ResourceInfo& info) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(text.data(), text.size()).get(root)) {
    return InternalError("cannot decode " + std::string(info.kind) +
                         " from server: " + simdjson::error_message(error));
  }
  return DecodeServerObject(root, info);
}

StatusOr<ObjectPtr> Shared(StatusOr<api::Object> decoded) {
  if (!decoded.ok()) return decoded.status();
  return std::make_shared<const api::Object>(std::move(*decoded));
}

StatusOr<std::string> EncodeForServer(const api::Object& object,
                                      const api::ResourceInfo& info) {
  return api::EncodeObjectText(object, info.GroupVersion(info.versions[0]));
}

// Percent-encodes one path segment.
std::string EscapeSegment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : segment) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~' ||
        c == ':') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

// The events of one watch, read from its own connection when Next runs
// (there is no background thread).
class HttpWatchStream : public WatchStream {
 public:
  HttpWatchStream(const api::ResourceInfo& info,
                  std::unique_ptr<Connection> connection)
      : info_(info), connection_(std::move(connection)) {
    parser_.body_limit(kMaxBodyBytes);
  }
  ~HttpWatchStream() override { Stop(); }

  // Sends the watch request and reads the response header.
  Status Start(const Request& request, milliseconds timeout) {
    RETURN_IF_ERROR(connection_->Write(request, timeout));
    RETURN_IF_ERROR(connection_->ReadHeader(parser_, timeout));
    const int code = static_cast<int>(parser_.get().result_int());
    if (code == 200) return OkStatus();
    RETURN_IF_ERROR(connection_->ReadRest(parser_, timeout));
    return StatusFromResponse(code, parser_.get().body());
  }

  StatusOr<std::vector<WatchEvent>> Next(milliseconds timeout) override {
    return Guarded("reading the watch", [&] { return WaitForEvents(timeout); });
  }

  void Stop() override {
    stopped_ = true;  // before Interrupt: see WaitForEvents
    connection_->Interrupt();
  }

 private:
  StatusOr<std::vector<WatchEvent>> WaitForEvents(milliseconds timeout) {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
      if (stopped_) return Status(StatusCode::kCancelled, "watch stopped");
      if (!events_.empty()) {
        TakeArrived();
        return std::exchange(events_, {});
      }
      if (!broken_.ok()) return broken_;
      if (!reading_) StartRead();
      connection_->ClearInterrupt();
      if (stopped_) continue;  // Stop() ran before the interrupt was cleared
      if (!connection_->RunOneUntil(deadline) && Clock::now() >= deadline) {
        return std::vector<WatchEvent>{};
      }
    }
  }

  // Reads on while data is already there: a read parses about one chunk
  // (one event) of the stream, and a caller woken once per event could
  // not keep up with a busy watch. Bounded, so a firehose still returns.
  void TakeArrived() {
    constexpr size_t kMaxBatch = 1024;
    while (events_.size() < kMaxBatch && broken_.ok() && !stopped_) {
      if (!reading_) StartRead();
      if (!connection_->RunOneUntil(Clock::time_point::min())) break;
    }
  }

  void StartRead() {
    reading_ = true;
    connection_->StartReadSome(
        parser_, [this](beast::error_code ec, size_t) { OnRead(ec); });
  }

  void OnRead(const beast::error_code& ec) {
    reading_ = false;
    std::string& body = parser_.get().body();
    pending_ += body;
    body.clear();
    ConsumeLines();
    if (!broken_.ok()) return;
    if (ec) {
      broken_ = TransportError("watch of " + std::string(info_.plural), ec);
    } else if (parser_.is_done()) {
      broken_ = UnavailableError("watch of " + std::string(info_.plural) +
                                 " closed by the server");
    }
  }

  // Turns the complete lines of pending_ into events (or broken_).
  void ConsumeLines() {
    size_t start = 0;
    for (size_t end = pending_.find('\n'); end != std::string::npos;
         end = pending_.find('\n', start)) {
      std::string_view line(pending_.data() + start, end - start);
      start = end + 1;
      if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
      Status parsed = ParseEvent(line);
      if (!parsed.ok()) {
        broken_ = parsed;
        break;
      }
    }
    pending_.erase(0, start);
  }

  Status ParseEvent(std::string_view line) {
    simdjson::dom::element root;
    std::string_view type;
    simdjson::dom::element object;
    if (json_parser_.parse(line.data(), line.size()).get(root) ||
        root["type"].get(type) || root["object"].get(object)) {
      return InternalError("malformed watch event from server: " +
                           std::string(line.substr(0, 200)));
    }
    if (type == "ERROR") return StatusFromErrorEvent(object);
    WatchEvent event;
    if (type == "BOOKMARK") {
      std::string_view revision;
      ReadIfPresent(object["metadata"]["resourceVersion"], revision);
      event.type = WatchEvent::Type::kBookmark;
      event.resource_version = ParseResourceVersion(revision);
      events_.push_back(std::move(event));
      return OkStatus();
    }
    if (type == "ADDED") {
      event.type = WatchEvent::Type::kAdded;
    } else if (type == "MODIFIED") {
      event.type = WatchEvent::Type::kModified;
    } else if (type == "DELETED") {
      event.type = WatchEvent::Type::kDeleted;
    } else {
      return InternalError("unknown watch event type " + std::string(type));
    }
    ASSIGN_OR_RETURN(api::Object decoded, DecodeServerObject(object, info_));
    event.resource_version =
        ParseResourceVersion(api::MetaOf(decoded).resource_version);
    event.object = std::make_shared<const api::Object>(std::move(decoded));
    events_.push_back(std::move(event));
    return OkStatus();
  }

  const api::ResourceInfo& info_;
  Parser parser_;
  simdjson::dom::parser json_parser_;
  std::string pending_;  // received text after the last complete line
  std::vector<WatchEvent> events_;
  Status broken_;  // sticky: why the stream ended
  bool reading_ = false;
  std::atomic<bool> stopped_{false};
  // Last, so it goes first: closing it abandons the pending read, whose
  // handler refers to the members above.
  std::unique_ptr<Connection> connection_;
};

// `text` as a URL query value: unreserved characters kept, the rest %XX.
std::string QueryEscape(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

class HttpApiClient : public ApiClient {
 public:
  HttpApiClient(Endpoint endpoint, std::unique_ptr<TlsContext> tls,
                const std::string& token, HttpClientOptions options)
      : endpoint_(std::move(endpoint)),
        tls_(std::move(tls)),
        authorization_(token.empty() ? "" : "Bearer " + token),
        options_(std::move(options)) {}

  StatusOr<ObjectList> List(const api::ResourceInfo& info) override {
    return ListMatching(info, "");
  }

  StatusOr<ObjectList> ListMatching(const api::ResourceInfo& info,
                                    std::string_view field_selector) override {
    std::string target = CollectionPath(info, "");
    if (!field_selector.empty()) {
      target += "?fieldSelector=" + QueryEscape(field_selector);
    }
    ASSIGN_OR_RETURN(std::string body, Call(http::verb::get, target, ""));
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto error = parser.parse(body).get(root)) {
      return InternalError(
          "cannot decode " + std::string(info.kind) +
          "List from server: " + simdjson::error_message(error));
    }
    ObjectList list;
    std::string_view revision;
    ReadIfPresent(root["metadata"]["resourceVersion"], revision);
    list.resource_version = ParseResourceVersion(revision);
    simdjson::dom::array items;
    if (root["items"].get(items) != simdjson::SUCCESS) return list;
    list.items.reserve(items.size());
    for (simdjson::dom::element item : items) {
      ASSIGN_OR_RETURN(api::Object object, DecodeServerObject(item, info));
      list.items.push_back(
          std::make_shared<const api::Object>(std::move(object)));
    }
    return list;
  }

  StatusOr<std::unique_ptr<WatchStream>> Watch(
      const api::ResourceInfo& info, int64_t resource_version) override {
    return WatchMatching(info, resource_version, "");
  }

  StatusOr<std::unique_ptr<WatchStream>> WatchMatching(
      const api::ResourceInfo& info, int64_t resource_version,
      std::string_view field_selector) override {
    std::string target =
        CollectionPath(info, "") +
        "?watch=true&allowWatchBookmarks=true&resourceVersion=" +
        std::to_string(resource_version) +
        "&timeoutSeconds=" + std::to_string(kWatchTimeoutSeconds);
    if (!field_selector.empty()) {
      target += "&fieldSelector=" + QueryEscape(field_selector);
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connect());
    auto stream =
        std::make_unique<HttpWatchStream>(info, std::move(connection));
    RETURN_IF_ERROR(Guarded("starting the watch", [&] {
      return stream->Start(MakeRequest(http::verb::get, target, ""),
                           options_.request_timeout);
    }));
    return std::unique_ptr<WatchStream>(std::move(stream));
  }

  StatusOr<ObjectPtr> Get(const api::ResourceInfo& info,
                          std::string_view namespace_,
                          std::string_view name) override {
    ASSIGN_OR_RETURN(
        std::string body,
        Call(http::verb::get, ItemPath(info, namespace_, name), ""));
    return Shared(DecodeServerText(body, info));
  }

  StatusOr<ObjectPtr> Create(api::Object object) override {
    const api::ResourceInfo& info = ResourceOf(object);
    const api::ObjectMeta& meta = api::MetaOf(object);
    RETURN_IF_ERROR(CheckNamespace(info, meta.namespace_));
    ASSIGN_OR_RETURN(std::string body, EncodeForServer(object, info));
    return CallForObject(http::verb::post,
                         CollectionPath(info, meta.namespace_), std::move(body),
                         info);
  }

  StatusOr<ObjectPtr> Update(api::Object object) override {
    return Replace(object, "");
  }

  StatusOr<ObjectPtr> UpdateStatus(api::Object object) override {
    return Replace(object, "/status");
  }

  Status Delete(const api::ResourceInfo& info, std::string_view namespace_,
                std::string_view name, std::string_view uid) override {
    return Delete(info, namespace_, name,
                  DeleteOptions{.uid = std::string(uid)});
  }
  Status Delete(const api::ResourceInfo& info, std::string_view namespace_,
                std::string_view name, const DeleteOptions& options) override {
    if (options.orphan_dependents) {
      // dralloc's API server garbage-collects dependents regardless.
      return Status(StatusCode::kUnimplemented,
                    fmt::format("{} {}: propagationPolicy Orphan is not "
                                "supported over HTTP",
                                info.plural, name));
    }
    std::string body;
    if (!options.uid.empty() || options.grace_period_seconds) {
      nlohmann::ordered_json json = {{"kind", "DeleteOptions"},
                                     {"apiVersion", "v1"}};
      if (options.grace_period_seconds) {
        json["gracePeriodSeconds"] = *options.grace_period_seconds;
      }
      if (!options.uid.empty()) {
        json["preconditions"] = {{"uid", options.uid}};
      }
      body = json.dump();
    }
    return Call(http::verb::delete_, ItemPath(info, namespace_, name),
                std::move(body))
        .status();
  }

  Status Bind(std::string_view namespace_, std::string_view name,
              std::string_view uid, std::string_view node) override {
    nlohmann::ordered_json metadata = {{"name", name}};
    if (!uid.empty()) metadata["uid"] = uid;
    const nlohmann::ordered_json binding = {
        {"apiVersion", "v1"},
        {"kind", "Binding"},
        {"metadata", std::move(metadata)},
        {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    return Call(http::verb::post,
                ItemPath(PodsResource(), namespace_, name) + "/binding",
                binding.dump())
        .status();
  }

  Status CreateEvent(const api::Event& event) override {
    return Create(api::Object(event)).status();
  }

 private:
  struct Response {
    int code = 0;
    std::string body;
  };

  // "/api/v1[/namespaces/<ns>]/<plural>" or the /apis/<group>/... form.
  std::string CollectionPath(const api::ResourceInfo& info,
                             std::string_view namespace_) const {
    std::string path = endpoint_.base_path;
    path += info.group.empty() ? "/api/" : "/apis/";
    path += info.GroupVersion(info.versions[0]);
    if (info.namespaced && !namespace_.empty()) {
      path += "/namespaces/" + EscapeSegment(namespace_);
    }
    path += '/';
    path += info.plural;
    return path;
  }

  std::string ItemPath(const api::ResourceInfo& info,
                       std::string_view namespace_,
                       std::string_view name) const {
    return CollectionPath(info, namespace_) + "/" + EscapeSegment(name);
  }

  static Status CheckNamespace(const api::ResourceInfo& info,
                               std::string_view namespace_) {
    if (!info.namespaced || !namespace_.empty()) return OkStatus();
    return InvalidArgumentError(std::string(info.kind) +
                                ": metadata.namespace is required");
  }

  StatusOr<ObjectPtr> Replace(const api::Object& object,
                              std::string_view subresource) {
    const api::ResourceInfo& info = ResourceOf(object);
    const api::ObjectMeta& meta = api::MetaOf(object);
    RETURN_IF_ERROR(CheckNamespace(info, meta.namespace_));
    if (meta.name.empty()) {
      return InvalidArgumentError(std::string(info.kind) +
                                  ": metadata.name is required");
    }
    ASSIGN_OR_RETURN(std::string body, EncodeForServer(object, info));
    return CallForObject(
        http::verb::put,
        ItemPath(info, meta.namespace_, meta.name) + std::string(subresource),
        std::move(body), info);
  }

  StatusOr<ObjectPtr> CallForObject(http::verb method,
                                    const std::string& target, std::string body,
                                    const api::ResourceInfo& info) {
    ASSIGN_OR_RETURN(std::string response,
                     Call(method, target, std::move(body)));
    return Shared(DecodeServerText(response, info));
  }

  // The body of a 2xx response, else the error it stands for.
  StatusOr<std::string> Call(http::verb method, const std::string& target,
                             std::string body) {
    ASSIGN_OR_RETURN(Response response,
                     Send(MakeRequest(method, target, std::move(body))));
    if (response.code < 200 || response.code >= 300) {
      return StatusFromResponse(response.code, response.body);
    }
    return std::move(response.body);
  }

  Request MakeRequest(http::verb method, const std::string& target,
                      std::string body) const {
    Request request(method, target, 11);
    request.set(http::field::host, endpoint_.authority);
    request.set(http::field::user_agent, options_.user_agent);
    request.set(http::field::accept, "application/json");
    if (!authorization_.empty()) {
      request.set(http::field::authorization, authorization_);
    }
    if (!body.empty()) {
      request.set(http::field::content_type, "application/json");
      request.body() = std::move(body);
    }
    request.keep_alive(true);
    request.prepare_payload();
    return request;
  }

  // Sends on an idle connection (retrying once on a fresh one if that turns
  // out to be closed) or on a new one.
  StatusOr<Response> Send(const Request& request) {
    return Guarded("HTTP request", [&] { return SendOnce(request); });
  }

  StatusOr<Response> SendOnce(const Request& request) {
    std::unique_ptr<Connection> connection = TakeIdle();
    bool received_nothing = false;
    if (connection) {
      auto response = Attempt(*connection, request, received_nothing);
      if (response.ok() || !received_nothing) {
        return Finish(std::move(connection), std::move(response));
      }
    }
    ASSIGN_OR_RETURN(connection, Connect());
    auto response = Attempt(*connection, request, received_nothing);
    return Finish(std::move(connection), std::move(response));
  }

  StatusOr<std::pair<Response, bool>> Attempt(Connection& connection,
                                              const Request& request,
                                              bool& received_nothing) {
    Parser parser;
    parser.body_limit(kMaxBodyBytes);
    RETURN_IF_ERROR(connection.RoundTrip(
        request, parser, options_.request_timeout, received_nothing));
    auto& message = parser.get();
    const bool keep_alive = message.keep_alive();
    return std::pair{Response{static_cast<int>(message.result_int()),
                              std::move(message.body())},
                     keep_alive};
  }

  // Returns the connection to the pool when it may be reused.
  StatusOr<Response> Finish(std::unique_ptr<Connection> connection,
                            StatusOr<std::pair<Response, bool>> result) {
    if (!result.ok()) return result.status();
    if (result->second) ReturnIdle(std::move(connection));
    return std::move(result->first);
  }

  StatusOr<std::unique_ptr<Connection>> Connect() {
    return Connection::Open(endpoint_, tls_.get(), options_.request_timeout);
  }

  std::unique_ptr<Connection> TakeIdle() EXCLUDES(idle_mutex_) {
    MutexLock lock(idle_mutex_);
    if (idle_.empty()) return nullptr;
    std::unique_ptr<Connection> connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }

  void ReturnIdle(std::unique_ptr<Connection> connection)
      EXCLUDES(idle_mutex_) {
    MutexLock lock(idle_mutex_);
    if (idle_.size() < kMaxIdleConnections) {
      idle_.push_back(std::move(connection));
    }
  }

  const Endpoint endpoint_;
  const std::unique_ptr<TlsContext> tls_;
  const std::string authorization_;
  const HttpClientOptions options_;
  Mutex idle_mutex_;
  // Most recent last.
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(idle_mutex_);
};

}  // namespace

StatusOr<std::unique_ptr<ApiClient>> NewHttpApiClient(
    const Kubeconfig& config, HttpClientOptions options) {
  ASSIGN_OR_RETURN(Endpoint endpoint, ParseServerUrl(config.server));
  std::unique_ptr<TlsContext> tls;
  if (endpoint.tls) {
    ASSIGN_OR_RETURN(tls, MakeTlsContext(config));
  }
  try {
    return std::unique_ptr<ApiClient>(std::make_unique<HttpApiClient>(
        std::move(endpoint), std::move(tls), config.token, std::move(options)));
  } catch (const std::exception& e) {
    return InternalError(std::string("creating the HTTP client: ") + e.what());
  }
}

}  // namespace dralloc::client
