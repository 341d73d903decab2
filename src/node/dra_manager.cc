#include "node/dra_manager.h"

#include <algorithm>
#include <map>

#include "common/log.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "dra-manager";

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

Status DraManager::PrepareResources(const std::string& pod_uid,
                                    const std::vector<NodeClaim>& claims) {
  std::set<std::string> uids;
  for (const NodeClaim& claim : claims) uids.insert(claim.uid);
  // 0. As the kubelet: every driver to be called is registered, or nothing
  // is recorded. A claim on record must be unprepared before its pod can
  // go, which would wait for a driver that may never come.
  for (const NodeClaim& claim : claims) {
    for (const auto& [driver, state] : claim.drivers) {
      if (state.skip_prepare && state.skip_unprepare) continue;
      auto client = clients_(driver);
      if (!client.ok()) {
        return UnavailableError("prepare dynamic resources: claim " +
                                claim.namespace_ + "/" + claim.name + ": " +
                                client.status().message());
      }
    }
  }
  const ClaimLocks::Held held = locks_.LockAll({uids.begin(), uids.end()});
  // 1. Record the pod's claims (new drivers as "preparing") first.
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
    for (const NodeClaim& claim : claims) {
      ClaimInfo& info = tx.Edit(claim.uid);
      info.namespace_ = claim.namespace_;
      info.name = claim.name;
      for (const auto& [driver, state] : claim.drivers) {
        info.drivers.try_emplace(driver, state);
      }
      info.pod_uids.insert(pod_uid);
    }
  }));
  // 2. Batch what is not prepared yet, per driver.
  Batches batches;
  std::map<std::string, DraClaimRef> refs;
  for (const NodeClaim& claim : claims) {
    std::optional<ClaimInfo> info = cache_.Get(claim.uid);
    if (!info || refs.contains(info->uid)) continue;
    refs[info->uid] = info->ref();
    for (const auto& [driver, state] : info->drivers) {
      if (!state.prepared) batches[driver].push_back(info->ref());
    }
  }
  // 3. Call the drivers and record their answers, durably before any
  // container can use the devices.
  std::map<std::string, Status> errors = RunPrepare(batches);
  if (!batches.empty()) {
    Status synced = cache_.Sync();
    if (!synced.ok()) return synced;
  }
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
    Status saved = cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
      for (auto& [uid, result] : results) {
        if (!result.ok() || tx.Find(uid) == nullptr) continue;
        DriverClaimState& state = tx.Edit(uid).drivers[driver];
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
  std::set<std::string> uids;
  for (const ClaimInfo& info : cache_.ClaimsOfPod(pod_uid)) {
    uids.insert(info.uid);
  }
  if (uids.empty()) return OkStatus();
  const ClaimLocks::Held held = locks_.LockAll({uids.begin(), uids.end()});
  // Claims other pods still use just lose this pod; the pod stays on the
  // claims only it uses until their drivers unprepared them (as the
  // kubelet), so a crash meanwhile leaves them tied to the pod.
  std::set<std::string> last;
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
    for (const std::string& uid : uids) {
      const ClaimInfo* info = tx.Find(uid);
      if (info == nullptr || !info->pod_uids.contains(pod_uid)) continue;
      if (info->pod_uids.size() > 1) {
        tx.Edit(uid).pod_uids.erase(pod_uid);
      } else {
        last.insert(uid);
      }
    }
  }));
  return UnprepareLocked(last, pod_uid);
}

Status DraManager::RemovePodsExcept(const std::set<std::string>& active) {
  return RemoveInactivePods([&] { return active; });
}

Status DraManager::RemoveInactivePods(
    const std::function<std::set<std::string>()>& active_pods) {
  return cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
    const std::set<std::string> active = active_pods();
    std::vector<std::string> stale;
    for (const auto& [uid, info] : tx.claims()) {
      for (const std::string& pod : info.pod_uids) {
        if (!active.contains(pod)) stale.push_back(uid);
      }
    }
    for (const std::string& uid : stale) {
      std::erase_if(tx.Edit(uid).pod_uids,
                    [&](const std::string& pod) { return !active.count(pod); });
    }
  });
}

Status DraManager::UnprepareUnused() {
  std::set<std::string> unused;
  for (const ClaimInfo& info : cache_.List()) {
    if (info.pod_uids.empty()) unused.insert(info.uid);
  }
  return UnprepareClaims(std::move(unused));
}

Status DraManager::UnprepareClaims(std::set<std::string> uids) {
  if (uids.empty()) return OkStatus();
  const ClaimLocks::Held held = locks_.LockAll({uids.begin(), uids.end()});
  return UnprepareLocked(uids, "");
}

namespace {

// No pod but `owner` ("" = none) uses the claim.
bool OnlyUsedBy(const ClaimInfo& info, const std::string& owner) {
  return info.pod_uids.empty() ||
         (info.pod_uids.size() == 1 && info.pod_uids.contains(owner));
}

}  // namespace

Status DraManager::UnprepareLocked(const std::set<std::string>& uids,
                                   const std::string& owner) {
  Batches batches;
  std::map<std::string, DraClaimRef> refs;
  for (const std::string& uid : uids) {
    std::optional<ClaimInfo> info = cache_.Get(uid);
    if (!info || !OnlyUsedBy(*info, owner)) continue;
    refs[uid] = info->ref();
    // Drivers still "preparing" too: they may have prepared before a crash.
    for (const auto& [driver, state] : info->drivers) {
      if (!state.skip_unprepare) batches[driver].push_back(info->ref());
    }
  }
  // Drivers that skip unpreparation are done at once, and claims with no
  // driver left (or none at all) with them.
  RETURN_IF_ERROR(cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
    for (const auto& [uid, ref] : refs) {
      const ClaimInfo* info = tx.Find(uid);
      if (info == nullptr) continue;
      if (std::any_of(info->drivers.begin(), info->drivers.end(),
                      [](const auto& d) { return d.second.skip_unprepare; })) {
        std::erase_if(tx.Edit(uid).drivers,
                      [](const auto& d) { return d.second.skip_unprepare; });
        info = tx.Find(uid);
      }
      if (info->drivers.empty()) tx.Erase(uid);
    }
  }));
  std::map<std::string, Status> errors = RunUnprepare(batches, owner);
  return Summarize("unprepare dynamic resources", errors, refs);
}

std::map<std::string, Status> DraManager::RunUnprepare(
    const Batches& batches, const std::string& owner) {
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
    Status saved = cache_.Mutate([&](ClaimInfoCache::Transaction& tx) {
      for (const auto& [uid, result] : results) {
        const ClaimInfo* info = tx.Find(uid);
        if (!result.ok() || info == nullptr) continue;
        ClaimInfo& edited = tx.Edit(uid);
        edited.drivers.erase(driver);
        // Claims are locked, so no other pod can have come meanwhile; the
        // check keeps the entry if one somehow did (prepare again).
        if (edited.drivers.empty() && OnlyUsedBy(edited, owner)) tx.Erase(uid);
      }
    });
    for (const auto& [uid, result] : results) {
      if (!result.ok() && errors[uid].ok()) errors[uid] = result;
      if (result.ok() && !saved.ok() && errors[uid].ok()) errors[uid] = saved;
    }
  }
  return errors;
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
