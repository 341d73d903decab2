#include "patch/strategic_merge_patch.h"

#include <fmt/format.h>

#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dralloc::patch {

namespace {

constexpr std::string_view kPatchDirective = "$patch";
constexpr std::string_view kRetainKeysDirective = "$retainKeys";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveListPrefix =
    "$deleteFromPrimitiveList/";

bool IsDirectiveKey(std::string_view key) {
  return key == kPatchDirective || key == kRetainKeysDirective ||
         key.starts_with(kSetElementOrderPrefix) ||
         key.starts_with(kDeleteFromPrimitiveListPrefix);
}

std::string Abbreviated(const Json& value) {
  std::string text = DumpCompact(value);
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

Status UnknownPatchType(const Json& directive, const Json& holder,
                        std::string_view where) {
  return InvalidArgumentError(fmt::format("unknown patch type: {} in {}: {}",
                                          Abbreviated(directive), where,
                                          Abbreviated(holder)));
}

// One item of a list being merged, with the identity used for matching and
// ordering (the merge-key value, or the scalar itself).
struct ListItem {
  Json value;
  std::string identity;  // compact JSON of the key; "" when it has none
};

class StrategicMerger {
 public:
  explicit StrategicMerger(const PatchSchema& schema) : schema_(schema) {}

  // Merges the object `patch` into `original` (made an object if it is not).
  // Sets *remove when the patch asks for the map to be deleted.
  Status MergeMap(Json& original, const Json& patch, const std::string& path,
                  bool* remove) const {
    *remove = false;
    if (!original.is_object()) original = Json::object();
    if (auto directive = patch.find(kPatchDirective);
        directive != patch.end()) {
      if (*directive == "delete") {
        *remove = true;
        return OkStatus();
      }
      if (*directive == "replace") {
        Json rest = patch;
        rest.erase(std::string(kPatchDirective));
        Json replaced = Json::object();
        bool ignored = false;
        RETURN_IF_ERROR(MergeMap(replaced, rest, path, &ignored));
        original = std::move(replaced);
        return OkStatus();
      }
      if (*directive != "merge") {
        return UnknownPatchType(*directive, patch, "map");
      }
    }
    RETURN_IF_ERROR(ApplyRetainKeys(original, patch));
    RETURN_IF_ERROR(ApplyPrimitiveDeletions(original, patch, path));

    for (const auto& [key, patch_value] : patch.items()) {
      if (IsDirectiveKey(key)) continue;
      const std::string child_path = JoinSchemaPath(path, key);
      if (patch_value.is_null()) {
        original.erase(key);
        continue;
      }
      auto existing = original.find(key);
      if (patch_value.is_object()) {
        Json merged = (existing != original.end() && existing->is_object())
                          ? std::move(*existing)
                          : Json::object();
        bool remove_child = false;
        RETURN_IF_ERROR(
            MergeMap(merged, patch_value, child_path, &remove_child));
        if (remove_child) {
          original.erase(key);
        } else {
          original[key] = std::move(merged);
        }
        continue;
      }
      if (patch_value.is_array()) {
        const ListRule* rule = schema_.FindList(child_path);
        if (rule == nullptr || !rule->smp_merge) {
          original[key] = patch_value;  // atomic: replaced as it is
          continue;
        }
        Json merged = (existing != original.end() && existing->is_array())
                          ? std::move(*existing)
                          : Json::array();
        RETURN_IF_ERROR(MergeList(merged, patch_value, FindOrder(patch, key),
                                  *rule, child_path));
        original[key] = std::move(merged);
        continue;
      }
      original[key] = patch_value;
    }

    // $setElementOrder for a list the patch does not otherwise touch
    // reorders the original list.
    for (const auto& [key, order] : patch.items()) {
      if (!key.starts_with(kSetElementOrderPrefix)) continue;
      if (!order.is_array()) {
        return InvalidArgumentError(
            fmt::format("invalid patch: {} must be a list", key));
      }
      const std::string field = key.substr(kSetElementOrderPrefix.size());
      if (patch.contains(field)) continue;
      auto existing = original.find(field);
      const ListRule* rule = schema_.FindList(JoinSchemaPath(path, field));
      if (existing == original.end() || !existing->is_array() ||
          rule == nullptr || !rule->smp_merge) {
        continue;
      }
      RETURN_IF_ERROR(MergeList(*existing, Json::array(), &order, *rule,
                                JoinSchemaPath(path, field)));
    }
    return OkStatus();
  }

 private:
  static const Json* FindOrder(const Json& patch, const std::string& field) {
    auto it = patch.find(std::string(kSetElementOrderPrefix) + field);
    return it == patch.end() ? nullptr : &*it;
  }

  static Status ApplyRetainKeys(Json& original, const Json& patch) {
    auto retain = patch.find(kRetainKeysDirective);
    if (retain == patch.end()) return OkStatus();
    if (!retain->is_array()) {
      return InvalidArgumentError("invalid patch: $retainKeys must be a list");
    }
    std::unordered_set<std::string> kept;
    for (const Json& name : *retain) {
      if (!name.is_string()) {
        return InvalidArgumentError(
            "invalid patch: $retainKeys must be a list of strings");
      }
      kept.insert(name.get<std::string>());
    }
    for (auto it = original.begin(); it != original.end();) {
      if (kept.contains(it.key())) {
        ++it;
      } else {
        it = original.erase(it);
      }
    }
    return OkStatus();
  }

  Status ApplyPrimitiveDeletions(Json& original, const Json& patch,
                                 const std::string& path) const {
    for (const auto& [key, values] : patch.items()) {
      if (!key.starts_with(kDeleteFromPrimitiveListPrefix)) continue;
      if (!values.is_array()) {
        return InvalidArgumentError(
            fmt::format("invalid patch: {} must be a list", key));
      }
      const std::string field =
          key.substr(kDeleteFromPrimitiveListPrefix.size());
      auto list = original.find(field);
      if (list == original.end() || !list->is_array()) continue;
      (void)path;
      Json kept = Json::array();
      for (Json& item : *list) {
        bool deleted = false;
        for (const Json& value : values) deleted |= JsonEqual(item, value);
        if (!deleted) kept.push_back(std::move(item));
      }
      *list = std::move(kept);
    }
    return OkStatus();
  }

  // Merges `patch_list` into the merge list `target` (in place).
  Status MergeList(Json& target, const Json& patch_list, const Json* order,
                   const ListRule& rule, const std::string& path) const {
    bool has_objects = false;
    bool has_scalars = false;
    for (const Json& item : patch_list) {
      (item.is_object() ? has_objects : has_scalars) = true;
      if (item.is_array()) {
        return InvalidArgumentError(fmt::format(
            "invalid patch for {}: lists of lists cannot be merged", path));
      }
    }
    if (has_objects && has_scalars) {
      return InvalidArgumentError(fmt::format(
          "invalid patch for {}: list items must all be objects or all be "
          "scalars",
          path));
    }
    if (order != nullptr && !order->is_array()) {
      return InvalidArgumentError(fmt::format(
          "invalid patch: $setElementOrder/{} must be a list", path));
    }
    const bool by_key = has_objects || (rule.kind == ListKind::kMap &&
                                        !has_scalars && !rule.keys.empty());
    if (by_key) return MergeListOfMaps(target, patch_list, order, rule, path);
    return MergeListOfScalars(target, patch_list, order);
  }

  Status MergeListOfMaps(Json& target, const Json& patch_list,
                         const Json* order, const ListRule& rule,
                         const std::string& path) const {
    if (rule.keys.empty()) {
      return InvalidArgumentError(
          fmt::format("cannot merge lists without merge key for {}", path));
    }
    const std::string& merge_key = rule.keys[0];
    const std::string item_path = path + "[]";
    auto identity_of = [&](const Json& item) -> std::string {
      if (!item.is_object()) return "";
      auto key = item.find(merge_key);
      return key == item.end() ? "" : DumpCompact(*key);
    };
    auto missing_key = [&](const Json& item) {
      return InvalidArgumentError(
          fmt::format("map: {} does not contain declared merge key: {}",
                      Abbreviated(item), merge_key));
    };

    // Special elements first: deletions, and whether to replace the list.
    bool replace = false;
    std::vector<const Json*> regular;
    for (const Json& item : patch_list) {
      auto directive = item.find(kPatchDirective);
      if (directive == item.end()) {
        regular.push_back(&item);
        continue;
      }
      if (*directive == "delete") {
        std::string identity = identity_of(item);
        if (identity.empty()) return missing_key(item);
        Json kept = Json::array();
        for (Json& existing : target) {
          if (identity_of(existing) != identity) {
            kept.push_back(std::move(existing));
          }
        }
        target = std::move(kept);
      } else if (*directive == "replace") {
        replace = true;
      } else if (*directive == "merge") {
        return InvalidArgumentError(
            "merging lists cannot yet be specified in the patch");
      } else {
        return UnknownPatchType(*directive, item, "list item");
      }
    }
    if (replace) {
      Json replaced = Json::array();
      for (const Json* item : regular) {
        Json fresh = Json::object();
        bool remove = false;
        RETURN_IF_ERROR(MergeMap(fresh, *item, item_path, &remove));
        if (!remove) replaced.push_back(std::move(fresh));
      }
      target = std::move(replaced);
      return OkStatus();
    }

    std::vector<ListItem> items;
    items.reserve(target.size() + regular.size());
    std::unordered_map<std::string, size_t> original_index;
    for (Json& existing : target) {
      std::string identity = identity_of(existing);
      if (!identity.empty()) {
        original_index.emplace(identity, items.size());
      }
      items.push_back({std::move(existing), std::move(identity)});
    }
    std::unordered_map<std::string, size_t> position = original_index;
    std::vector<std::string> patch_order;
    for (const Json* item : regular) {
      std::string identity = identity_of(*item);
      if (identity.empty()) return missing_key(*item);
      patch_order.push_back(identity);
      auto found = position.find(identity);
      bool remove = false;
      if (found != position.end()) {
        RETURN_IF_ERROR(
            MergeMap(items[found->second].value, *item, item_path, &remove));
      } else {
        Json fresh = Json::object();
        RETURN_IF_ERROR(MergeMap(fresh, *item, item_path, &remove));
        position.emplace(identity, items.size());
        items.push_back({std::move(fresh), identity});
      }
    }
    if (order != nullptr) {
      patch_order.clear();
      for (const Json& entry : *order) {
        std::string identity = identity_of(entry);
        if (identity.empty()) return missing_key(entry);
        patch_order.push_back(std::move(identity));
      }
    }
    target = Interleave(std::move(items), patch_order, original_index);
    return OkStatus();
  }

  static Status MergeListOfScalars(Json& target, const Json& patch_list,
                                   const Json* order) {
    std::vector<ListItem> items;
    std::unordered_map<std::string, size_t> original_index;
    std::unordered_set<std::string> seen;
    for (Json& existing : target) {
      std::string identity = DumpCompact(existing);
      if (!seen.insert(identity).second) continue;  // deduplicate
      original_index.emplace(identity, items.size());
      items.push_back({std::move(existing), std::move(identity)});
    }
    std::vector<std::string> patch_order;
    for (const Json& value : patch_list) {
      std::string identity = DumpCompact(value);
      patch_order.push_back(identity);
      if (seen.insert(identity).second) items.push_back({value, identity});
    }
    if (order != nullptr) {
      patch_order.clear();
      for (const Json& value : *order) {
        patch_order.push_back(DumpCompact(value));
      }
    }
    target = Interleave(std::move(items), patch_order, original_index);
    return OkStatus();
  }

  // Upstream's element order: the items the patch names (`patch_order`) in
  // that order, merged with the other items in their original order; at
  // each step a named item goes first only if it was in the original list
  // before the next other item.
  static Json Interleave(
      std::vector<ListItem> items, const std::vector<std::string>& patch_order,
      const std::unordered_map<std::string, size_t>& original_index) {
    std::unordered_map<std::string, size_t> order_index;
    for (size_t i = 0; i < patch_order.size(); ++i) {
      order_index.emplace(patch_order[i], i);
    }
    std::vector<ListItem*> named;
    std::vector<ListItem*> others;
    for (ListItem& item : items) {
      if (!item.identity.empty() && order_index.contains(item.identity)) {
        named.push_back(&item);
      } else {
        others.push_back(&item);
      }
    }
    std::stable_sort(
        named.begin(), named.end(), [&](const ListItem* a, const ListItem* b) {
          return order_index.at(a->identity) < order_index.at(b->identity);
        });
    auto index_of = [&](const ListItem* item) -> std::optional<size_t> {
      auto it = original_index.find(item->identity);
      if (item->identity.empty() || it == original_index.end()) {
        return std::nullopt;
      }
      return it->second;
    };
    Json result = Json::array();
    size_t n = 0;
    size_t o = 0;
    while (n < named.size() || o < others.size()) {
      bool take_named;
      if (o >= others.size()) {
        take_named = true;
      } else if (n >= named.size()) {
        take_named = false;
      } else {
        auto named_index = index_of(named[n]);
        auto other_index = index_of(others[o]);
        take_named = named_index && other_index && *named_index < *other_index;
      }
      ListItem* next = take_named ? named[n++] : others[o++];
      result.push_back(std::move(next->value));
    }
    return result;
  }

  const PatchSchema& schema_;
};

}  // namespace

StatusOr<Json> ApplyStrategicMergePatch(const Json& original, const Json& patch,
                                        const PatchSchema& schema) {
  if (!patch.is_object()) {
    return InvalidArgumentError(fmt::format(
        "invalid strategic merge patch: the patch must be a JSON object, got "
        "{}",
        patch.type_name()));
  }
  RETURN_IF_ERROR(CheckNestingDepth(patch, "strategic merge patch"));
  try {
    Json result = original.is_object() ? original : Json::object();
    bool remove = false;
    RETURN_IF_ERROR(
        StrategicMerger(schema).MergeMap(result, patch, "", &remove));
    if (remove) return Json::object();
    return result;
  } catch (const std::exception& e) {
    return InternalError(std::string("applying strategic merge patch: ") +
                         e.what());
  }
}

}  // namespace dralloc::patch
