// ResourceLister: Kubernetes' list semantics over a Store, and the wait
// for a resourceVersion the store has not reached that reads and watches
// share.
//
// A list's resourceVersion/resourceVersionMatch choose the revision read
// (most recent, not older than, or exact: 410 Gone when it is no longer
// available), every page of a paginated list is read at the first page's
// revision (the continue token carries it), and a resourceVersion the
// store has not reached is waited for (504 after
// too_large_resource_version_wait). Invalid combinations are 422.
// Thread-safe: List and WaitForRevision only read the store.
#ifndef DRALLOC_APISERVER_RESOURCE_LISTER_H_
#define DRALLOC_APISERVER_RESOURCE_LISTER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/api_error.h"
#include "apiserver/continue_token.h"
#include "apiserver/request_scope.h"
#include "apiserver/selectors.h"
#include "store/store.h"

namespace dralloc::apiserver {

class ResourceLister {
 public:
  explicit ResourceLister(store::Store& store) : store_(store) {}

  // A `<Kind>List` document of the collection `scope` addresses, in the
  // request's version.
  ApiOr<std::string> List(const RequestScope& scope,
                          const ListOptions& options) const;

  // Waits until the store's revision reaches `revision` (a 504 once
  // too_large_resource_version_wait has passed), as upstream's watch cache
  // does for reads and watches from a resourceVersion it has not seen.
  std::optional<ApiError> WaitForRevision(int64_t revision) const;
  // How long a read waits for the store to reach a requested
  // resourceVersion (upstream: 3 s).
  void set_too_large_resource_version_wait(std::chrono::milliseconds wait) {
    too_large_resource_version_wait_ = wait;
  }

  // True if the stored object passes the selectors.
  static bool Selected(const std::string& stored, const LabelSelector& labels,
                       const FieldSelector& fields);

 private:
  // Where a list starts reading: the revision (0: the current one), the
  // first key, and the continue token that named them.
  struct ReadPoint {
    int64_t revision = 0;
    std::string start;
    std::optional<ContinueToken> token;
  };
  // The selected items of a list, kept as shared stored values (in the
  // storage version the document is the stored bytes concatenated, with no
  // copy before the final one), and where the list stopped.
  struct Page {
    std::vector<store::Value> items;
    int64_t revision = 0;  // the snapshot read
    std::string last_key;
    bool more = false;     // items follow last_key
    size_t remaining = 0;  // how many, before selectors
  };

  // The read point of `options` (after ValidateListOptions) for the
  // collection under `prefix`; waits for a revision not yet reached.
  ApiOr<ReadPoint> Start(const std::string& prefix,
                         const ListOptions& options) const;
  // Reads from `point` until `options.limit` items pass the selectors or
  // the collection ends; 410 when the revision is no longer available.
  ApiOr<Page> Read(const RequestScope& scope, const ListOptions& options,
                   const std::string& prefix, ReadPoint point) const;

  store::Store& store_;
  std::chrono::milliseconds too_large_resource_version_wait_{3000};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RESOURCE_LISTER_H_
