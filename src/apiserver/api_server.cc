#include "apiserver/api_server.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <random>

#include "api/resource_registry.h"
#include "apiserver/discovery.h"
#include "apiserver/impersonation.h"
#include "apiserver/openapi_builder.h"
#include "apiserver/pod_log_proxy.h"
#include "apiserver/protobuf_body.h"
#include "apiserver/request_info.h"
#include "apiserver/resource_quota_admission.h"
#include "apiserver/table_printer.h"
#include "common/log.h"

namespace dralloc::apiserver {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

void SendJson(ResponseWriter& writer, int code, std::string body,
              const std::vector<std::string>& warnings = {}) {
  for (const std::string& warning : warnings) {
    writer.AddHeader("Warning", "299 - " + Json(warning).dump());
  }
  writer.Send(code, "application/json", std::move(body));
}

void SendError(ResponseWriter& writer, const ApiError& error) {
  if (error.details.is_object() &&
      error.details.contains("retryAfterSeconds")) {
    writer.AddHeader("Retry-After", error.details["retryAfterSeconds"].dump());
  }
  SendJson(writer, error.code, error.ToStatus().dump());
}

bool Truthy(const std::string& value) {
  return value == "true" || value == "1" || value == "True";
}

// Replaces the first resourceVersion value (the object's own, in
// metadata) with `revision`: DELETED events carry the deletion revision.
std::string WithResourceVersion(std::string json, int64_t revision) {
  static constexpr std::string_view kField = "\"resourceVersion\":\"";
  const size_t at = json.find(kField);
  if (at == std::string::npos) return json;
  const size_t start = at + kField.size();
  const size_t end = json.find('"', start);
  if (end == std::string::npos) return json;
  json.replace(start, end - start, std::to_string(revision));
  return json;
}

// The Table form of a list or of one object, for kubectl.
std::string AsTable(const api::ResourceInfo& info, const std::string& body) {
  Json parsed = Json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return body;
  std::vector<std::string> objects;
  Json metadata = Json::object();
  if (parsed.contains("items")) {
    for (const Json& item : parsed["items"]) objects.push_back(item.dump());
    metadata = parsed.value("metadata", Json::object());
  } else {
    objects.push_back(body);
    metadata["resourceVersion"] =
        parsed["metadata"].value("resourceVersion", "");
  }
  return MakeTable(info, objects, metadata).dump();
}

// The body of a create, update or delete as JSON text. A protobuf body
// (client-go typed clients) is decoded into the JSON a client would have
// sent; JSON and YAML bodies are returned as they are, in `storage`'s
// absence without a copy.
ApiOr<std::string_view> JsonBody(const HttpRequest& request,
                                 std::string_view expected_kind,
                                 std::string& storage) {
  if (!IsProtobufContentType(request.content_type)) {
    return std::string_view(request.body);
  }
  if (expected_kind == "DeleteOptions" && request.body.empty()) {
    return std::string_view();
  }
  auto decoded = DecodeProtobufBody(request.body, expected_kind);
  if (!decoded.ok()) {
    if (decoded.status().code() == StatusCode::kUnimplemented) {
      return UnsupportedMediaType(decoded.status().message());
    }
    return BadRequest(decoded.status().message());
  }
  // Invalid UTF-8 in protobuf strings becomes U+FFFD, as Go's JSON
  // encoder does.
  storage = decoded->dump(-1, ' ', false, Json::error_handler_t::replace);
  return std::string_view(storage);
}

// The DeleteOptions of a DELETE: its body, or when it has none, the
// query's gracePeriodSeconds (as upstream decodes DeleteOptions from the
// query only without a body).
ApiOr<std::string_view> DeleteOptionsFromQuery(const HttpRequest& request,
                                               std::string_view body,
                                               std::string& storage) {
  if (body.find_first_not_of(" \t\r\n") != std::string_view::npos ||
      !request.HasQuery("gracePeriodSeconds")) {
    return body;
  }
  const std::string text = request.Query("gracePeriodSeconds");
  int64_t seconds = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || error != std::errc() ||
      end != text.data() + text.size()) {
    return BadRequest(fmt::format(
        "gracePeriodSeconds: Invalid value: \"{}\": must be an integer", text));
  }
  storage = fmt::format(R"({{"gracePeriodSeconds":{}}})", seconds);
  return std::string_view(storage);
}

// The write options every resource request carries (parsed, and their
// errors reported, whatever the verb).
ApiOr<WriteOptions> ParseWriteOptions(const HttpRequest& request) {
  WriteOptions write;
  write.dry_run = request.Query("dryRun") == "All";
  if (request.HasQuery("dryRun") && !write.dry_run) {
    return BadRequest(fmt::format(
        "dryRun: Unsupported value: \"{}\": supported values: \"All\"",
        request.Query("dryRun")));
  }
  write.field_manager = request.Query("fieldManager");
  write.force = Truthy(request.Query("force"));
  const std::string validation = request.Query("fieldValidation");
  if (validation == "Strict") {
    write.field_validation = FieldValidation::kStrict;
  } else if (validation == "Ignore") {
    write.field_validation = FieldValidation::kIgnore;
  } else if (validation.empty() || validation == "Warn") {
    write.field_validation = FieldValidation::kWarn;
  } else {
    return BadRequest(fmt::format(
        "fieldValidation: Unsupported value: \"{}\": supported values: "
        "\"Ignore\", \"Strict\", \"Warn\"",
        validation));
  }
  if (write.field_manager.empty() && request.method != "GET") {
    // Kubernetes derives a manager from the user agent.
    write.field_manager =
        request.user_agent.substr(0, request.user_agent.find('/'));
  }
  return write;
}

void SendWriteResult(ResponseWriter& writer, ApiOr<WriteResult> result) {
  if (!result.ok()) return SendError(writer, result.error());
  SendJson(writer, result->code, std::move(result->body), result->warnings);
}

// The ERROR event (a 410 Status) that ends a watch whose position fell out
// of the store's event window.
std::string GoneEvent(const Status& status) {
  ApiError gone = Gone(status.message());
  return Json{{"type", "ERROR"}, {"object", gone.ToStatus()}}.dump() + "\n";
}

}  // namespace

// What a watch request asks for.
struct ApiServer::WatchRequest {
  bool send_initial = false;  // sendInitialEvents=true
  bool bookmarks = false;     // allowWatchBookmarks=true
  // Start with ADDED events for a snapshot of the current state.
  bool synthetic = false;
  // The revision the watch starts after (the snapshot's, if synthetic).
  int64_t from = 0;
  // `from` came from the request: the store must reach it first.
  bool wait_for_from = false;
  int timeout_seconds = 0;
};

// The lines of a watch stream, one JSON event each.
class ApiServer::WatchLines {
 public:
  WatchLines(const api::ResourceInfo& info, std::string group_version,
             bool table)
      : info_(info), group_version_(std::move(group_version)), table_(table) {}

  // An event for `object` (JSON, in the requested version), as a Table
  // when the client asked for one.
  std::string Event(std::string_view type, std::string object) const {
    return Line(type, table_ ? AsTable(info_, object) : object);
  }
  std::string Bookmark(int64_t revision, bool initial_end) const {
    Json metadata = {{"resourceVersion", std::to_string(revision)}};
    if (initial_end) {
      metadata["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    }
    return Line("BOOKMARK", Json{{"kind", info_.kind},
                                 {"apiVersion", group_version_},
                                 {"metadata", metadata}}
                                .dump());
  }

 private:
  static std::string Line(std::string_view type, const std::string& object) {
    std::string out;
    out.reserve(object.size() + 32);
    out += R"({"type":")";
    out += type;
    out += R"(","object":)";
    out += object;
    out += "}\n";
    return out;
  }

  const api::ResourceInfo& info_;
  const std::string group_version_;
  const bool table_;
};

ApiOr<ApiServer::WatchRequest> ApiServer::ParseWatchRequest(
    const HttpRequest& request, const api::ResourceInfo& info) const {
  const int max_watch_seconds = options_.max_watch_seconds;
  WatchRequest watch;
  const std::string rv_text = request.Query("resourceVersion");
  const bool send_initial_param = request.HasQuery("sendInitialEvents");
  watch.send_initial = Truthy(request.Query("sendInitialEvents"));
  watch.bookmarks = Truthy(request.Query("allowWatchBookmarks"));
  if (send_initial_param && watch.send_initial &&
      request.Query("resourceVersionMatch") != "NotOlderThan") {
    return Invalid(info, "",
                   {api::Forbidden(api::FieldPath("resourceVersionMatch"),
                                   "sendInitialEvents requires setting "
                                   "resourceVersionMatch to NotOlderThan")});
  }
  watch.synthetic = watch.send_initial || (!send_initial_param &&
                                           (rv_text.empty() || rv_text == "0"));
  if (!rv_text.empty() && !watch.send_initial) {
    char* end = nullptr;
    watch.from = std::strtoll(rv_text.c_str(), &end, 10);
    if (*end != '\0' || watch.from < 0) {
      return BadRequest(
          fmt::format("invalid resource version \"{}\"", rv_text));
    }
    watch.wait_for_from = true;
  }
  watch.timeout_seconds = max_watch_seconds;
  if (const std::string t = request.Query("timeoutSeconds"); !t.empty()) {
    watch.timeout_seconds =
        std::clamp(std::atoi(t.c_str()), 0, max_watch_seconds);
  }
  return watch;
}

// What a request path names.
struct ApiServer::Route {
  RequestScope scope;
  bool all_namespaces = false;
  const auth::UserInfo* user = nullptr;  // who writes (admission)
};

ApiServer::ApiServer(ApiServerOptions options, store::Store& store)
    : options_(std::move(options)),
      store_(store, metrics_),
      storage_(store_),
      garbage_collector_(storage_),
      namespace_finalizer_(storage_),
      access_(options_.authenticator, options_.authorizer),
      reviews_(access_) {
  storage_.set_too_large_resource_version_wait(
      options_.too_large_resource_version_wait);
  // ResourceQuota admission is always on, as upstream's is by default.
  storage_.AddAdmissionPlugin(
      std::make_unique<ResourceQuotaAdmission>(storage_));
}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::EnsureNamespace(const std::string& name) {
  if (store_.Get("/namespaces/" + name)) return;
  RequestScope scope{api::FindResourceByKind("Namespace"), "v1", "", name, ""};
  auto created = storage_.Create(
      scope,
      fmt::format(
          R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
          name),
      {});
  // Another server sharing the store may have created it meanwhile.
  if (!created.ok() && created.error().code != 409) {
    log::Warn("apiserver", "creating namespace {}: {}", name,
              created.error().message);
  }
}

Status ApiServer::Start() {
  if (!options_.audit_log_path.empty() && audit_ == nullptr) {
    auto audit = AuditLog::Open(options_.audit_log_path);
    if (!audit.ok()) return audit.status();
    audit_ = std::move(*audit);
  }
  for (const char* ns :
       {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    EnsureNamespace(ns);
  }
  garbage_collector_.Start();
  namespace_finalizer_.Start();
  HttpServerOptions http;
  http.host = options_.host;
  http.port = options_.port;
  http.tls_cert_file = options_.tls_cert_file;
  http.tls_private_key_file = options_.tls_private_key_file;
  http.client_ca_file = options_.client_ca_file;
  http_ = std::make_unique<HttpServer>(
      std::move(http),
      [this](const HttpRequest& request, ResponseWriter& writer) {
        Handle(request, writer);
      });
  return http_->Start();
}

void ApiServer::Stop() {
  if (http_) {
    http_->Stop([this] { store_.Shutdown(); });
    http_.reset();
  }
  garbage_collector_.Stop();
  namespace_finalizer_.Stop();
}

void ApiServer::Handle(const HttpRequest& request, ResponseWriter& writer) {
  const auto start = Clock::now();
  std::string verb = request.method;
  std::string resource = "";
  int code = 200;
  // Wraps the writer to learn the status code for metrics.
  struct CodeRecorder : ResponseWriter {
    ResponseWriter& inner;
    int& code;
    CodeRecorder(ResponseWriter& w, int& c) : inner(w), code(c) {}
    void AddHeader(std::string n, std::string v) override {
      inner.AddHeader(std::move(n), std::move(v));
    }
    void Send(int status, std::string type, std::string body) override {
      code = status;
      inner.Send(status, std::move(type), std::move(body));
    }
    bool StartStream(std::string type) override {
      return inner.StartStream(std::move(type));
    }
    bool WriteChunk(std::string_view data) override {
      return inner.WriteChunk(data);
    }
    bool ClientGone() override { return inner.ClientGone(); }
  } recorder(writer, code);

  const auto received = std::chrono::system_clock::now();
  ApiOr<auth::UserInfo> requester = access_.Authenticate(request);
  ApiOr<auth::UserInfo> user =
      requester.ok() ? ActingUser(request, *requester, access_) : requester;
  const bool impersonated =
      requester.ok() && user.ok() && !request.impersonation_headers.empty();
  if (!user.ok()) {
    SendError(recorder, user.error());
    if (audit_) Audit(request, nullptr, code, received, nullptr);
  } else {
    const auth::RequestAttributes attributes =
        RequestAttributesOf(request, std::move(*user));
    const auth::AuthorizationResult decision = access_.Decide(attributes);
    if (decision.decision == auth::Decision::kAllow) {
      Dispatch(request, attributes.user, recorder, verb, resource);
    } else {
      SendError(recorder,
                AccessControl::ForbiddenFor(attributes, decision.reason));
    }
    if (audit_) {
      Audit(request, &attributes, code, received, &decision,
            impersonated ? &*requester : nullptr);
    }
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (verb != "WATCH") {
    metrics_.ObserveRequest(verb, resource, code, seconds);
  }
  log::Debug("apiserver", "{} {} {} {:.3f}ms", request.method, request.path,
             code, seconds * 1000);
}

void ApiServer::Dispatch(const HttpRequest& request, const auth::UserInfo& user,
                         ResponseWriter& recorder, std::string& verb,
                         std::string& resource) {
  if (AccessReviews::Handles(request.path)) {
    // A SelfSubjectReview's body says nothing the answer depends on.
    const std::string_view kind = AccessReviews::KindOf(request.path);
    std::string storage;
    auto body = kind == "SelfSubjectReview"
                    ? ApiOr<std::string_view>(std::string_view(request.body))
                    : JsonBody(request, kind, storage);
    if (!body.ok()) return SendError(recorder, body.error());
    auto created = reviews_.Create(request.method, request.path, *body, user);
    if (!created.ok()) return SendError(recorder, created.error());
    return SendJson(recorder, 201, std::move(*created));
  }
  if (!ServeNonResource(request, recorder)) {
    // /api/v1/... or /apis/<group>/<version>/...
    std::vector<std::string_view> parts = SplitPath(request.path);
    Route route;
    route.user = &user;
    size_t i = 0;
    std::string_view group, version;
    if (parts.size() >= 3 && parts[0] == "api") {
      version = parts[1];
      i = 2;
    } else if (parts.size() >= 4 && parts[0] == "apis") {
      group = parts[1];
      version = parts[2];
      i = 3;
    }
    const api::ResourceInfo* info = nullptr;
    if (i != 0) {
      std::vector<std::string_view> rest(parts.begin() + i, parts.end());
      if (rest.size() >= 3 && rest[0] == "namespaces") {
        const api::ResourceInfo* nested =
            api::FindResource(group, version, rest[2]);
        if (nested != nullptr && nested->namespaced) {
          info = nested;
          route.scope.namespace_ = std::string(rest[1]);
          rest.erase(rest.begin(), rest.begin() + 3);
        }
      }
      if (info == nullptr) {
        info = api::FindResource(group, version, rest[0]);
        rest.erase(rest.begin());
        route.all_namespaces = info != nullptr && info->namespaced;
      }
      if (info != nullptr && rest.size() <= 2) {
        route.scope.info = info;
        route.scope.version = std::string(version);
        if (!rest.empty()) route.scope.name = std::string(rest[0]);
        if (rest.size() == 2) route.scope.subresource = std::string(rest[1]);
      }
    }
    if (route.scope.info == nullptr ||
        (!route.scope.subresource.empty() &&
         !(route.scope.subresource == "status" && info->has_status) &&
         !(route.scope.subresource == "binding" && info->kind == "Pod") &&
         !(route.scope.subresource == "log" && info->kind == "Pod") &&
         !(route.scope.subresource == "finalize" &&
           info->kind == "Namespace") &&
         !(route.scope.subresource == "token" &&
           info->kind == "ServiceAccount" &&
           options_.token_requests != nullptr))) {
      SendError(recorder, NotFoundPath(request.path));
    } else if (route.all_namespaces && !route.scope.name.empty()) {
      SendError(recorder, NotFoundPath(request.path));
    } else {
      resource = std::string(route.scope.info->plural);
      ServeResource(request, route, recorder, verb);
    }
  }
}

void ApiServer::ServeTokenRequest(const HttpRequest& request,
                                  const RequestScope& scope,
                                  ResponseWriter& writer, std::string& verb) {
  if (request.method != "POST") {
    return SendError(
        writer, MethodNotAllowed(fmt::format("method {} is not allowed on {}",
                                             request.method, request.path)));
  }
  verb = "CREATE";
  std::string storage;
  auto body = JsonBody(request, "TokenRequest", storage);
  if (!body.ok()) return SendError(writer, body.error());
  serviceaccount::TokenRequestResponse response =
      options_.token_requests->Handle(scope.namespace_, scope.name, *body);
  SendJson(writer, response.code, response.body.dump());
}

void ApiServer::Audit(const HttpRequest& request,
                      const auth::RequestAttributes* attributes, int code,
                      std::chrono::system_clock::time_point received,
                      const auth::AuthorizationResult* decision,
                      const auth::UserInfo* impersonator) {
  AuditRecord record;
  record.impersonator = impersonator;
  record.request_uri = request.path;
  if (!request.query.empty()) {
    record.request_uri += '?';
    bool first = true;
    for (const auto& [key, value] : request.query) {
      if (!first) record.request_uri += '&';
      first = false;
      record.request_uri += key + "=" + value;
    }
  }
  record.user_agent = request.user_agent;
  record.source_ip =
      request.remote_address.substr(0, request.remote_address.rfind(':'));
  record.attributes = attributes;
  record.code = code;
  record.received = received;
  record.completed = std::chrono::system_clock::now();
  if (decision != nullptr) {
    record.decision =
        decision->decision == auth::Decision::kAllow ? "allow" : "forbid";
    record.reason = decision->reason;
  }
  audit_->Write(record);
}

bool ApiServer::ServeNonResource(const HttpRequest& request,
                                 ResponseWriter& writer) {
  const std::string& path = request.path;
  if (request.method != "GET" &&
      (path == "/version" || path == "/api" || path == "/apis" ||
       path.starts_with("/openapi") || path == "/healthz" || path == "/livez" ||
       path == "/readyz" || path == "/metrics")) {
    SendError(writer,
              MethodNotAllowed(fmt::format(
                  "the server does not allow this method on {}", path)));
    return true;
  }
  for (const auto& [prefix, handler] : endpoints_) {
    if (path.starts_with(prefix)) {
      handler(request, writer);
      return true;
    }
  }
  if (path == "/version" || path == "/version/") {
    SendJson(writer, 200, VersionDocument(options_.version_minor).dump());
    return true;
  }
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    writer.Send(200, "text/plain; charset=utf-8", "ok");
    return true;
  }
  if (path == "/metrics") {
    std::string text = metrics_.Render();
    for (const auto& source : metrics_sources_) text += source();
    writer.Send(200, "text/plain; version=0.0.4", text);
    return true;
  }
  if (path == "/api" || path == "/apis") {
    const bool core = path == "/api";
    if (WantsAggregatedDiscovery(request.accept)) {
      writer.Send(200, std::string(kAggregatedDiscoveryContentType),
                  AggregatedDiscovery(core).dump());
    } else {
      SendJson(writer, 200,
               (core ? LegacyApiVersions() : LegacyApiGroupList()).dump());
    }
    return true;
  }
  std::vector<std::string_view> parts = SplitPath(path);
  if (request.method == "GET" && parts.size() == 2 && parts[0] == "api") {
    if (auto list = ApiResourceList("", parts[1])) {
      SendJson(writer, 200, list->dump());
    } else {
      SendError(writer, NotFoundPath(path));
    }
    return true;
  }
  if (request.method == "GET" && parts.size() == 2 && parts[0] == "apis") {
    if (auto group = ApiGroup(parts[1])) {
      SendJson(writer, 200, group->dump());
    } else {
      SendError(writer, NotFoundPath(path));
    }
    return true;
  }
  if (request.method == "GET" && parts.size() == 3 && parts[0] == "apis") {
    if (auto list = ApiResourceList(parts[1], parts[2])) {
      SendJson(writer, 200, list->dump());
    } else {
      SendError(writer, NotFoundPath(path));
    }
    return true;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    SendJson(writer, 200, OpenApiRootIndex().dump());
    return true;
  }
  if (path.starts_with("/openapi/v3/")) {
    const std::string* text = OpenApiDocumentText(path.substr(12));
    if (text == nullptr) {
      SendError(writer, NotFoundPath(path));
    } else {
      writer.AddHeader("Etag",
                       "\"" + OpenApiDocumentHash(path.substr(12)) + "\"");
      SendJson(writer, 200, *text);
    }
    return true;
  }
  if (path.starts_with("/openapi/")) {
    SendError(writer, NotFoundPath(path));
    return true;
  }
  return false;
}

void ApiServer::ServeResource(const HttpRequest& request, const Route& route,
                              ResponseWriter& writer, std::string& verb) {
  ApiOr<WriteOptions> write = ParseWriteOptions(request);
  if (!write.ok()) return SendError(writer, write.error());
  write->user = route.user;
  if (route.scope.name.empty()) {
    return ServeCollection(request, route, *write, writer, verb);
  }
  ServeObject(request, route.scope, *write, writer, verb);
}

void ApiServer::ServeCollection(const HttpRequest& request, const Route& route,
                                const WriteOptions& write,
                                ResponseWriter& writer, std::string& verb) {
  const RequestScope& scope = route.scope;
  const std::string& method = request.method;
  ListOptions list;
  if (method == "GET" || method == "DELETE") {
    auto labels = LabelSelector::Parse(request.Query("labelSelector"));
    if (!labels.ok()) {
      return SendError(writer, BadRequest(labels.status().message()));
    }
    auto fields = FieldSelector::Parse(request.Query("fieldSelector"),
                                       scope.info->field_labels);
    if (!fields.ok()) {
      return SendError(writer, BadRequest(fields.status().message()));
    }
    list.labels = std::move(*labels);
    list.fields = std::move(*fields);
  }
  if (method == "GET") {
    if (Truthy(request.Query("watch"))) {
      verb = "WATCH";
      return ServeWatch(request, scope, list, writer);
    }
    verb = "LIST";
    return ServeList(request, scope, std::move(list), writer);
  }
  if (method == "POST") {
    if (route.all_namespaces) {
      return SendError(writer, MethodNotAllowed("create needs a namespace"));
    }
    verb = "CREATE";
    std::string decoded;
    auto body = JsonBody(request, scope.info->kind, decoded);
    if (!body.ok()) return SendError(writer, body.error());
    return SendWriteResult(writer, storage_.Create(scope, *body, write));
  }
  if (method == "DELETE") {
    verb = "DELETECOLLECTION";
    return DeleteCollection(scope, list, write, writer);
  }
  SendError(writer, MethodNotAllowed(fmt::format(
                        "method {} is not allowed on a collection", method)));
}

void ApiServer::ServeList(const HttpRequest& request, const RequestScope& scope,
                          ListOptions list, ResponseWriter& writer) {
  const std::string limit = request.Query("limit");
  if (!limit.empty()) {
    char* end = nullptr;
    const long long value = std::strtoll(limit.c_str(), &end, 10);
    if (*end != '\0' || value < 0) {
      return SendError(writer,
                       BadRequest("limit must be a non-negative integer"));
    }
    list.limit = static_cast<size_t>(value);
  }
  list.continue_token = request.Query("continue");
  list.resource_version = request.Query("resourceVersion");
  list.resource_version_match = request.Query("resourceVersionMatch");
  list.send_initial_events = request.HasQuery("sendInitialEvents");
  auto body = storage_.List(scope, list);
  if (!body.ok()) return SendError(writer, body.error());
  if (WantsTable(request.accept)) *body = AsTable(*scope.info, *body);
  SendJson(writer, 200, std::move(*body));
}

void ApiServer::DeleteCollection(const RequestScope& scope,
                                 const ListOptions& list,
                                 const WriteOptions& write,
                                 ResponseWriter& writer) {
  store::ListResult all = store_.List(
      ResourceStorage::Prefix(*scope.info, scope.namespace_), "", 0);
  std::string items;
  for (const store::KeyValue& kv : all.items) {
    if (!ResourceStorage::Selected(scope, *kv.value, list.labels,
                                   list.fields)) {
      continue;
    }
    if (!write.dry_run) {
      // Each item is deleted as a DELETE of it would be, admission
      // included (upstream's deletecollection does the same).
      auto deleted = storage_.DeleteKeyAs(kv.key, write);
      if (!deleted.ok() && deleted.error().code != 404) {
        return SendError(writer, deleted.error());
      }
    }
    auto item = storage_.ToVersion(scope, *kv.value);
    if (!item.ok()) continue;
    if (!items.empty()) items += ',';
    items += *item;
  }
  SendJson(
      writer, 200,
      fmt::format(
          R"({{"kind":"{}List","apiVersion":"{}","metadata":{{}},"items":[{}]}})",
          scope.info->kind, scope.info->GroupVersion(scope.version), items));
}

void ApiServer::ServeObject(const HttpRequest& request,
                            const RequestScope& scope,
                            const WriteOptions& write, ResponseWriter& writer,
                            std::string& verb) {
  const std::string& method = request.method;
  if (scope.subresource == "token") {
    return ServeTokenRequest(request, scope, writer, verb);
  }
  if (scope.subresource == "binding") {
    if (method != "POST") {
      return SendError(
          writer, MethodNotAllowed(fmt::format("method {} is not allowed on {}",
                                               method, request.path)));
    }
    verb = "CREATE";
    auto bound = storage_.Bind(scope, request.body, write);
    if (!bound.ok()) return SendError(writer, bound.error());
    return SendJson(
        writer, 201,
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})");
  }
  if (scope.subresource == "log") {
    verb = "GET";
    return ServePodLog(storage_, scope, request, writer);
  }
  if (scope.subresource == "finalize" && method != "PUT") {
    return SendError(
        writer, MethodNotAllowed(fmt::format("method {} is not allowed on {}",
                                             method, request.path)));
  }
  if (method == "GET") {
    verb = "GET";
    // Only a revision number counts; "0" and unset read the latest state.
    int64_t min_revision = 0;
    const std::string rv = request.Query("resourceVersion");
    std::from_chars(rv.data(), rv.data() + rv.size(), min_revision);
    // Unset: the most recent state, consistent across servers sharing the
    // store.
    if (rv.empty()) {
      if (Status synced = store_.Sync(); !synced.ok()) {
        return SendError(writer, StorageUnavailable(synced));
      }
    }
    auto body = storage_.Get(scope, std::max<int64_t>(min_revision, 0));
    if (!body.ok()) return SendError(writer, body.error());
    if (WantsTable(request.accept)) *body = AsTable(*scope.info, *body);
    return SendJson(writer, 200, std::move(*body));
  }
  if (method == "PUT") {
    verb = "UPDATE";
    std::string decoded;
    auto body = JsonBody(request, scope.info->kind, decoded);
    if (!body.ok()) return SendError(writer, body.error());
    return SendWriteResult(writer, storage_.Update(scope, *body, write));
  }
  if (method == "PATCH") {
    verb = "PATCH";
    return SendWriteResult(writer, storage_.Patch(scope, request.content_type,
                                                  request.body, write));
  }
  if (method == "DELETE" && scope.subresource.empty()) {
    verb = "DELETE";
    std::string decoded;
    auto body = JsonBody(request, "DeleteOptions", decoded);
    if (!body.ok()) return SendError(writer, body.error());
    auto options = DeleteOptionsFromQuery(request, *body, decoded);
    if (!options.ok()) return SendError(writer, options.error());
    return SendWriteResult(writer, storage_.Delete(scope, *options, write));
  }
  SendError(writer,
            MethodNotAllowed(fmt::format("method {} is not allowed on {}",
                                         method, request.path)));
}

void ApiServer::ServeWatch(const HttpRequest& request,
                           const RequestScope& scope, const ListOptions& list,
                           ResponseWriter& writer) {
  ApiOr<WatchRequest> parsed = ParseWatchRequest(request, *scope.info);
  if (!parsed.ok()) return SendError(writer, parsed.error());
  WatchRequest& watch = *parsed;
  if (watch.wait_for_from) {
    if (auto error = storage_.WaitForRevision(watch.from)) {
      return SendError(writer, *error);
    }
  }
  const std::string prefix =
      ResourceStorage::Prefix(*scope.info, scope.namespace_);
  std::vector<store::KeyValue> initial;
  if (watch.synthetic) {
    store::ListResult snapshot = store_.List(prefix, "", 0);
    watch.from = snapshot.revision;
    initial = std::move(snapshot.items);
  }
  auto watcher = store_.Watch(prefix, watch.from);
  if (!watcher.ok()) {
    if (watcher.status().code() == StatusCode::kOutOfRange) {
      // As upstream: 200, then one ERROR event with a 410 Status.
      writer.StartStream("application/json");
      writer.WriteChunk(GoneEvent(watcher.status()));
      return;
    }
    return SendError(writer, StorageError(*scope.info, "", watcher.status()));
  }
  const auto deadline =
      Clock::now() + std::chrono::seconds(watch.timeout_seconds);
  if (!writer.StartStream("application/json")) return;
  metrics_.WatchOpened();
  const WatchLines lines(*scope.info, scope.info->GroupVersion(scope.version),
                         WantsTable(request.accept));
  if (WriteInitialEvents(scope, list, watch, initial, lines, writer)) {
    StreamWatchEvents(scope, list, watch, **watcher, lines, deadline, writer);
  }
  metrics_.WatchClosed();
}

bool ApiServer::WriteInitialEvents(const RequestScope& scope,
                                   const ListOptions& list,
                                   const WatchRequest& watch,
                                   const std::vector<store::KeyValue>& initial,
                                   const WatchLines& lines,
                                   ResponseWriter& writer) {
  bool open = true;
  std::string batch;
  for (const store::KeyValue& kv : initial) {
    if (!ResourceStorage::Selected(scope, *kv.value, list.labels,
                                   list.fields)) {
      continue;
    }
    auto object = storage_.ToVersion(scope, *kv.value);
    if (object.ok()) batch += lines.Event("ADDED", std::move(*object));
    if (batch.size() > (1u << 20)) {
      open = writer.WriteChunk(batch);
      batch.clear();
      if (!open) break;
    }
  }
  if (open && watch.send_initial && watch.bookmarks) {
    batch += lines.Bookmark(watch.from, true);
  }
  if (open && !batch.empty()) open = writer.WriteChunk(batch);
  return open;
}

void ApiServer::StreamWatchEvents(
    const RequestScope& scope, const ListOptions& list,
    const WatchRequest& watch, store::Watcher& watcher, const WatchLines& lines,
    Clock::time_point deadline, ResponseWriter& writer) {
  const bool filtered = !list.labels.empty() || !list.fields.empty();
  const auto selected = [&](const std::string& object) {
    return ResourceStorage::Selected(scope, object, list.labels, list.fields);
  };
  auto last_bookmark = Clock::now();
  bool open = true;
  while (open && Clock::now() < deadline) {
    auto events = watcher.Next(std::chrono::milliseconds(1000));
    if (!events.ok()) {
      if (events.status().code() == StatusCode::kOutOfRange) {
        writer.WriteChunk(GoneEvent(events.status()));
      }
      break;
    }
    std::string batch;
    for (const store::WatchEvent& event : *events) {
      // With selectors, an object that starts matching is ADDED and one
      // that stops matching is DELETED, as Kubernetes does.
      std::string_view type;
      if (event.type == store::WatchEvent::Type::kDelete) {
        if (filtered && !selected(*event.kv.value)) continue;
        type = "DELETED";
      } else if (!filtered) {
        type = event.created() ? "ADDED" : "MODIFIED";
      } else {
        const bool now = selected(*event.kv.value);
        const bool before = event.previous && selected(*event.previous);
        if (!now && !before) continue;
        type = now ? (before ? "MODIFIED" : "ADDED") : "DELETED";
      }
      auto object = storage_.ToVersion(scope, *event.kv.value);
      if (!object.ok()) continue;
      std::string text = std::move(*object);
      if (event.type == store::WatchEvent::Type::kDelete) {
        text = WithResourceVersion(std::move(text), event.kv.mod_revision);
      }
      batch += lines.Event(type, std::move(text));
    }
    if (watch.bookmarks &&
        Clock::now() - last_bookmark > std::chrono::seconds(30)) {
      batch += lines.Bookmark(watcher.revision(), false);
      last_bookmark = Clock::now();
    }
    if (!batch.empty()) {
      open = writer.WriteChunk(batch);
    } else if (writer.ClientGone()) {
      open = false;
    }
  }
}

}  // namespace dralloc::apiserver
