#include "simulator/scale_up_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <random>

#include "api/codec.h"
#include "client/informer.h"
#include "scheduler/node_usage.h"

namespace dralloc::simulator {

using client::As;

StatusOr<Expander> ParseExpander(std::string_view name) {
  if (name == "least-waste") return Expander::kLeastWaste;
  if (name == "most-pods") return Expander::kMostPods;
  if (name == "priority") return Expander::kPriority;
  if (name == "random") return Expander::kRandom;
  if (name == "fewest-nodes") return Expander::kFewestNodes;
  return InvalidArgumentError(
      fmt::format("--expander: Unsupported value: \"{}\": supported values: "
                  "\"least-waste\", \"most-pods\", \"priority\", \"random\", "
                  "\"fewest-nodes\"",
                  name));
}

namespace {

bool IsGroupNode(std::string_view node, std::string_view group,
                 int64_t& index) {
  if (node.size() <= group.size() + 1 || !node.starts_with(group) ||
      node[group.size()] != '-') {
    return false;
  }
  std::string_view digits = node.substr(group.size() + 1);
  if (!std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      digits.size() > 9) {
    return false;
  }
  index = std::stoll(std::string(digits));
  return true;
}

int32_t PriorityOf(const client::ObjectPtr& object) {
  const auto* pod = As<api::Pod>(object);
  return pod != nullptr ? pod->spec.priority.value_or(0) : 0;
}

}  // namespace

ScaleUpPlanner::ScaleUpPlanner(ClusterSimulation& simulation,
                               std::vector<NodeGroup> groups,
                               ScaleUpOptions options)
    : simulation_(simulation),
      groups_(std::move(groups)),
      options_(options),
      states_(groups_.size()),
      random_state_(options.seed) {
  for (const std::string& node : simulation_.NodeNames()) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      int64_t index = 0;
      if (!IsGroupNode(node, groups_[g].name, index)) continue;
      ++states_[g].size;
      states_[g].next_index = std::max(states_[g].next_index, index + 1);
      states_[g].shared_added = true;
    }
  }
}

const std::string& ScaleUpPlanner::EquivalenceKey(const std::string& pod_key) {
  auto known = equivalence_keys_.find(pod_key);
  if (known != equivalence_keys_.end()) return known->second;
  std::string& key = equivalence_keys_[pod_key];
  // Pods of one controller with the same spec (apart from names) behave
  // alike on an empty node; pods without a controller are not grouped.
  const auto* pod = As<api::Pod>(simulation_.Pod(pod_key));
  if (pod == nullptr) return key;
  std::string owner;
  for (const auto& ref : pod->metadata.owner_references) {
    if (ref.controller.value_or(false)) owner = ref.uid;
  }
  if (owner.empty()) return key;
  api::Pod shape;
  shape.spec = pod->spec;
  shape.metadata.namespace_ = pod->metadata.namespace_;
  shape.metadata.labels = pod->metadata.labels;
  auto text = api::EncodeObjectText(api::Object(shape), "v1");
  if (text.ok()) key = owner + "\n" + *text;
  return key;
}

Status ScaleUpPlanner::PublishSlices(size_t group, GroupState& state,
                                     int64_t count) {
  const NodeGroup& g = groups_[group];
  for (int64_t i = 0; i < count; ++i) {
    const std::string name =
        fmt::format("{}-{}", g.name, state.next_index + state.published);
    for (const api::ResourceSlice& slice : g.NewSlices(name)) {
      if (Status added = simulation_.SimulateAddSlice(slice); !added.ok()) {
        return added;
      }
    }
    ++state.published;
  }
  return OkStatus();
}

void ScaleUpPlanner::UnpublishSlices(size_t group, GroupState& state) {
  const NodeGroup& g = groups_[group];
  for (int64_t i = 0; i < state.published; ++i) {
    const std::string name = fmt::format("{}-{}", g.name, state.next_index + i);
    for (const api::ResourceSlice& slice : g.NewSlices(name)) {
      (void)simulation_.SimulateRemoveSlice(slice.metadata.name);
    }
  }
  state.published = 0;
}

Status ScaleUpPlanner::AddGroupNode(size_t group, GroupState& state,
                                    std::vector<std::string>& new_nodes) {
  const NodeGroup& g = groups_[group];
  if (!state.shared_added) {
    for (const api::ResourceSlice& slice : g.shared_slices) {
      // A network-attached pool is usually published already.
      if (simulation_.HasSlice(slice.metadata.name)) continue;
      if (Status added = simulation_.SimulateAddSlice(slice); !added.ok()) {
        return added;
      }
    }
    state.shared_added = true;
  }
  if (state.published == 0) {
    // Twice as many as this estimate added so far, within maxSize.
    const int64_t batch = std::min<int64_t>(
        std::max<int64_t>(4, 2 * static_cast<int64_t>(new_nodes.size())),
        std::max<int64_t>(1, g.max_size - state.size));
    if (Status published = PublishSlices(group, state, batch);
        !published.ok()) {
      return published;
    }
  }
  const std::string name = fmt::format("{}-{}", g.name, state.next_index);
  Status added = simulation_.SimulateAddNode(g.NewNode(name), {});
  if (!added.ok()) return added;
  ++state.next_index;
  --state.published;
  ++state.size;
  new_nodes.push_back(name);
  return OkStatus();
}

ScaleUpPlanner::Estimate ScaleUpPlanner::EstimateGroup(
    size_t group, const std::vector<std::string>& pods, bool commit) {
  const size_t mark = simulation_.StartSimulation();
  Estimate estimate;
  estimate.group = group;
  GroupState state = states_[group];
  std::vector<std::string> new_nodes;
  for (const std::string& pod : pods) {
    const std::string& key = EquivalenceKey(pod);
    auto known = key.empty() ? hopeless_.end() : hopeless_.find({group, key});
    if (known != hopeless_.end()) {
      estimate.unhelped[pod] = known->second;
      continue;
    }
    SimulatedPlacement placed = simulation_.SchedulePod(pod, &new_nodes);
    if (!placed.scheduled) {
      std::string reason;
      if (!AddNodeFor(group, pod, state, new_nodes, placed, reason)) {
        estimate.unhelped[pod] = reason;
        if (!key.empty() && state.size < groups_[group].max_size) {
          hopeless_[{group, key}] = reason;
        }
        continue;
      }
    }
    estimate.placed.push_back({pod, placed.node, groups_[group].name});
  }
  estimate.nodes = static_cast<int64_t>(new_nodes.size());
  estimate.waste = ResourceWaste(group, estimate.nodes, estimate.placed);
  estimate.device_waste = DeviceWaste(new_nodes, estimate.placed);
  if (commit) {
    UnpublishSlices(group, state);
    simulation_.Commit(mark);
    states_[group] = state;
  } else {
    simulation_.Revert(mark);
  }
  return estimate;
}

bool ScaleUpPlanner::AddNodeFor(size_t group, const std::string& pod,
                                GroupState& state,
                                std::vector<std::string>& new_nodes,
                                SimulatedPlacement& placed,
                                std::string& reason) {
  if (state.size >= groups_[group].max_size) {
    reason =
        fmt::format("node group at max size ({})", groups_[group].max_size);
    return false;
  }
  const size_t before_node = simulation_.StartSimulation();
  const GroupState before = state;
  Status added = AddGroupNode(group, state, new_nodes);
  if (added.ok()) {
    // Only the new node: the pod fits none of the others.
    const std::vector<std::string> only = {new_nodes.back()};
    placed = simulation_.SchedulePod(pod, &only);
  }
  if (added.ok() && placed.scheduled) return true;
  reason = added.ok() ? placed.reason : std::string(added.message());
  simulation_.Revert(before_node);
  if (added.ok()) new_nodes.pop_back();
  state = before;
  return false;
}

double ScaleUpPlanner::ResourceWaste(
    size_t group, int64_t nodes,
    const std::vector<PodPlacementResult>& placed) {
  const scheduler::ResourceAmounts node =
      scheduler::NodeAllocatable(groups_[group].template_node);
  scheduler::ResourceAmounts requested;
  for (const PodPlacementResult& p : placed) {
    const auto* pod = As<api::Pod>(simulation_.Pod(p.pod));
    if (pod == nullptr) continue;
    const scheduler::ResourceAmounts amounts = scheduler::PodRequests(*pod);
    requested.milli_cpu += amounts.milli_cpu;
    requested.memory += amounts.memory;
  }
  // A resource the template does not declare adds nothing (upstream would
  // divide by zero).
  auto unused = [&](int64_t per_node, int64_t used) {
    const double available =
        static_cast<double>(per_node) * static_cast<double>(nodes);
    return available > 0 ? (available - static_cast<double>(used)) / available
                         : 0.0;
  };
  return unused(node.milli_cpu, requested.milli_cpu) +
         unused(node.memory, requested.memory);
}

double ScaleUpPlanner::DeviceWaste(
    const std::vector<std::string>& new_node_list,
    const std::vector<PodPlacementResult>& placed) {
  const std::set<std::string> new_nodes(new_node_list.begin(),
                                        new_node_list.end());
  // Devices of the new nodes' own pools; used: allocated to a placed pod.
  size_t total = 0;
  std::set<std::string> used;
  for (const std::string& node : new_nodes) {
    int64_t index = 0;
    for (const NodeGroup& g : groups_) {
      if (!IsGroupNode(node, g.name, index)) continue;
      for (const api::ResourceSlice& slice : g.NewSlices(node)) {
        total += slice.spec.devices.size();
      }
    }
  }
  for (const PodPlacementResult& p : placed) {
    if (!new_nodes.contains(p.node)) continue;
    const auto* pod = As<api::Pod>(simulation_.Pod(p.pod));
    if (pod == nullptr) continue;
    for (const auto& s : pod->status.resource_claim_statuses) {
      if (!s.resource_claim_name) continue;
      const auto* claim = As<api::ResourceClaim>(simulation_.Claim(
          client::ObjectKey(pod->metadata.namespace_, *s.resource_claim_name)));
      if (claim == nullptr || !claim->status.allocation) continue;
      for (const auto& r : claim->status.allocation->devices.results) {
        if (r.pool == p.node || r.pool.find(p.node) != std::string::npos) {
          used.insert(fmt::format("{}/{}/{}", r.driver, r.pool, r.device));
        }
      }
    }
    for (const auto& entry : pod->spec.resource_claims) {
      if (!entry.resource_claim_name) continue;
      const auto* claim =
          As<api::ResourceClaim>(simulation_.Claim(client::ObjectKey(
              pod->metadata.namespace_, *entry.resource_claim_name)));
      if (claim == nullptr || !claim->status.allocation) continue;
      for (const auto& r : claim->status.allocation->devices.results) {
        if (r.pool.find(p.node) != std::string::npos) {
          used.insert(fmt::format("{}/{}/{}", r.driver, r.pool, r.device));
        }
      }
    }
  }
  if (total == 0) return 0;
  return 1.0 - static_cast<double>(std::min(used.size(), total)) /
                   static_cast<double>(total);
}

size_t ScaleUpPlanner::Choose(const std::vector<Estimate>& options) {
  std::mt19937_64 random(random_state_);
  random_state_ = random();
  auto by = [&](auto better) {
    size_t best = 0;
    for (size_t i = 1; i < options.size(); ++i) {
      if (better(options[i], options[best])) best = i;
    }
    return best;
  };
  const auto& groups = groups_;
  switch (options_.expander) {
    case Expander::kMostPods:
      return by([&](const Estimate& a, const Estimate& b) {
        if (a.placed.size() != b.placed.size()) {
          return a.placed.size() > b.placed.size();
        }
        if (a.nodes != b.nodes) return a.nodes < b.nodes;
        return groups[a.group].name < groups[b.group].name;
      });
    case Expander::kPriority: {
      int64_t top = groups[options[0].group].priority;
      for (const Estimate& e : options) {
        top = std::max(top, groups[e.group].priority);
      }
      std::vector<size_t> best;
      for (size_t i = 0; i < options.size(); ++i) {
        if (groups[options[i].group].priority == top) best.push_back(i);
      }
      return best[random() % best.size()];
    }
    case Expander::kRandom:
      return random() % options.size();
    case Expander::kLeastWaste:
    case Expander::kFewestNodes:
      break;
  }
  return by([&](const Estimate& a, const Estimate& b) {
    if (a.waste != b.waste) return a.waste < b.waste;
    if (a.device_waste != b.device_waste) {
      return a.device_waste < b.device_waste;
    }
    if (a.placed.size() != b.placed.size()) {
      return a.placed.size() > b.placed.size();
    }
    return groups[a.group].name < groups[b.group].name;
  });
}

std::vector<std::string> ScaleUpPlanner::Greedy(
    std::vector<std::string> pods, ScaleUpPlan& plan,
    std::map<std::string, std::string>& reasons) {
  while (!pods.empty()) {
    std::vector<Estimate> options;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> why;
    for (size_t g = 0; g < groups_.size(); ++g) {
      Estimate estimate = EstimateGroup(g, pods, /*commit=*/false);
      for (const auto& [pod, reason] : estimate.unhelped) {
        why[pod].emplace_back(groups_[g].name, reason);
      }
      if (!estimate.placed.empty()) options.push_back(std::move(estimate));
    }
    if (options.empty()) {
      for (auto& [pod, by_group] : why) {
        std::string text;
        for (const auto& [group, reason] : by_group) {
          text += fmt::format("{}node group {}: {}", text.empty() ? "" : "; ",
                              group, reason);
        }
        reasons[pod] = std::move(text);
        group_reasons_[pod] = std::move(by_group);
      }
      break;
    }
    const size_t group = options[Choose(options)].group;
    Estimate applied = EstimateGroup(group, pods, /*commit=*/true);
    auto& entry = std::find_if(plan.scale_up.begin(), plan.scale_up.end(),
                               [&](const auto& e) {
                                 return e.first == groups_[group].name;
                               }) == plan.scale_up.end()
                      ? plan.scale_up.emplace_back(groups_[group].name, 0)
                      : *std::find_if(plan.scale_up.begin(),
                                      plan.scale_up.end(), [&](const auto& e) {
                                        return e.first == groups_[group].name;
                                      });
    entry.second += applied.nodes;
    std::set<std::string> done;
    for (PodPlacementResult& placed : applied.placed) {
      done.insert(placed.pod);
      plan.placements.push_back(std::move(placed));
    }
    std::erase_if(pods, [&](const std::string& p) { return done.contains(p); });
    if (done.empty()) break;
  }
  return pods;
}

size_t ScaleUpPlanner::Replay(const std::vector<int64_t>& counts,
                              const std::vector<std::string>& pods, bool commit,
                              ScaleUpPlan* plan) {
  const size_t mark = simulation_.StartSimulation();
  std::vector<GroupState> states = states_;
  std::vector<int64_t> left = counts;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (left[g] > states[g].published) {
      (void)PublishSlices(g, states[g], left[g] - states[g].published);
    }
  }
  // Packs as the binpacking estimator: a pod goes to the nodes opened so
  // far (it did not fit the existing ones); else a node of the first group
  // with budget left that it fits is opened.
  std::map<std::string, std::string> group_of;
  std::vector<std::string> opened;
  size_t scheduled = 0;
  for (const std::string& pod : pods) {
    SimulatedPlacement placed = simulation_.SchedulePod(pod, &opened);
    for (size_t g = 0; !placed.scheduled && g < groups_.size(); ++g) {
      if (left[g] == 0) continue;
      std::string reason;
      if (AddNodeFor(g, pod, states[g], opened, placed, reason)) {
        --left[g];
        group_of[opened.back()] = groups_[g].name;
      }
    }
    if (!placed.scheduled) continue;
    ++scheduled;
    if (plan != nullptr) {
      plan->placements.push_back({pod, placed.node, group_of[placed.node]});
    }
  }
  if (plan != nullptr) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (counts[g] > left[g]) {
        plan->scale_up.emplace_back(groups_[g].name, counts[g] - left[g]);
      }
    }
  }
  if (commit) {
    for (size_t g = 0; g < groups_.size(); ++g) UnpublishSlices(g, states[g]);
    simulation_.Commit(mark);
    states_ = std::move(states);
  } else {
    simulation_.Revert(mark);
  }
  return scheduled;
}

std::optional<std::vector<int64_t>> ScaleUpPlanner::FewestNodes(
    const std::vector<std::string>& pods, size_t target, int64_t max_nodes) {
  std::vector<int64_t> room(groups_.size());
  int64_t max_total = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    room[g] = std::max<int64_t>(0, groups_[g].max_size - states_[g].size);
    max_total += room[g];
  }
  max_total = std::min(max_total, max_nodes);
  size_t budget = options_.max_search_vectors;
  std::vector<int64_t> counts(groups_.size(), 0);
  std::optional<std::vector<int64_t>> found;
  // Every vector with the given total, in lexicographic order.
  std::function<bool(size_t, int64_t)> visit = [&](size_t g,
                                                   int64_t left) -> bool {
    if (g + 1 == groups_.size() || groups_.empty()) {
      if (groups_.empty()) return false;
      if (left > room[g]) return false;
      counts[g] = left;
      if (budget == 0) return true;
      --budget;
      if (Replay(counts, pods, false, nullptr) >= target) found = counts;
      return found.has_value();
    }
    for (int64_t n = std::min(left, room[g]); n >= 0; --n) {
      counts[g] = n;
      if (visit(g + 1, left - n)) return true;
    }
    return false;
  };
  for (int64_t total = 1; total <= max_total; ++total) {
    if (visit(0, total)) return found;
    if (budget == 0) return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> ScaleUpPlanner::FewestNodesPlan(
    const std::vector<std::string>& pods, ScaleUpPlan& plan,
    std::map<std::string, std::string>& reasons) {
  // The greedy least-waste plan sets the goal: as many pods, in at most as
  // many nodes.
  const size_t mark = simulation_.StartSimulation();
  const std::vector<GroupState> states = states_;
  ScaleUpPlan greedy;
  std::map<std::string, std::string> greedy_reasons = reasons;
  const size_t greedy_left = Greedy(pods, greedy, greedy_reasons).size();
  int64_t greedy_nodes = 0;
  for (const auto& [group, count] : greedy.scale_up) greedy_nodes += count;
  simulation_.Revert(mark);
  states_ = states;
  const size_t target = pods.size() - greedy_left;
  auto best =
      target == 0 ? std::nullopt : FewestNodes(pods, target, greedy_nodes);
  if (!best) return Greedy(pods, plan, reasons);
  const size_t placed_before = plan.placements.size();
  Replay(*best, pods, /*commit=*/true, &plan);
  std::set<std::string> done;
  for (size_t i = placed_before; i < plan.placements.size(); ++i) {
    done.insert(plan.placements[i].pod);
  }
  std::vector<std::string> left;
  for (const std::string& pod : pods) {
    if (!done.contains(pod)) left.push_back(pod);
  }
  reasons = std::move(greedy_reasons);
  return left;
}

ScaleUpPlan ScaleUpPlanner::Plan() {
  ScaleUpPlan plan;
  std::vector<std::string> pending = simulation_.PendingPods();
  std::stable_sort(pending.begin(), pending.end(),
                   [&](const std::string& a, const std::string& b) {
                     return PriorityOf(simulation_.Pod(a)) >
                            PriorityOf(simulation_.Pod(b));
                   });
  std::vector<std::string> rest;
  std::map<std::string, std::string> reasons;
  for (const std::string& pod : pending) {
    SimulatedPlacement placed = simulation_.SchedulePod(pod);
    if (placed.scheduled) {
      plan.placements.push_back({pod, placed.node, ""});
    } else {
      reasons[pod] = placed.reason;
      rest.push_back(pod);
    }
  }
  if (options_.expander == Expander::kFewestNodes && !rest.empty()) {
    rest = FewestNodesPlan(rest, plan, reasons);
  } else {
    rest = Greedy(rest, plan, reasons);
  }
  for (const std::string& pod : rest) {
    plan.unschedulable.push_back({pod, reasons[pod], group_reasons_[pod]});
  }
  std::sort(plan.placements.begin(), plan.placements.end(),
            [](const auto& a, const auto& b) { return a.pod < b.pod; });
  std::sort(plan.unschedulable.begin(), plan.unschedulable.end(),
            [](const auto& a, const auto& b) { return a.pod < b.pod; });
  return plan;
}

}  // namespace dralloc::simulator
