#include "scheduler/node_entry.h"

namespace dralloc::scheduler {

bool HasPodAffinity(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  return affinity && (affinity->pod_affinity || affinity->pod_anti_affinity);
}

bool HasRequiredAntiAffinity(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  return affinity && affinity->pod_anti_affinity &&
         !affinity->pod_anti_affinity
              ->required_during_scheduling_ignored_during_execution.empty();
}

namespace {

bool EraseObject(std::vector<NodePod>& pods, const client::ObjectPtr& object) {
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i].object == object) {
      pods[i] = std::move(pods.back());
      pods.pop_back();
      return true;
    }
  }
  return false;
}

}  // namespace

bool NodeEntry::AddPod(const client::ObjectPtr& object) {
  const api::Pod& pod = std::get<api::Pod>(*object);
  const NodePod entry{object, &pod};
  pods.push_back(entry);
  const bool affinity = HasPodAffinity(pod);
  if (affinity) pods_with_affinity.push_back(entry);
  if (HasRequiredAntiAffinity(pod)) {
    pods_with_required_anti_affinity.push_back(entry);
  }
  usage.AddPod(pod);
  return affinity;
}

bool NodeEntry::RemovePod(const client::ObjectPtr& object, bool& removed) {
  removed = EraseObject(pods, object);
  if (!removed) return false;
  const bool affinity = EraseObject(pods_with_affinity, object);
  EraseObject(pods_with_required_anti_affinity, object);
  usage.RemovePod(std::get<api::Pod>(*object));
  return affinity;
}

}  // namespace dralloc::scheduler
