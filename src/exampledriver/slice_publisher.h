// SlicePublisher: keeps the ResourceSlices of one node's pool for one driver
// equal to a desired list, through the API.
//
// Sync() is one reconciliation: slices of this node and driver that already
// match are left alone; otherwise the pool generation is bumped and slices
// are updated (keeping their names), created or deleted until the pool is
// exactly the desired list. Generations only grow. Start() runs Sync() every
// `resync_interval` on a thread, which repairs slices the node agent deleted
// (it wipes a node's slices at start and a driver's some time after the driver
// leaves) or anybody changed.
#ifndef DRALLOC_EXAMPLEDRIVER_SLICE_PUBLISHER_H_
#define DRALLOC_EXAMPLEDRIVER_SLICE_PUBLISHER_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "api/types/resource_slice.h"
#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace dralloc::exampledriver {

struct SyncOutcome {
  int created = 0;
  int updated = 0;
  int deleted = 0;
  int64_t generation = 0;  // the pool generation after the sync
  bool changed() const { return created + updated + deleted > 0; }
};

class SlicePublisher {
 public:
  // `desired` all share driver, pool name and node name; generation and
  // slice count are set here. `client` must outlive the publisher.
  SlicePublisher(client::ApiClient* client,
                 std::vector<api::ResourceSliceSpec> desired);
  ~SlicePublisher();
  SlicePublisher(const SlicePublisher&) = delete;
  SlicePublisher& operator=(const SlicePublisher&) = delete;

  StatusOr<SyncOutcome> Sync();

  // Re-syncs every `interval` until Stop(); errors are logged and retried.
  void Start(std::chrono::milliseconds interval);
  void Stop();

 private:
  // This node's and driver's slices on the server, listed with the
  // fieldSelector spec.nodeName=<node> a node identity needs.
  StatusOr<std::vector<api::ResourceSlice>> ListOwnSlices();
  void Loop(std::chrono::milliseconds interval);

  client::ApiClient* const client_;
  std::vector<api::ResourceSliceSpec> desired_;
  std::string driver_;
  std::string node_;

  // Serializes Sync() (the loop and direct callers).
  Mutex sync_mu_;
  // The highest generation this publisher wrote: a pool wiped by someone
  // else comes back with a newer one, never an old one again.
  int64_t last_generation_ GUARDED_BY(sync_mu_) = 0;

  Mutex mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_SLICE_PUBLISHER_H_
