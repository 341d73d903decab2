#include "patch/internal/field_walker.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace dralloc::patch::internal {

StatusOr<std::string> FieldWalker::ItemToken(const Json& item,
                                             const ListRule& rule,
                                             const std::string& schema_path) {
  if (rule.kind == ListKind::kSet) {
    if (item.is_structured()) {
      return InvalidArgumentError(
          fmt::format(".{}: set list items must be scalars, got {}",
                      schema_path, item.type_name()));
    }
    return "v:" + DumpCompact(item);
  }
  if (!item.is_object()) {
    return InvalidArgumentError(
        fmt::format(".{}: associative list items must be objects, got {}",
                    schema_path, item.type_name()));
  }
  std::vector<std::string> names = rule.keys;
  std::sort(names.begin(), names.end());
  Json key = Json::object();
  for (const std::string& name : names) {
    auto field = item.find(name);
    if (field != item.end() && !field->is_null()) key[name] = *field;
  }
  if (key.empty()) {
    return InvalidArgumentError(fmt::format(
        ".{}: associative list with keys has an element that omits key "
        "field {}",
        schema_path, Quoted(rule.keys.front())));
  }
  return "k:" + DumpCompact(key);
}

StatusOr<std::vector<std::string>> FieldWalker::ItemTokens(
    const Json& list, const ListRule& rule,
    const std::string& schema_path) const {
  std::vector<std::string> tokens;
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    StatusOr<std::string> token = ItemToken(list[i], rule, schema_path);
    if (!token.ok()) {
      if (!lenient_) return token.status();
      tokens.push_back("#" + std::to_string(i));  // never a real token
      continue;
    }
    if (!seen.insert(*token).second) {
      if (!lenient_) {
        return InvalidArgumentError(
            fmt::format(".{}: duplicate entries for key {}", schema_path,
                        HumanPath({*token})));
      }
      tokens.push_back("#" + std::to_string(i));
      continue;
    }
    tokens.push_back(*std::move(token));
  }
  return tokens;
}

Status FieldWalker::Collect(const Json& value, FieldPath& path,
                            const std::string& schema_path, FieldSet& out,
                            bool containers) const {
  if (value.is_object()) {
    if (value.empty() || containers) Insert(out, path);
    for (const auto& [key, child] : value.items()) {
      path.push_back("f:" + key);
      Status status = Collect(child, path, JoinSchemaPath(schema_path, key),
                              out, containers);
      path.pop_back();
      RETURN_IF_ERROR(status);
    }
    return OkStatus();
  }
  const ListRule* rule =
      value.is_array() ? MergeableRule(schema_, schema_path) : nullptr;
  if (rule == nullptr) {
    Insert(out, path);
    return OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<std::string> tokens,
                   ItemTokens(value, *rule, schema_path));
  for (size_t i = 0; i < value.size(); ++i) {
    if (tokens[i].starts_with("#")) continue;
    path.push_back(tokens[i]);
    Status status =
        Collect(value[i], path, schema_path + "[]", out, containers);
    Insert(out, path);
    path.pop_back();
    RETURN_IF_ERROR(status);
  }
  return OkStatus();
}

void FieldWalker::Compare(const Json* lhs, const Json* rhs, FieldPath& path,
                          const std::string& schema_path,
                          Comparison& out) const {
  if (lhs == nullptr && rhs == nullptr) return;
  if (lhs == nullptr || rhs == nullptr) {
    FieldSet& target = lhs == nullptr ? out.added : out.removed;
    (void)Collect(lhs == nullptr ? *rhs : *lhs, path, schema_path, target,
                  /*containers=*/true);
    Insert(target, path);
    return;
  }
  if (lhs->is_object() && rhs->is_object()) {
    for (const auto& [key, child] : lhs->items()) {
      auto other = rhs->find(key);
      path.push_back("f:" + key);
      Compare(&child, other == rhs->end() ? nullptr : &*other, path,
              JoinSchemaPath(schema_path, key), out);
      path.pop_back();
    }
    for (const auto& [key, child] : rhs->items()) {
      if (lhs->contains(key)) continue;
      path.push_back("f:" + key);
      Compare(nullptr, &child, path, JoinSchemaPath(schema_path, key), out);
      path.pop_back();
    }
    return;
  }
  const ListRule* rule = lhs->is_array() && rhs->is_array()
                             ? MergeableRule(schema_, schema_path)
                             : nullptr;
  if (rule != nullptr) {
    auto lhs_tokens = ItemTokens(*lhs, *rule, schema_path);
    auto rhs_tokens = ItemTokens(*rhs, *rule, schema_path);
    if (lhs_tokens.ok() && rhs_tokens.ok()) {
      std::unordered_map<std::string, const Json*> rhs_items;
      for (size_t i = 0; i < rhs->size(); ++i) {
        rhs_items.emplace((*rhs_tokens)[i], &(*rhs)[i]);
      }
      std::unordered_set<std::string> lhs_seen;
      const std::string item_path = schema_path + "[]";
      for (size_t i = 0; i < lhs->size(); ++i) {
        const std::string& token = (*lhs_tokens)[i];
        lhs_seen.insert(token);
        if (token.starts_with("#")) continue;
        auto match = rhs_items.find(token);
        path.push_back(token);
        Compare(&(*lhs)[i], match == rhs_items.end() ? nullptr : match->second,
                path, item_path, out);
        path.pop_back();
      }
      for (size_t i = 0; i < rhs->size(); ++i) {
        const std::string& token = (*rhs_tokens)[i];
        if (token.starts_with("#") || lhs_seen.contains(token)) continue;
        path.push_back(token);
        Compare(nullptr, &(*rhs)[i], path, item_path, out);
        path.pop_back();
      }
      return;
    }
  }
  if (JsonEqual(*lhs, *rhs)) return;
  Insert(out.modified, path);
  const bool same_shape = lhs->is_object() == rhs->is_object() &&
                          lhs->is_array() == rhs->is_array();
  if (!same_shape) {
    // The type changed: what was below is gone, what is below is new.
    FieldSet below_lhs;
    FieldSet below_rhs;
    (void)Collect(*lhs, path, schema_path, below_lhs, /*containers=*/true);
    (void)Collect(*rhs, path, schema_path, below_rhs, /*containers=*/true);
    below_lhs.erase(path);
    below_rhs.erase(path);
    out.removed.insert(below_lhs.begin(), below_lhs.end());
    out.added.insert(below_rhs.begin(), below_rhs.end());
  }
}

Json FieldWalker::Merge(const Json& live, const Json& config,
                        const std::string& schema_path) const {
  if (live.is_object() && config.is_object()) {
    Json result = live;
    for (const auto& [key, value] : config.items()) {
      auto existing = result.find(key);
      if (existing == result.end()) {
        result[key] = value;
      } else {
        *existing = Merge(*existing, value, JoinSchemaPath(schema_path, key));
      }
    }
    return result;
  }
  const ListRule* rule = live.is_array() && config.is_array()
                             ? MergeableRule(schema_, schema_path)
                             : nullptr;
  if (rule == nullptr) return config;
  FieldWalker lenient(schema_, /*lenient=*/true);
  auto live_tokens = lenient.ItemTokens(live, *rule, schema_path);
  auto config_tokens = lenient.ItemTokens(config, *rule, schema_path);
  if (!live_tokens.ok() || !config_tokens.ok()) return config;
  std::unordered_map<std::string, size_t> config_index;
  for (size_t i = 0; i < config.size(); ++i) {
    config_index.emplace((*config_tokens)[i], i);
  }
  std::unordered_map<std::string, size_t> live_index;
  for (size_t i = 0; i < live.size(); ++i) {
    live_index.emplace((*live_tokens)[i], i);
  }
  const std::string item_path = schema_path + "[]";
  Json result = Json::array();
  size_t next_config = 0;
  auto emit_config_until = [&](size_t last) {
    for (; next_config <= last && next_config < config.size(); ++next_config) {
      auto match = live_index.find((*config_tokens)[next_config]);
      result.push_back(
          match == live_index.end()
              ? config[next_config]
              : Merge(live[match->second], config[next_config], item_path));
    }
  };
  // Live-only items keep their place; shared and new items follow the
  // order of the applied configuration.
  for (size_t i = 0; i < live.size(); ++i) {
    auto in_config = config_index.find((*live_tokens)[i]);
    if (in_config == config_index.end()) {
      result.push_back(live[i]);
    } else if (in_config->second >= next_config) {
      emit_config_until(in_config->second);
    }
  }
  emit_config_until(config.size());
  return result;
}

void FieldWalker::RemoveField(Json& object, const FieldPath& path,
                              const FieldSet& owned) const {
  struct Step {
    Json* container;
    std::string key;   // object member, or
    size_t index = 0;  // array position
  };
  std::vector<Step> steps;
  Json* node = &object;
  std::string schema_path;
  for (const std::string& token : path) {
    if (token.starts_with("f:")) {
      std::string key = token.substr(2);
      if (!node->is_object()) return;
      auto it = node->find(key);
      if (it == node->end()) return;
      steps.push_back({node, key});
      node = &*it;
      schema_path = JoinSchemaPath(schema_path, key);
      continue;
    }
    const ListRule* rule = MergeableRule(schema_, schema_path);
    if (!node->is_array() || rule == nullptr) return;
    std::optional<size_t> found;
    for (size_t i = 0; i < node->size() && !found; ++i) {
      auto item_token = ItemToken((*node)[i], *rule, schema_path);
      if (item_token.ok() && *item_token == token) found = i;
    }
    if (!found) return;
    steps.push_back({node, "", *found});
    node = &(*node)[*found];
    schema_path += "[]";
  }
  for (size_t depth = steps.size(); depth > 0; --depth) {
    Step& step = steps[depth - 1];
    if (step.container->is_object()) {
      step.container->erase(step.key);
    } else {
      step.container->erase(step.index);
    }
    // Stop unless the container is now empty, unowned and not the root.
    if (depth == 1 || !step.container->empty()) break;
    FieldPath container_path(path.begin(), path.begin() + (depth - 1));
    if (owned.contains(container_path)) break;
  }
}

}  // namespace dralloc::patch::internal
