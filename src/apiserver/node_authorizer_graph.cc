#include "apiserver/node_authorizer_graph.h"

#include <simdjson.h>

#include <functional>
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

// A member of a JSON value that may itself be missing (a failed lookup:
// no exception, "" or false).
using Value = simdjson::simdjson_result<simdjson::dom::element>;

std::string_view StringAt(Value object, const char* field) {
  std::string_view value;
  if (object[field].get(value) != simdjson::SUCCESS) return {};
  return value;
}

bool HasString(Value object, const char* field) {
  std::string_view value;
  return object[field].get(value) == simdjson::SUCCESS;
}

std::string_view StringAt(simdjson::dom::element object, const char* field) {
  return StringAt(Value(simdjson::dom::element(object)), field);
}

bool HasString(simdjson::dom::element object, const char* field) {
  return HasString(Value(simdjson::dom::element(object)), field);
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

// The used_on_ key of an object.
std::string UseKey(std::string_view resource, std::string_view namespace_,
                   std::string_view name) {
  std::string key(resource);
  key += '/';
  key += namespace_;
  key += '/';
  key += name;
  return key;
}

// The namespace of a pod id "namespace/name".
std::string_view NamespaceOf(std::string_view pod_id) {
  return pod_id.substr(0, pod_id.find('/'));
}

using UseFn = std::function<void(std::string_view, std::string_view)>;

void AddClaims(simdjson::dom::element root, const UseFn& use) {
  simdjson::dom::array entries;
  if (root["spec"]["resourceClaims"].get(entries) == simdjson::SUCCESS) {
    for (simdjson::dom::element entry : entries) {
      if (HasString(entry, "resourceClaimName")) {
        use("resourceclaims", StringAt(entry, "resourceClaimName"));
      } else if (HasString(entry, "resourceClaimTemplateName")) {
        use("resourceclaims",
            GeneratedClaimName(root, StringAt(entry, "name")));
      }
    }
  }
  // KEP-5004: the claim the scheduler made for the pod's extended
  // resources, which the node agent prepares too.
  simdjson::dom::element extended;
  if (root["status"]["extendedResourceClaimStatus"].get(extended) ==
      simdjson::SUCCESS) {
    use("resourceclaims", StringAt(extended, "resourceClaimName"));
  }
}

// Secret and configMap volumes, and the secrets and config maps of
// projected volumes.
void AddVolumeSources(Value spec, const UseFn& use) {
  simdjson::dom::array volumes;
  if (spec["volumes"].get(volumes) != simdjson::SUCCESS) return;
  for (simdjson::dom::element volume : volumes) {
    use("secrets", StringAt(volume["secret"], "secretName"));
    use("configmaps", StringAt(volume["configMap"], "name"));
    simdjson::dom::array sources;
    if (volume["projected"]["sources"].get(sources) != simdjson::SUCCESS) {
      continue;
    }
    for (simdjson::dom::element source : sources) {
      use("secrets", StringAt(source["secret"], "name"));
      use("configmaps", StringAt(source["configMap"], "name"));
    }
  }
}

// env valueFrom and envFrom references of every kind of container.
void AddContainerReferences(Value spec, const UseFn& use) {
  for (const char* list :
       {"initContainers", "containers", "ephemeralContainers"}) {
    simdjson::dom::array containers;
    if (spec[list].get(containers) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element container : containers) {
      simdjson::dom::array env;
      if (container["env"].get(env) == simdjson::SUCCESS) {
        for (simdjson::dom::element var : env) {
          const Value from = var["valueFrom"];
          use("secrets", StringAt(from["secretKeyRef"], "name"));
          use("configmaps", StringAt(from["configMapKeyRef"], "name"));
        }
      }
      simdjson::dom::array env_from;
      if (container["envFrom"].get(env_from) == simdjson::SUCCESS) {
        for (simdjson::dom::element source : env_from) {
          use("secrets", StringAt(source["secretRef"], "name"));
          use("configmaps", StringAt(source["configMapRef"], "name"));
        }
      }
    }
  }
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
  const auto use = [&](std::string_view resource, std::string_view name) {
    if (!name.empty()) edges.uses.emplace_back(resource, name);
  };
  AddClaims(root, use);
  AddVolumeSources(root["spec"], use);
  AddContainerReferences(root["spec"], use);
  simdjson::dom::array pull_secrets;
  if (root["spec"]["imagePullSecrets"].get(pull_secrets) == simdjson::SUCCESS) {
    for (simdjson::dom::element secret : pull_secrets) {
      use("secrets", StringAt(secret, "name"));
    }
  }
  use("serviceaccounts", StringAt(root["spec"], "serviceAccountName"));
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

bool NodeAuthorizerGraph::UsedOnNode(std::string_view resource,
                                     std::string_view namespace_,
                                     std::string_view name,
                                     std::string_view node) const {
  const std::string key = UseKey(resource, namespace_, name);
  MutexLock lock(mu_);
  auto it = used_on_.find(key);
  if (it == used_on_.end()) return false;
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
  const std::string_view namespace_ = NamespaceOf(id);
  for (const auto& [resource, name] : edges.uses) {
    ++used_on_[UseKey(resource, namespace_, name)][edges.node];
  }
  pods_.emplace(id, std::move(edges));
}

void NodeAuthorizerGraph::RemovePod(const std::string& id) {
  auto it = pods_.find(id);
  if (it == pods_.end()) return;
  const std::string_view namespace_ = NamespaceOf(id);
  for (const auto& [resource, name] : it->second.uses) {
    auto used = used_on_.find(UseKey(resource, namespace_, name));
    if (used == used_on_.end()) continue;
    auto node_it = used->second.find(it->second.node);
    if (node_it != used->second.end() && --node_it->second == 0) {
      used->second.erase(node_it);
    }
    if (used->second.empty()) used_on_.erase(used);
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
    used_on_.clear();
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
