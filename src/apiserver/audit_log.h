// AuditLog: one JSON line per request in upstream's audit event shape
// (audit.k8s.io/v1 Event) at the Metadata level, stage ResponseComplete:
// who, what verb on which object, the response code, when it arrived and
// when it completed.
#ifndef DRALLOC_APISERVER_AUDIT_LOG_H_
#define DRALLOC_APISERVER_AUDIT_LOG_H_

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "auth/request_attributes.h"
#include "common/mutex.h"
#include "common/status.h"

namespace dralloc::apiserver {

struct AuditRecord {
  std::string request_uri;  // path and query as sent
  std::string user_agent;
  std::string source_ip;
  // The request's attributes; the user is empty when authentication failed.
  const auth::RequestAttributes* attributes = nullptr;
  // Who sent the request when it impersonated attributes->user (the event's
  // user; attributes->user is then its impersonatedUser).
  const auth::UserInfo* impersonator = nullptr;
  int code = 0;
  std::chrono::system_clock::time_point received;
  std::chrono::system_clock::time_point completed;
  // "allow" or "forbid", with the authorizer's reason; empty when the
  // request was not authorized (it failed authentication).
  std::string decision;
  std::string reason;
};

class AuditLog {
 public:
  // Appends to `path` ("-": standard output). Error: the file cannot be
  // opened for appending.
  static StatusOr<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Writes one line and flushes it. Thread-safe.
  void Write(const AuditRecord& record);
  // The JSON line of `record` (without the newline).
  static std::string Format(const AuditRecord& record);

 private:
  AuditLog(std::FILE* file, bool owned) : file_(file), owned_(owned) {}
  Mutex mutex_;
  std::FILE* file_ GUARDED_BY(mutex_);
  bool owned_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_AUDIT_LOG_H_
