#include "apiserver/node_authorizer_graph.h"

#include <simdjson.h>

#include <utility>

#include "common/log.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kPodsPrefix = "/pods/";
constexpr std::string_view kComponent = "node-authorizer";
// How long one read of the watch blocks: also how often the graph's
// revision moves on while only other resources are written.
constexpr auto kWatchPoll = std::chrono::milliseconds(25);
// Pause before relisting after a watch failed for another reason than
// falling behind (a store that is unavailable).
constexpr auto kRetryPause = std::chrono::milliseconds(200);

std::string_view StringAt(simdjson::dom::element object, const char* field) {
  std::string_view value;
  if (object[field].get(value) != simdjson::SUCCESS) return {};
  return value;
}

bool HasString(simdjson::dom::element object, const char* field) {
  std::string_view value;
  return object[field].get(value) == simdjson::SUCCESS;
}

// The claim name recorded in pod.status.resourceClaimStatuses for the entry
// `entry_name`; "" when there is no entry or it names no claim.
std::string_view GeneratedClaimName(simdjson::dom::element root,
                                    std::string_view entry_name) {
  simdjson::dom::array statuses;
  if (root["status"]["resourceClaimStatuses"].get(statuses) !=
      simdjson::SUCCESS) {
    return {};
  }
  for (simdjson::dom::element status : statuses) {
    if (StringAt(status, "name") == entry_name) {
      return StringAt(status, "resourceClaimName");
    }
  }
  return {};
}

}  // namespace

NodeAuthorizerGraph::NodeAuthorizerGraph(store::Store& store) : store_(store) {}

NodeAuthorizerGraph::~NodeAuthorizerGraph() { Stop(); }

void NodeAuthorizerGraph::Start() {
  const int64_t listed = Relist();
  auto watcher = store_.Watch(std::string(kPodsPrefix), listed);
  if (!watcher.ok()) {
    log::Warn(kComponent, "watching pods: {}", watcher.status().message());
  }
  std::unique_ptr<store::Watcher> first =
      watcher.ok() ? std::move(*watcher) : nullptr;
  thread_ = std::thread(
      [this, w = std::move(first)]() mutable { Run(std::move(w)); });
}

void NodeAuthorizerGraph::Stop() {
  stopping_ = true;
  {
    MutexLock lock(watcher_mu_);
    if (watcher_ != nullptr) watcher_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

std::string NodeAuthorizerGraph::PodId(std::string_view key) {
  key.remove_prefix(kPodsPrefix.size());
  return std::string(key);
}

NodeAuthorizerGraph::PodEdges NodeAuthorizerGraph::EdgesOf(
    std::string_view stored_pod) {
  thread_local simdjson::dom::parser parser;
  PodEdges edges;
  simdjson::dom::element root;
  if (parser.parse(stored_pod.data(), stored_pod.size()).get(root) !=
      simdjson::SUCCESS) {
    return edges;
  }
  edges.node = std::string(StringAt(root["spec"], "nodeName"));
  if (edges.node.empty()) return edges;
  simdjson::dom::array entries;
  if (root["spec"]["resourceClaims"].get(entries) != simdjson::SUCCESS) {
    return edges;
  }
  for (simdjson::dom::element entry : entries) {
    std::string_view claim;
    if (HasString(entry, "resourceClaimName")) {
      claim = StringAt(entry, "resourceClaimName");
    } else if (HasString(entry, "resourceClaimTemplateName")) {
      claim = GeneratedClaimName(root, StringAt(entry, "name"));
    }
    if (!claim.empty()) edges.claims.emplace_back(claim);
  }
  return edges;
}

bool NodeAuthorizerGraph::PodOnNode(std::string_view namespace_,
                                    std::string_view name,
                                    std::string_view node) const {
  std::string id(namespace_);
  id += '/';
  id += name;
  MutexLock lock(mu_);
  auto it = pods_.find(id);
  return it != pods_.end() && it->second.node == node;
}

bool NodeAuthorizerGraph::ClaimUsedOnNode(std::string_view namespace_,
                                          std::string_view claim,
                                          std::string_view node) const {
  std::string id(namespace_);
  id += '/';
  id += claim;
  MutexLock lock(mu_);
  auto it = claim_nodes_.find(id);
  if (it == claim_nodes_.end()) return false;
  return it->second.contains(std::string(node));
}

int64_t NodeAuthorizerGraph::revision() const {
  MutexLock lock(mu_);
  return revision_;
}

bool NodeAuthorizerGraph::WaitForRevision(
    int64_t revision, std::chrono::milliseconds timeout) const {
  MutexLock lock(mu_);
  return advanced_.WaitFor(
      mu_, timeout, [&]() REQUIRES(mu_) { return revision_ >= revision; });
}

void NodeAuthorizerGraph::SetPod(const std::string& id, PodEdges edges) {
  RemovePod(id);
  if (edges.node.empty()) return;
  const std::string namespace_prefix = id.substr(0, id.find('/') + 1);
  for (const std::string& claim : edges.claims) {
    ++claim_nodes_[namespace_prefix + claim][edges.node];
  }
  pods_.emplace(id, std::move(edges));
}

void NodeAuthorizerGraph::RemovePod(const std::string& id) {
  auto it = pods_.find(id);
  if (it == pods_.end()) return;
  const std::string namespace_prefix = id.substr(0, id.find('/') + 1);
  for (const std::string& claim : it->second.claims) {
    auto claim_it = claim_nodes_.find(namespace_prefix + claim);
    if (claim_it == claim_nodes_.end()) continue;
    auto node_it = claim_it->second.find(it->second.node);
    if (node_it != claim_it->second.end() && --node_it->second == 0) {
      claim_it->second.erase(node_it);
    }
    if (claim_it->second.empty()) claim_nodes_.erase(claim_it);
  }
  pods_.erase(it);
}

void NodeAuthorizerGraph::Advance(int64_t revision) {
  MutexLock lock(mu_);
  if (revision <= revision_) return;
  revision_ = revision;
  advanced_.SignalAll();
}

int64_t NodeAuthorizerGraph::Relist() {
  const store::ListResult pods = store_.List(kPodsPrefix, "", 0);
  std::vector<std::pair<std::string, PodEdges>> parsed;
  parsed.reserve(pods.items.size());
  for (const store::KeyValue& kv : pods.items) {
    parsed.emplace_back(PodId(kv.key), EdgesOf(*kv.value));
  }
  {
    MutexLock lock(mu_);
    pods_.clear();
    claim_nodes_.clear();
    for (auto& [id, edges] : parsed) SetPod(id, std::move(edges));
  }
  Advance(pods.revision);
  return pods.revision;
}

void NodeAuthorizerGraph::Run(std::unique_ptr<store::Watcher> watcher) {
  while (!stopping_) {
    if (watcher == nullptr) {
      auto fresh = store_.Watch(std::string(kPodsPrefix), Relist());
      if (!fresh.ok()) {
        std::this_thread::sleep_for(kRetryPause);
        continue;
      }
      watcher = std::move(*fresh);
    }
    {
      MutexLock lock(watcher_mu_);
      watcher_ = watcher.get();
      if (stopping_) break;
    }
    auto events = watcher->Next(kWatchPoll);
    if (!events.ok()) {
      // Stopped, or the store shut down.
      if (stopping_ || events.status().code() == StatusCode::kCancelled) break;
      // Fell behind the window (or the store failed): start again from a
      // fresh list.
      log::Info(kComponent, "pod watch ended ({}); relisting",
                events.status().message());
      if (events.status().code() != StatusCode::kOutOfRange) {
        std::this_thread::sleep_for(kRetryPause);
      }
      {
        MutexLock lock(watcher_mu_);
        watcher_ = nullptr;
      }
      watcher.reset();
      continue;
    }
    {
      MutexLock lock(mu_);
      for (const store::WatchEvent& event : *events) {
        const std::string id = PodId(event.kv.key);
        if (event.type == store::WatchEvent::Type::kDelete) {
          RemovePod(id);
        } else {
          SetPod(id, EdgesOf(*event.kv.value));
        }
      }
    }
    Advance(watcher->revision());
  }
  MutexLock lock(watcher_mu_);
  watcher_ = nullptr;
}

}  // namespace dralloc::apiserver
