// TestCluster: an in-memory API with the informers the scheduler's parts
// read, for the scheduler's unit tests.
#ifndef DRALLOC_SCHEDULER_TEST_CLUSTER_H_
#define DRALLOC_SCHEDULER_TEST_CLUSTER_H_

#include <gtest/gtest.h>

#include <chrono>
#include <string_view>

#include "allocator/offline_allocation.h"
#include "client/informer.h"
#include "client/memory_api_client.h"
#include "scheduler/cluster_snapshot.h"

namespace dralloc::scheduler {

struct TestCluster {
  client::MemoryApiClient api;
  client::Informer pods{api, client::PodsResource()};
  client::Informer nodes{api, client::NodesResource()};
  client::Informer claims{api, client::ResourceClaimsResource()};
  client::Informer slices{api, client::ResourceSlicesResource()};
  client::Informer classes{api, client::DeviceClassesResource()};
  client::Informer slice_patches{api, client::ResourceSlicePatchesResource()};
  client::Informer taint_rules{api, client::DeviceTaintRulesResource()};

  SnapshotSources sources() {
    return {pods, nodes, claims, slices, classes, slice_patches, taint_rules};
  }

  // Creates every object of the YAML stream (with its status, for claims).
  void Load(std::string_view yaml) {
    auto objects = allocator::DecodeManifests(yaml, "test");
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (const api::Object& object : *objects) {
      auto created = api.Create(object);
      ASSERT_TRUE(created.ok())
          << api::DisplayName(object) << ": " << created.status();
      const auto* claim = std::get_if<api::ResourceClaim>(&object);
      if (claim != nullptr && claim->status.allocation) {
        api::Object with_status = **created;
        std::get<api::ResourceClaim>(with_status).status = claim->status;
        ASSERT_TRUE(api.UpdateStatus(std::move(with_status)).ok());
      }
    }
  }

  // Delivers every pending change to the informers (and their handlers).
  void Pump() {
    for (client::Informer* informer :
         {&pods, &nodes, &claims, &slices, &classes, &slice_patches,
          &taint_rules}) {
      ASSERT_TRUE(informer->Pump(std::chrono::milliseconds(0)).ok());
    }
  }
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_TEST_CLUSTER_H_
