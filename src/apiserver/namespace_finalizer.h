// NamespaceFinalizer: empties deleted namespaces, then lets them go.
//
// Upstream's namespace controller, run inside the API server. A namespace is
// created with the "kubernetes" entry in spec.finalizers (ResourceStorage),
// so DELETE only marks it (deletionTimestamp, status.phase Terminating) and
// new content is refused. This finalizer then deletes every object of every
// namespaced resource in it; objects with their own finalizers are marked for
// deletion and awaited. Once nothing is left it removes "kubernetes" from
// spec.finalizers, as a PUT of namespaces/<name>/finalize does, and the
// namespace goes (unless other finalizers remain).
//
// Thread safety: Start() and Stop() are called from one thread; the work
// runs on a background thread that owns all other state.
#ifndef DRALLOC_APISERVER_NAMESPACE_FINALIZER_H_
#define DRALLOC_APISERVER_NAMESPACE_FINALIZER_H_

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "apiserver/resource_storage.h"
#include "store/store.h"

namespace dralloc::apiserver {

class NamespaceFinalizer {
 public:
  explicit NamespaceFinalizer(ResourceStorage& storage);
  ~NamespaceFinalizer();
  NamespaceFinalizer(const NamespaceFinalizer&) = delete;
  NamespaceFinalizer& operator=(const NamespaceFinalizer&) = delete;

  // Finds the namespaces already being deleted and starts following the
  // store. Call once.
  void Start();
  void Stop();

 private:
  // Every deleted namespace still holding our finalizer.
  std::set<std::string> ListTerminating() const;
  void Run(std::unique_ptr<store::Watcher> watcher);
  // Deletes what is left in `namespace_`. True when the namespace needs no
  // more work: it was empty and its finalizer is removed, or it is gone.
  bool Finalize(const std::string& namespace_);

  ResourceStorage& storage_;
  std::set<std::string> terminating_;  // waiting to be emptied; run thread
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_NAMESPACE_FINALIZER_H_
