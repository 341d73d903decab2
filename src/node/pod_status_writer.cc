#include "node/pod_status_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "client/informer.h"

namespace dralloc::node {

PodStatusWriter::PodStatusWriter(client::ApiClient& api, int writers,
                                 FailureHandler on_failure)
    : api_(api), on_failure_(std::move(on_failure)) {
  for (int i = 0; i < std::max(writers, 1); ++i) {
    writers_.emplace_back([this] { Run(); });
  }
}

PodStatusWriter::~PodStatusWriter() { Stop(); }

void PodStatusWriter::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  for (std::thread& writer : writers_) {
    if (writer.joinable()) writer.join();
  }
  writers_.clear();
}

void PodStatusWriter::Set(const std::string& key, const api::Pod& pod,
                          StatusOf status_of) {
  {
    MutexLock lock(mu_);
    pending_.insert_or_assign(key, Pending{pod, std::move(status_of)});
  }
  queue_.Add(key);
}

void PodStatusWriter::Forget(const std::string& key) {
  MutexLock lock(mu_);
  pending_.erase(key);
  last_written_.erase(key);
}

api::Pod PodStatusWriter::Base(const std::string& key, api::Pod pod) {
  MutexLock lock(mu_);
  auto it = last_written_.find(key);
  if (it == last_written_.end()) return pod;
  const auto* written = client::As<api::Pod>(it->second);
  auto version = [](const api::Pod& p) {
    return std::strtoll(p.metadata.resource_version.c_str(), nullptr, 10);
  };
  if (written == nullptr || written->metadata.uid != pod.metadata.uid ||
      version(*written) <= version(pod)) {
    return pod;
  }
  return *written;
}

void PodStatusWriter::Run() {
  while (true) {
    std::optional<std::string> key = queue_.Pop(std::chrono::milliseconds(200));
    if (!key) {
      // A timeout, or ShutDown: only the latter ends the writer.
      if (stopping_) return;
      continue;
    }
    std::optional<Pending> next;
    {
      MutexLock lock(mu_);
      auto it = pending_.find(*key);
      if (it != pending_.end()) {
        next = std::move(it->second);
        pending_.erase(it);
      }
    }
    if (next) {
      auto written = Write(Base(*key, std::move(next->pod)), next->status_of);
      if (written.ok()) {
        MutexLock lock(mu_);
        last_written_[*key] = *written;
      } else if (on_failure_) {
        on_failure_(*key, written.status());
      }
    }
    queue_.Done(*key);
  }
}

Status PodStatusWriter::WriteNow(const api::Pod& pod,
                                 const StatusOf& status_of) {
  return Write(pod, status_of).status();
}

StatusOr<client::ObjectPtr> PodStatusWriter::Write(const api::Pod& pod,
                                                   const StatusOf& status_of) {
  const api::Pod* current = &pod;
  client::ObjectPtr fresh;
  for (int attempt = 0; attempt < 3; ++attempt) {
    api::Pod update = *current;
    update.status = status_of(*current);
    auto written = api_.UpdateStatus(update);
    if (written.ok()) return *written;
    if (written.status().code() != StatusCode::kAborted) {
      return written.status();
    }
    auto got = api_.Get(client::PodsResource(), pod.metadata.namespace_,
                        pod.metadata.name);
    if (!got.ok()) return got.status();
    fresh = *got;
    current = client::As<api::Pod>(fresh);
    if (current == nullptr || current->metadata.uid != pod.metadata.uid) {
      return NotFoundError(
          "pod " +
          client::ObjectKey(pod.metadata.namespace_, pod.metadata.name) +
          " was replaced");
    }
  }
  return Status(StatusCode::kAborted, "pod status: too many conflicts");
}

}  // namespace dralloc::node
