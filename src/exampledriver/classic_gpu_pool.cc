#include "exampledriver/classic_gpu_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace dralloc::exampledriver {
namespace {

constexpr int kMaxGpusPerNode = 128;

std::string GpuName(size_t index) { return fmt::format("gpu-{}", index); }

// "gpu-<i>" → i, or -1.
int GpuIndex(std::string_view name, size_t gpus) {
  constexpr std::string_view kPrefix = "gpu-";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return -1;
  size_t index = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9' || index > gpus) return -1;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index < gpus ? static_cast<int>(index) : -1;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

StatusOr<ClassicParameters> ClassicParameters::FromConfigMapData(
    const std::map<std::string, std::string>* claim_data,
    const std::map<std::string, std::string>* class_data) {
  ClassicParameters out;
  if (class_data != nullptr) {
    for (const auto& [key, value] : *class_data) {
      out.env["admin_" + Lowercase(key)] = value;
    }
  }
  if (claim_data == nullptr) return out;
  for (const auto& [key, value] : *claim_data) {
    if (key != "count") {
      out.env["user_" + Lowercase(key)] = value;
      continue;
    }
    int count = 0;
    const auto [end, error] =
        std::from_chars(value.data(), value.data() + value.size(), count);
    if (error != std::errc() || end != value.data() + value.size() ||
        count < 1 || count > kMaxGpusPerNode) {
      return InvalidArgumentError(fmt::format(
          "claim parameters: data.count: Invalid value: \"{}\": must be a "
          "number of GPUs from 1 to {}",
          value, kMaxGpusPerNode));
    }
    out.count = count;
  }
  return out;
}

std::string ClassicHandle::ToJson() const {
  nlohmann::json out = {{"nodeName", node_name}, {"gpus", gpus}};
  out["env"] = nlohmann::json::object();
  for (const auto& [key, value] : env) out["env"][key] = value;
  return out.dump();
}

StatusOr<ClassicHandle> ClassicHandle::FromJson(std::string_view data) {
  const nlohmann::json parsed = nlohmann::json::parse(data, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return InvalidArgumentError("resource handle: not a JSON object");
  }
  ClassicHandle handle;
  auto node = parsed.find("nodeName");
  if (node == parsed.end() || !node->is_string()) {
    return InvalidArgumentError("resource handle: nodeName: Required value");
  }
  handle.node_name = node->get<std::string>();
  auto gpus = parsed.find("gpus");
  if (gpus == parsed.end() || !gpus->is_array() || gpus->empty()) {
    return InvalidArgumentError("resource handle: gpus: Required value");
  }
  for (size_t i = 0; i < gpus->size(); ++i) {
    if (!(*gpus)[i].is_string()) {
      return InvalidArgumentError(fmt::format(
          "resource handle: gpus[{}]: Invalid value: not a string", i));
    }
    handle.gpus.push_back((*gpus)[i].get<std::string>());
  }
  auto env = parsed.find("env");
  if (env != parsed.end()) {
    if (!env->is_object()) {
      return InvalidArgumentError(
          "resource handle: env: Invalid value: not an object");
    }
    for (const auto& [key, value] : env->items()) {
      if (!value.is_string()) {
        return InvalidArgumentError(fmt::format(
            "resource handle: env.{}: Invalid value: not a string", key));
      }
      handle.env[key] = value.get<std::string>();
    }
  }
  return handle;
}

StatusOr<ClassicGpuPool> ClassicGpuPool::Create(std::vector<std::string> nodes,
                                                int gpus_per_node) {
  if (nodes.empty()) {
    return InvalidArgumentError("--nodes: Required value: at least one node");
  }
  if (gpus_per_node < 1 || gpus_per_node > kMaxGpusPerNode) {
    return InvalidArgumentError(
        fmt::format("--gpus-per-node: Invalid value: {}: must be 1 to {}",
                    gpus_per_node, kMaxGpusPerNode));
  }
  ClassicGpuPool pool;
  for (std::string& node : nodes) {
    if (node.empty()) {
      return InvalidArgumentError("--nodes: Invalid value: an empty node name");
    }
    if (pool.used_.contains(node)) {
      return InvalidArgumentError(
          fmt::format("--nodes: Duplicate value: \"{}\"", node));
    }
    pool.used_.emplace(std::move(node),
                       std::vector<bool>(static_cast<size_t>(gpus_per_node)));
  }
  return pool;
}

int ClassicGpuPool::FreeOn(std::string_view node) const {
  auto it = used_.find(node);
  if (it == used_.end()) return 0;
  return static_cast<int>(
      std::count(it->second.begin(), it->second.end(), false));
}

StatusOr<ClassicHandle> ClassicGpuPool::Allocate(
    const std::string& claim_uid, int count, std::string_view selected_node) {
  if (auto it = by_claim_.find(claim_uid); it != by_claim_.end()) {
    return it->second;
  }
  if (count < 1) {
    return InvalidArgumentError(
        fmt::format("count: Invalid value: {}: must be at least 1", count));
  }
  std::string node(selected_node);
  if (node.empty()) {
    int best = 0;
    for (const auto& [name, gpus] : used_) {
      const int free = FreeOn(name);
      if (free >= count && free > best) {
        best = free;
        node = name;
      }
    }
    if (node.empty()) {
      return ResourceExhaustedError(fmt::format(
          "resources exhausted on all nodes: no node has {} free GPUs", count));
    }
  }
  auto it = used_.find(node);
  if (it == used_.end()) {
    return ResourceExhaustedError(fmt::format(
        "resources exhausted on node \"{}\": the driver has no GPUs there",
        node));
  }
  if (FreeOn(node) < count) {
    return ResourceExhaustedError(fmt::format(
        "resources exhausted on node \"{}\": {} GPUs asked, {} free", node,
        count, FreeOn(node)));
  }
  ClassicHandle handle;
  handle.node_name = node;
  std::vector<bool>& gpus = it->second;
  for (size_t i = 0;
       i < gpus.size() && static_cast<int>(handle.gpus.size()) < count; ++i) {
    if (gpus[i]) continue;
    gpus[i] = true;
    handle.gpus.push_back(GpuName(i));
  }
  by_claim_.emplace(claim_uid, handle);
  return handle;
}

void ClassicGpuPool::Deallocate(const std::string& claim_uid) {
  auto it = by_claim_.find(claim_uid);
  if (it == by_claim_.end()) return;
  std::vector<bool>& gpus = used_.find(it->second.node_name)->second;
  for (const std::string& gpu : it->second.gpus) {
    gpus[static_cast<size_t>(GpuIndex(gpu, gpus.size()))] = false;
  }
  by_claim_.erase(it);
}

Status ClassicGpuPool::Restore(const std::string& claim_uid,
                               const ClassicHandle& handle) {
  if (by_claim_.contains(claim_uid)) return OkStatus();
  auto it = used_.find(handle.node_name);
  if (it == used_.end()) {
    return FailedPreconditionError(fmt::format(
        "claim {}: allocated on node \"{}\", which this driver does not serve",
        claim_uid, handle.node_name));
  }
  std::vector<bool>& gpus = it->second;
  std::set<int> indices;
  for (const std::string& gpu : handle.gpus) {
    const int index = GpuIndex(gpu, gpus.size());
    if (index < 0 || gpus[static_cast<size_t>(index)] ||
        !indices.insert(index).second) {
      return FailedPreconditionError(
          fmt::format("claim {}: {} on node \"{}\" does not exist or is taken",
                      claim_uid, gpu, handle.node_name));
    }
  }
  for (int index : indices) gpus[static_cast<size_t>(index)] = true;
  by_claim_.emplace(claim_uid, handle);
  return OkStatus();
}

std::vector<std::string> ClassicGpuPool::UnsuitableNodes(
    const std::vector<std::string>& potential_nodes, int count) const {
  std::vector<std::string> out;
  for (const std::string& node : potential_nodes) {
    if (FreeOn(node) < count) out.push_back(node);
  }
  return out;
}

api::NodeSelector ClassicGpuPool::OnNode(std::string_view node) {
  api::NodeSelectorTerm term;
  term.match_fields.push_back({"metadata.name", "In", {std::string(node)}});
  return api::NodeSelector{{term}};
}

}  // namespace dralloc::exampledriver
