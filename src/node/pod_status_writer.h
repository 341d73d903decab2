// PodStatusWriter: writes pod statuses in the background, as the kubelet's
// status manager does: per pod only the latest wanted status is kept, so
// under load statuses that were overtaken before they were written (e.g.
// ContainerCreating, when the pod is Running before a writer got to it)
// are never sent, and a pod worker does not wait for the API server.
//
// A status is a function evaluated at write time against the pod as the
// API server has it (the newer of the copy given and the one this writer
// last stored; re-read on a conflict, up to 3 times), so it always
// reflects the runtime's state when it is written. One pod's statuses are
// written in order by one writer at a time. Thread-safe.
#ifndef DRALLOC_NODE_POD_STATUS_WRITER_H_
#define DRALLOC_NODE_POD_STATUS_WRITER_H_

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "api/types/core.h"
#include "client/api_client.h"
#include "client/work_queue.h"
#include "common/mutex.h"
#include "common/status.h"

namespace dralloc::node {

class PodStatusWriter {
 public:
  using StatusOf = std::function<api::PodStatus(const api::Pod& current)>;
  // Called after a write failed for good (not for overtaken statuses).
  using FailureHandler =
      std::function<void(const std::string& key, const Status& error)>;

  PodStatusWriter(client::ApiClient& api, int writers,
                  FailureHandler on_failure);
  ~PodStatusWriter();
  PodStatusWriter(const PodStatusWriter&) = delete;
  PodStatusWriter& operator=(const PodStatusWriter&) = delete;

  // Wants `status_of` written for `pod` (key "namespace/name"), replacing
  // any status of the pod not written yet.
  void Set(const std::string& key, const api::Pod& pod, StatusOf status_of)
      EXCLUDES(mu_);
  // Drops the pod's pending status (it is being deleted).
  void Forget(const std::string& key) EXCLUDES(mu_);
  // Writes `status_of` now, on the calling thread (after any pending one
  // was dropped); for callers that must know it was written.
  Status WriteNow(const api::Pod& pod, const StatusOf& status_of);
  void Stop();

 private:
  struct Pending {
    api::Pod pod;
    StatusOf status_of;
  };
  void Run();
  // Writes over `pod`, and returns the pod as stored after the write.
  StatusOr<client::ObjectPtr> Write(const api::Pod& pod,
                                    const StatusOf& status_of);
  // The newer of `pod` and the pod this writer last stored for `key`: a
  // status written from an older copy would only meet a conflict.
  api::Pod Base(const std::string& key, api::Pod pod) EXCLUDES(mu_);

  client::ApiClient& api_;
  const FailureHandler on_failure_;
  client::WorkQueue queue_;
  Mutex mu_;
  std::map<std::string, Pending> pending_ GUARDED_BY(mu_);
  std::map<std::string, client::ObjectPtr> last_written_ GUARDED_BY(mu_);
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> writers_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_POD_STATUS_WRITER_H_
