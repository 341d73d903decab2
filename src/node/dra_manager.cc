#include "node/dra_manager.h"

#include "common/log.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "dra-manager";

std::set<std::string> DriversOf(const api::ResourceClaim& claim) {
  std::set<std::string> drivers;
  if (!claim.status.allocation) return drivers;
  for (const auto& result : claim.status.allocation->devices.results) {
    drivers.insert(result.driver);
  }
  return drivers;
}

std::string ClaimLabel(const DraClaimRef& ref) {
  return ref.namespace_ + "/" + ref.name;
}

// "claim a/b: why; claim c/d: why" for the failed claims.
Status Summarize(const std::string& what,
                 const std::map<std::string, Status>& errors,
                 const std::map<std::string, DraClaimRef>& refs) {
  std::string message;
  for (const auto& [uid, status] : errors) {
    if (status.ok()) continue;
    if (!message.empty()) message += "; ";
    auto ref = refs.find(uid);
    message += "claim " + (ref != refs.end() ? ClaimLabel(ref->second) : uid) +
               ": " + status.message();
  }
  if (message.empty()) return OkStatus();
  return UnavailableError(what + ": " + message);
}

}  // namespace

DraManager::DraManager(ClaimInfoCache& cache, ClientLookup clients)
    : cache_(cache), clients_(std::move(clients)) {}

Status DraManager::PrepareResources(
    const std::string& pod_uid,
    const std::vector<const api::ResourceClaim*>& claims) {
  MutexLock op(op_mu_);
  // 1. Record the pod's claims (new drivers as "preparing") first.
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Claims& all) {
    for (const api::ResourceClaim* claim : claims) {
      ClaimInfo& info = all[claim->metadata.uid];
      info.uid = claim->metadata.uid;
      info.namespace_ = claim->metadata.namespace_;
      info.name = claim->metadata.name;
      for (const std::string& driver : DriversOf(*claim)) {
        info.drivers.try_emplace(driver);
      }
      info.pod_uids.insert(pod_uid);
    }
  }));
  // 2. Batch what is not prepared yet, per driver.
  Batches batches;
  std::map<std::string, DraClaimRef> refs;
  for (const api::ResourceClaim* claim : claims) {
    std::optional<ClaimInfo> info = cache_.Get(claim->metadata.uid);
    if (!info) continue;
    refs[info->uid] = info->ref();
    for (const auto& [driver, state] : info->drivers) {
      if (!state.prepared) batches[driver].push_back(info->ref());
    }
  }
  // 3. Call the drivers and record their answers.
  std::map<std::string, Status> errors = RunPrepare(batches);
  return Summarize("prepare dynamic resources", errors, refs);
}

std::map<std::string, Status> DraManager::RunPrepare(const Batches& batches) {
  std::map<std::string, Status> errors;
  for (const auto& [driver_name, refs] : batches) {
    const std::string& driver = driver_name;  // captured below (C++20 rule)
    auto client = clients_(driver);
    if (!client.ok()) {
      for (const DraClaimRef& ref : refs) errors[ref.uid] = client.status();
      continue;
    }
    PrepareResults results = (*client)->Prepare(refs);
    Status saved = cache_.Mutate([&](ClaimInfoCache::Claims& all) {
      for (auto& [uid, result] : results) {
        auto it = all.find(uid);
        if (!result.ok() || it == all.end()) continue;
        DriverClaimState& state = it->second.drivers[driver];
        state.prepared = true;
        state.devices = *result;
      }
    });
    for (auto& [uid, result] : results) {
      if (!result.ok() && errors[uid].ok()) errors[uid] = result.status();
      if (result.ok() && !saved.ok() && errors[uid].ok()) errors[uid] = saved;
    }
    log::Debug(kComponent, "driver {} prepared {} claim(s)", driver,
               refs.size());
  }
  return errors;
}

Status DraManager::UnprepareResources(const std::string& pod_uid) {
  MutexLock op(op_mu_);
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Claims& all) {
    for (auto& [uid, info] : all) info.pod_uids.erase(pod_uid);
  }));
  return UnprepareUnusedLocked();
}

Status DraManager::RemovePodsExcept(const std::set<std::string>& active) {
  MutexLock op(op_mu_);
  return cache_.Mutate([&](ClaimInfoCache::Claims& all) {
    for (auto& [uid, info] : all) {
      std::erase_if(info.pod_uids,
                    [&](const std::string& pod) { return !active.count(pod); });
    }
  });
}

Status DraManager::UnprepareUnused() {
  MutexLock op(op_mu_);
  return UnprepareUnusedLocked();
}

Status DraManager::UnprepareUnusedLocked() {
  Batches batches;
  std::map<std::string, DraClaimRef> refs;
  for (const ClaimInfo& info : cache_.List()) {
    if (!info.pod_uids.empty()) continue;
    refs[info.uid] = info.ref();
    // Drivers still "preparing" too: they may have prepared before a crash.
    for (const auto& [driver, state] : info.drivers) {
      batches[driver].push_back(info.ref());
    }
  }
  // Claims with no driver left (or none at all) are done.
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Claims& all) {
    std::erase_if(all, [](const auto& entry) {
      return entry.second.pod_uids.empty() && entry.second.drivers.empty();
    });
  }));
  std::map<std::string, Status> errors;
  for (const auto& [driver_name, claim_refs] : batches) {
    const std::string& driver = driver_name;  // captured below (C++20 rule)
    auto client = clients_(driver);
    if (!client.ok()) {
      for (const DraClaimRef& ref : claim_refs)
        errors[ref.uid] = client.status();
      continue;
    }
    UnprepareResults results = (*client)->Unprepare(claim_refs);
    Status saved = cache_.Mutate([&](ClaimInfoCache::Claims& all) {
      for (const auto& [uid, result] : results) {
        auto it = all.find(uid);
        if (!result.ok() || it == all.end()) continue;
        it->second.drivers.erase(driver);
        // A pod that came back meanwhile keeps the entry (prepare again).
        if (it->second.drivers.empty() && it->second.pod_uids.empty()) {
          all.erase(it);
        }
      }
    });
    for (const auto& [uid, result] : results) {
      if (!result.ok() && errors[uid].ok()) errors[uid] = result;
      if (result.ok() && !saved.ok() && errors[uid].ok()) errors[uid] = saved;
    }
  }
  return Summarize("unprepare dynamic resources", errors, refs);
}

StatusOr<std::vector<std::string>> DraManager::CdiDeviceIds(
    const std::string& claim_uid, const std::string& request) const {
  std::optional<ClaimInfo> info = cache_.Get(claim_uid);
  if (!info || !info->prepared()) {
    return FailedPreconditionError("claim " + claim_uid +
                                   " is not prepared on this node");
  }
  std::vector<std::string> ids;
  for (const auto& [driver, state] : info->drivers) {
    for (const PreparedDevice& device : state.devices) {
      if (!ServesRequest(device, request)) continue;
      ids.insert(ids.end(), device.cdi_device_ids.begin(),
                 device.cdi_device_ids.end());
    }
  }
  return ids;
}

}  // namespace dralloc::node
