#include "apiserver/audit_log.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/clock.h"

namespace dralloc::apiserver {
namespace {

using Json = nlohmann::ordered_json;

// MicroTime: RFC 3339 in UTC with six fractional digits.
std::string MicroTime(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::time_point_cast<std::chrono::microseconds>(t);
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(t);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06d}Z", seconds,
                     (micros - seconds).count());
}

Json UserJson(const auth::UserInfo& user) {
  Json json = Json::object();
  json["username"] = user.name;
  if (!user.uid.empty()) json["uid"] = user.uid;
  if (!user.groups.empty()) json["groups"] = user.groups;
  if (!user.extra.empty()) json["extra"] = user.extra;
  return json;
}

Json ObjectRef(const auth::RequestAttributes& a) {
  Json ref = Json::object();
  if (!a.resource.empty()) ref["resource"] = a.resource;
  if (!a.namespace_.empty()) ref["namespace"] = a.namespace_;
  if (!a.name.empty()) ref["name"] = a.name;
  if (!a.api_group.empty()) ref["apiGroup"] = a.api_group;
  if (!a.api_version.empty()) ref["apiVersion"] = a.api_version;
  if (!a.subresource.empty()) ref["subresource"] = a.subresource;
  return ref;
}

}  // namespace

StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  if (path == "-") {
    return std::unique_ptr<AuditLog>(new AuditLog(stdout, false));
  }
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return InvalidArgumentError(
        fmt::format("--audit-log-path {}: cannot open for appending: {}", path,
                    std::strerror(errno)));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(file, true));
}

AuditLog::~AuditLog() {
  MutexLock lock(mutex_);
  if (owned_) std::fclose(file_);
}

std::string AuditLog::Format(const AuditRecord& record) {
  Json event = Json::object();
  event["kind"] = "Event";
  event["apiVersion"] = "audit.k8s.io/v1";
  event["level"] = "Metadata";
  event["auditID"] = NewUid();
  event["stage"] = "ResponseComplete";
  event["requestURI"] = record.request_uri;
  const auth::RequestAttributes* a = record.attributes;
  event["verb"] = a != nullptr ? a->verb : "";
  if (a != nullptr && record.impersonator != nullptr) {
    event["user"] = UserJson(*record.impersonator);
    event["impersonatedUser"] = UserJson(a->user);
  } else {
    event["user"] = a != nullptr ? UserJson(a->user) : Json::object();
  }
  event["sourceIPs"] = Json::array({record.source_ip});
  if (!record.user_agent.empty()) event["userAgent"] = record.user_agent;
  if (a != nullptr && a->resource_request) event["objectRef"] = ObjectRef(*a);
  event["responseStatus"] = {{"metadata", Json::object()},
                             {"code", record.code}};
  event["requestReceivedTimestamp"] = MicroTime(record.received);
  event["stageTimestamp"] = MicroTime(record.completed);
  Json annotations = Json::object();
  if (!record.decision.empty()) {
    annotations["authorization.k8s.io/decision"] = record.decision;
    annotations["authorization.k8s.io/reason"] = record.reason;
  }
  const double ms = std::chrono::duration<double, std::milli>(record.completed -
                                                              record.received)
                        .count();
  annotations["apiserver.latency.k8s.io/total"] = fmt::format("{:.3f}ms", ms);
  event["annotations"] = std::move(annotations);
  return event.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void AuditLog::Write(const AuditRecord& record) {
  std::string line = Format(record);
  line += '\n';
  MutexLock lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace dralloc::apiserver
