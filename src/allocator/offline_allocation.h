// Offline allocation: the `dralloc allocate` semantics over decoded objects,
// shared by the command and the golden tests.
#ifndef DRALLOC_ALLOCATOR_OFFLINE_ALLOCATION_H_
#define DRALLOC_ALLOCATOR_OFFLINE_ALLOCATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "allocator/allocator.h"
#include "allocator/slice_patcher.h"
#include "api/object.h"
#include "common/status.h"

namespace dralloc::allocator {

struct OfflineAllocation {
  Allocation allocation;
  // The claims that were allocated (claims without status.allocation, in
  // input order); on success each carries its status.allocation.
  std::vector<api::ResourceClaim> claims;
  std::vector<PatchProblem> patch_problems;
};

// Inputs: any mix of Node, Namespace, DeviceClass, ResourceSlice,
// ResourceSlicePatch, DeviceTaintRule and ResourceClaim. Claims with
// status.allocation are in-use state; all others are allocated together for
// the node (a node absent from the input has no labels). Every object is
// validated first: invalid objects give kInvalidArgument naming the object
// and field. Allocation errors are returned as the Allocator reports them.
// Decodes a multi-document YAML/JSON text (strictly). Errors name the
// source, line and object.
StatusOr<std::vector<api::Object>> DecodeManifests(std::string_view text,
                                                   std::string_view source);

StatusOr<OfflineAllocation> AllocateOffline(std::vector<api::Object> objects,
                                            std::string_view node_name,
                                            const AllocatorOptions& options);

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_OFFLINE_ALLOCATION_H_
