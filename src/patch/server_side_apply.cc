#include "patch/server_side_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "patch/internal/field_set.h"
#include "patch/internal/field_walker.h"

namespace dralloc::patch {

namespace {

using internal::Difference;
using internal::FieldPath;
using internal::FieldSet;
using internal::FieldWalker;
using internal::HasOwnedDescendant;
using internal::HumanPath;
using internal::Insert;
using internal::Intersection;
using internal::Quoted;
using internal::RemoveIgnored;
using internal::StartsWith;

constexpr std::string_view kApply = "Apply";
constexpr std::string_view kUpdate = "Update";

// One metadata.managedFields entry.
struct ManagerEntry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::string time;
  std::string subresource;
  FieldSet fields;
};

// Upstream identifies a manager by name, operation and subresource, plus
// the apiVersion for Update operations.
bool SameManager(const ManagerEntry& a, const ManagerEntry& b) {
  return a.manager == b.manager && a.operation == b.operation &&
         a.subresource == b.subresource &&
         (a.operation == kApply || a.api_version == b.api_version);
}

void DecodeFieldsV1(const Json& node, FieldPath& path, FieldSet& out) {
  for (const auto& [key, child] : node.items()) {
    if (key == ".") {
      Insert(out, path);
      continue;
    }
    path.push_back(key);
    if (child.is_object() && !child.empty()) {
      DecodeFieldsV1(child, path, out);
    } else {
      Insert(out, path);
    }
    path.pop_back();
  }
}

std::string StringMember(const Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// Entries of metadata.managedFields; malformed entries are skipped.
std::vector<ManagerEntry> DecodeManagedFields(const Json& object) {
  std::vector<ManagerEntry> entries;
  if (!object.is_object()) return entries;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return entries;
  auto managed = metadata->find("managedFields");
  if (managed == metadata->end() || !managed->is_array()) return entries;
  for (const Json& raw : *managed) {
    if (!raw.is_object()) continue;
    ManagerEntry entry{
        StringMember(raw, "manager"),     StringMember(raw, "operation"),
        StringMember(raw, "apiVersion"),  StringMember(raw, "time"),
        StringMember(raw, "subresource"), {}};
    if (entry.operation != kApply && entry.operation != kUpdate) continue;
    auto fields = raw.find("fieldsV1");
    if (fields != raw.end() && fields->is_object()) {
      FieldPath path;
      DecodeFieldsV1(*fields, path, entry.fields);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// FieldsV1 tree: "." first for an owned element with owned children, then
// the children in token order.
struct FieldsNode {
  bool owned = false;
  std::map<std::string, FieldsNode> children;
};

Json EncodeFieldsNode(const FieldsNode& node) {
  Json out = Json::object();
  if (node.owned && !node.children.empty()) out["."] = Json::object();
  for (const auto& [token, child] : node.children) {
    out[token] = EncodeFieldsNode(child);
  }
  return out;
}

Json EncodeFieldsV1(const FieldSet& fields) {
  FieldsNode root;
  for (const FieldPath& path : fields) {
    FieldsNode* node = &root;
    for (const std::string& token : path) node = &node->children[token];
    node->owned = true;
  }
  return EncodeFieldsNode(root);
}

Json EncodeManagerEntry(const ManagerEntry& entry) {
  Json raw = Json::object();
  raw["manager"] = entry.manager;
  raw["operation"] = entry.operation;
  raw["apiVersion"] = entry.api_version;
  if (!entry.time.empty()) raw["time"] = entry.time;
  raw["fieldsType"] = "FieldsV1";
  raw["fieldsV1"] = EncodeFieldsV1(entry.fields);
  if (!entry.subresource.empty()) raw["subresource"] = entry.subresource;
  return raw;
}

// Writes `entries` (those with fields) to metadata.managedFields in
// upstream's order: operation, time, manager, apiVersion, subresource.
void EncodeManagedFields(std::vector<ManagerEntry> entries, Json& object) {
  std::erase_if(entries,
                [](const ManagerEntry& e) { return e.fields.empty(); });
  std::stable_sort(entries.begin(), entries.end(),
                   [](const ManagerEntry& a, const ManagerEntry& b) {
                     return std::tie(a.operation, a.time, a.manager,
                                     a.api_version, a.subresource) <
                            std::tie(b.operation, b.time, b.manager,
                                     b.api_version, b.subresource);
                   });
  if (!object.is_object()) return;
  if (entries.empty()) {
    auto metadata = object.find("metadata");
    if (metadata != object.end() && metadata->is_object()) {
      metadata->erase("managedFields");
    }
    return;
  }
  Json managed = Json::array();
  for (const ManagerEntry& entry : entries) {
    managed.push_back(EncodeManagerEntry(entry));
  }
  Json& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  metadata["managedFields"] = std::move(managed);
}

Json WithoutManagedFields(Json object) {
  if (object.is_object()) {
    auto metadata = object.find("metadata");
    if (metadata != object.end() && metadata->is_object()) {
      metadata->erase("managedFields");
    }
  }
  return object;
}

// Drops null members (recursively, including inside list items): a null in
// an applied configuration means "not set".
void DropNulls(Json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        DropNulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (Json& item : value) DropNulls(item);
  }
}

std::vector<ManagerEntry>::iterator FindManager(
    std::vector<ManagerEntry>& entries, const ManagerEntry& wanted) {
  return std::find_if(
      entries.begin(), entries.end(),
      [&](const ManagerEntry& e) { return SameManager(e, wanted); });
}

StatusOr<ApplyOutcome> ServerSideApplyUnchecked(const Json& live,
                                                const Json& applied,
                                                const PatchSchema& schema,
                                                const ApplyOptions& options) {
  Json config = applied;
  DropNulls(config);
  if (auto metadata = config.find("metadata");
      metadata != config.end() && metadata->is_object()) {
    for (const char* ignored : {"managedFields", "resourceVersion", "uid",
                                "creationTimestamp", "generation"}) {
      metadata->erase(ignored);
    }
  }
  const FieldWalker strict(schema, /*lenient=*/false);
  const FieldWalker walker(schema, /*lenient=*/true);

  FieldSet applied_fields;
  FieldPath path;
  RETURN_IF_ERROR(strict.Collect(config, path, "", applied_fields));
  RemoveIgnored(applied_fields);

  const bool exists = live.is_object();
  std::vector<ManagerEntry> entries =
      exists ? DecodeManagedFields(live) : std::vector<ManagerEntry>{};
  const Json live_object =
      exists ? WithoutManagedFields(live) : Json(Json::object());

  Json merged = walker.Merge(live_object, config, "");

  ManagerEntry me{options.manager, std::string(kApply), options.api_version,
                  options.now,     options.subresource, {}};
  FieldSet last_applied;
  if (auto mine = FindManager(entries, me); mine != entries.end()) {
    last_applied = std::move(mine->fields);
    entries.erase(mine);
  }
  me.fields = applied_fields;

  // Prune what this manager applied before, omits now, and nobody owns.
  if (!last_applied.empty()) {
    FieldSet owned = me.fields;
    for (const ManagerEntry& entry : entries) {
      owned.insert(entry.fields.begin(), entry.fields.end());
    }
    std::vector<FieldPath> removed_paths;
    for (const FieldPath& field : last_applied) {
      if (HasOwnedDescendant(owned, field)) continue;
      if (!removed_paths.empty() && StartsWith(field, removed_paths.back())) {
        continue;  // already gone with its parent
      }
      removed_paths.push_back(field);
      walker.RemoveField(merged, field, owned);
    }
  }

  FieldWalker::Comparison comparison;
  walker.Compare(&live_object, &merged, path, "", comparison);
  RemoveIgnored(comparison.modified);
  RemoveIgnored(comparison.added);
  RemoveIgnored(comparison.removed);
  FieldSet changed = comparison.modified;
  changed.insert(comparison.added.begin(), comparison.added.end());

  ApplyOutcome outcome;
  for (ManagerEntry& entry : entries) {
    FieldSet conflicting = Intersection(entry.fields, changed);
    for (const FieldPath& field : conflicting) {
      outcome.conflicts.push_back({entry.manager, HumanPath(field),
                                   entry.api_version, entry.subresource});
    }
    if (options.force) entry.fields = Difference(entry.fields, conflicting);
    entry.fields = Difference(entry.fields, comparison.removed);
  }
  if (!outcome.conflicts.empty() && !options.force) {
    std::stable_sort(outcome.conflicts.begin(), outcome.conflicts.end(),
                     [](const FieldConflict& a, const FieldConflict& b) {
                       return a.manager < b.manager;
                     });
    outcome.object = live;
    return outcome;
  }
  outcome.conflicts.clear();
  entries.push_back(std::move(me));
  EncodeManagedFields(std::move(entries), merged);
  outcome.object = std::move(merged);
  return outcome;
}

Json RecordUpdateUnchecked(const Json& old_object, Json new_object,
                           const PatchSchema& schema,
                           const ApplyOptions& options);

// The entries after an Update by options.manager that turns `old_clean`
// into `new_clean` (both without managedFields), starting from `entries`.
// `kept[i]` tells whether entries[i] of the result is unchanged from the
// input entry it came from (`origin[i]`, or -1 for a new entry).
struct UpdatedEntries {
  std::vector<ManagerEntry> entries;
  std::vector<int> origin;
};

UpdatedEntries UpdateOwnership(const Json* old_clean, const Json& new_clean,
                               std::vector<ManagerEntry> entries,
                               const PatchSchema& schema,
                               const ApplyOptions& options) {
  const FieldWalker walker(schema, /*lenient=*/true);
  FieldWalker::Comparison comparison;
  FieldPath path;
  // A create compares against an empty object, so new maps below the root
  // are owned as elements too ("." in FieldsV1), as upstream records them.
  const Json empty = Json::object();
  walker.Compare(old_clean != nullptr ? old_clean : &empty, &new_clean, path,
                 "", comparison);
  RemoveIgnored(comparison.modified);
  RemoveIgnored(comparison.added);
  RemoveIgnored(comparison.removed);
  FieldSet changed = comparison.modified;
  changed.insert(comparison.added.begin(), comparison.added.end());

  ManagerEntry me{options.manager, std::string(kUpdate), options.api_version,
                  options.now,     options.subresource,  {}};
  UpdatedEntries result;
  auto mine = FindManager(entries, me);
  FieldSet previous;
  std::string previous_time;
  int my_origin = -1;
  for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
    ManagerEntry& entry = entries[i];
    if (mine != entries.end() && &entry == &*mine) {
      previous = std::move(entry.fields);
      previous_time = entry.time;
      my_origin = i;
      continue;
    }
    const size_t before = entry.fields.size();
    entry.fields =
        Difference(Difference(entry.fields, changed), comparison.removed);
    result.origin.push_back(entry.fields.size() == before ? i : -1);
    result.entries.push_back(std::move(entry));
  }
  me.fields = Difference(previous, comparison.removed);
  me.fields.insert(changed.begin(), changed.end());
  const bool unchanged = me.fields == previous && !previous_time.empty();
  if (unchanged) me.time = previous_time;  // nothing of this manager's changed
  result.origin.push_back(unchanged ? my_origin : -1);
  result.entries.push_back(std::move(me));
  return result;
}

// Drops entries without fields and sorts the rest in upstream's order:
// operation, time, manager, apiVersion, subresource. Returns the order as
// indices into `updated.entries`.
std::vector<size_t> StoredOrder(const UpdatedEntries& updated) {
  std::vector<size_t> order;
  for (size_t i = 0; i < updated.entries.size(); ++i) {
    if (!updated.entries[i].fields.empty()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ManagerEntry& x = updated.entries[a];
    const ManagerEntry& y = updated.entries[b];
    return std::tie(x.operation, x.time, x.manager, x.api_version,
                    x.subresource) < std::tie(y.operation, y.time, y.manager,
                                              y.api_version, y.subresource);
  });
  return order;
}

Json RecordUpdateUnchecked(const Json& old_object, Json new_object,
                           const PatchSchema& schema,
                           const ApplyOptions& options) {
  // [{}] is the documented way for a client to reset managed fields; the
  // write itself is then recorded on the empty set (upstream: "the
  // managedFields being reset first and the other changes being processed
  // afterwards").
  bool reset = false;
  if (auto metadata = new_object.find("metadata");
      metadata != new_object.end() && metadata->is_object()) {
    auto managed = metadata->find("managedFields");
    if (managed != metadata->end() && managed->is_array() &&
        managed->size() == 1 && (*managed)[0].is_object() &&
        (*managed)[0].empty()) {
      metadata->erase("managedFields");
      reset = true;
    }
  }
  std::vector<ManagerEntry> entries;
  if (!reset) {
    entries = DecodeManagedFields(new_object);
    if (entries.empty()) entries = DecodeManagedFields(old_object);
  }
  const Json old_clean = WithoutManagedFields(old_object);
  const Json new_clean = WithoutManagedFields(new_object);
  UpdatedEntries updated =
      UpdateOwnership(old_object.is_object() ? &old_clean : nullptr, new_clean,
                      std::move(entries), schema, options);
  EncodeManagedFields(std::move(updated.entries), new_object);
  return new_object;
}

// Decoded managedFields entries by their JSON text, per thread (no
// locking), with the text the entry is stored as. Alike objects written by
// the same managers share entry texts, and an entry a write leaves alone is
// the same text next time.
class EntryTextCache {
 public:
  struct Decoded {
    bool valid = false;  // a well-formed Apply or Update entry
    ManagerEntry entry;
    std::string stored_text;  // EncodeManagerEntry(entry).dump()
  };

  static EntryTextCache& ForThisThread() {
    thread_local EntryTextCache cache;
    return cache;
  }

  const Decoded& Find(const std::string& text) {
    if (auto it = decoded_.find(text); it != decoded_.end()) return it->second;
    MakeRoom();
    return decoded_.emplace(text, Decode(text)).first->second;
  }

  // Records an entry a write has just encoded as `text` (its stored text),
  // which the next write of the object will look up.
  void Remember(const std::string& text, const ManagerEntry& entry) {
    MakeRoom();
    decoded_.try_emplace(text, Decoded{true, entry, text});
  }

 private:
  void MakeRoom() {
    constexpr size_t kMaxEntries = 4096;
    if (decoded_.size() >= kMaxEntries) decoded_.clear();
  }

  static Decoded Decode(const std::string& text) {
    Decoded decoded;
    Json wrapper = Json::object();
    wrapper["metadata"]["managedFields"] =
        Json::array({Json::parse(text, nullptr, /*allow_exceptions=*/false)});
    std::vector<ManagerEntry> entries = DecodeManagedFields(wrapper);
    if (entries.size() == 1) {
      decoded.valid = true;
      decoded.entry = std::move(entries[0]);
      decoded.stored_text = EncodeManagerEntry(decoded.entry).dump();
    }
    return decoded;
  }

  std::unordered_map<std::string, Decoded> decoded_;
};

// The well-formed entries among `texts`, decoded, and for each the text it
// is stored as.
std::pair<std::vector<ManagerEntry>, std::vector<std::string>> DecodeEntryTexts(
    const std::vector<std::string>& texts) {
  EntryTextCache& cache = EntryTextCache::ForThisThread();
  std::pair<std::vector<ManagerEntry>, std::vector<std::string>> out;
  for (const std::string& text : texts) {
    // Copied at once: a later Find may clear the cache.
    const EntryTextCache::Decoded& decoded = cache.Find(text);
    if (!decoded.valid) continue;
    out.first.push_back(decoded.entry);
    out.second.push_back(decoded.stored_text);
  }
  return out;
}

// The index just past the JSON string starting at text[at] (a quote).
size_t SkipString(std::string_view text, size_t at) {
  for (size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// The index just past the JSON list starting at text[at] (a '[').
size_t SkipList(std::string_view text, size_t at) {
  int depth = 0;
  for (size_t i = at; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      i = SkipString(text, i);
      continue;
    }
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return i + 1;
    ++i;
  }
  return text.size();
}

// Appends what a create's field set depends on, read from its compact JSON
// text: the members that are set (names as written), not their values
// (scalars outside lists become a letter for their type), except in lists,
// which count in full (list keys and set values come from there). Objects
// with equal structures get equal sets. Any text gives some key (malformed
// text only costs cache misses).
void AppendTextStructure(std::string_view text, std::string& out) {
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '[') {
      const size_t end = SkipList(text, i);
      out.append(text.substr(i, end - i));
      i = end;
    } else if (c == '"') {
      const size_t end = SkipString(text, i);
      const bool member_name = end < text.size() && text[end] == ':';
      if (member_name) {
        out.append(text.substr(i, end - i));
      } else {
        out += 's';
      }
      i = end;
    } else if (c == '{' || c == '}' || c == ':' || c == ',') {
      out += c;
      ++i;
    } else {
      out += c == 't' || c == 'f' ? 'b' : c == 'n' ? 'z' : 'n';
      while (i < text.size() && text[i] != ',' && text[i] != '}' &&
             text[i] != ']') {
        ++i;
      }
    }
  }
}

// A create's managedFields entry around its time: the entry is
// before_time + options.now + after_time.
struct CreateEntry {
  bool owns_fields = false;
  std::string before_time;
  std::string after_time;
};

// Create entries by structure, per thread (no locking), emptied when full,
// so bulk creates of alike objects compute the entry once.
class CreateEntryCache {
 public:
  static CreateEntryCache& ForThisThread() {
    thread_local CreateEntryCache cache;
    return cache;
  }
  const CreateEntry* Find(const std::string& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  void Insert(std::string key, CreateEntry entry) {
    constexpr size_t kMaxEntries = 1024;
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.emplace(std::move(key), std::move(entry));
  }

 private:
  std::unordered_map<std::string, CreateEntry> entries_;
};

bool IsEmptyObjectText(const std::string& text) {
  if (text == "{}") return true;
  if (text.find('"') != std::string::npos) return false;  // has a member
  const Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_object() && value.empty();
}

}  // namespace

StatusOr<ApplyOutcome> ServerSideApply(const Json& live, const Json& applied,
                                       const PatchSchema& schema,
                                       const ApplyOptions& options) {
  if (!applied.is_object()) {
    return InvalidArgumentError(fmt::format(
        "invalid apply configuration: expected a JSON object, got {}",
        applied.type_name()));
  }
  if (options.manager.empty()) {
    return InvalidArgumentError(
        "PATCH with apply requires a non-empty fieldManager");
  }
  RETURN_IF_ERROR(CheckNestingDepth(applied, "apply configuration"));
  if (!live.is_null()) RETURN_IF_ERROR(CheckNestingDepth(live, "object"));
  try {
    return ServerSideApplyUnchecked(live, applied, schema, options);
  } catch (const std::exception& e) {
    return InternalError(std::string("server-side apply: ") + e.what());
  }
}

Json RecordUpdate(const Json& old_object, Json new_object,
                  const PatchSchema& schema, const ApplyOptions& options) {
  if (!new_object.is_object() ||
      !CheckNestingDepth(new_object, "object").ok() ||
      !CheckNestingDepth(old_object, "object").ok()) {
    return new_object;
  }
  try {
    return RecordUpdateUnchecked(old_object, new_object, schema, options);
  } catch (const std::exception&) {
    return new_object;  // bookkeeping must never fail a write
  }
}

std::vector<std::string> RecordUpdateEntries(
    const Json& old_object, const Json& new_object,
    const std::vector<std::string>& new_entries,
    const std::vector<std::string>& old_entries, const PatchSchema& schema,
    const ApplyOptions& options) {
  // [{}]: reset, then record this write (as RecordUpdate).
  const bool reset =
      new_entries.size() == 1 && IsEmptyObjectText(new_entries[0]);
  if (!new_object.is_object() ||
      !CheckNestingDepth(new_object, "object").ok() ||
      !CheckNestingDepth(old_object, "object").ok()) {
    return new_entries;
  }
  try {
    std::vector<ManagerEntry> entries;
    std::vector<std::string> source_texts;
    if (!reset) {
      std::tie(entries, source_texts) = DecodeEntryTexts(new_entries);
      if (entries.empty()) {
        std::tie(entries, source_texts) = DecodeEntryTexts(old_entries);
      }
    }
    UpdatedEntries updated =
        UpdateOwnership(old_object.is_object() ? &old_object : nullptr,
                        new_object, std::move(entries), schema, options);
    std::vector<std::string> stored;
    for (size_t i : StoredOrder(updated)) {
      const int origin = updated.origin[i];
      if (origin >= 0) {
        stored.push_back(source_texts[origin]);
      } else {
        stored.push_back(EncodeManagerEntry(updated.entries[i]).dump());
        EntryTextCache::ForThisThread().Remember(stored.back(),
                                                 updated.entries[i]);
      }
    }
    return stored;
  } catch (const std::exception&) {
    return new_entries;  // bookkeeping must never fail a write
  }
}

std::string ConflictMessage(const std::vector<FieldConflict>& conflicts) {
  auto describe = [](const FieldConflict& conflict) {
    std::string who = Quoted(conflict.manager);
    if (!conflict.subresource.empty()) {
      who += " with subresource " + Quoted(conflict.subresource);
    }
    if (!conflict.api_version.empty()) who += " using " + conflict.api_version;
    return who;
  };
  if (conflicts.empty()) return "";
  if (conflicts.size() == 1) {
    return fmt::format("Apply failed with 1 conflict: conflict with {}: {}",
                       describe(conflicts[0]), conflicts[0].field);
  }
  // Grouped by manager, managers sorted, fields in the order given.
  std::map<std::string, std::vector<const FieldConflict*>> by_manager;
  for (const FieldConflict& conflict : conflicts) {
    by_manager[describe(conflict)].push_back(&conflict);
  }
  std::string message =
      fmt::format("Apply failed with {} conflicts:", conflicts.size());
  bool first = true;
  for (const auto& [who, fields] : by_manager) {
    message += first ? " " : "\n";
    first = false;
    message += "conflicts with " + who + ":";
    for (const FieldConflict* conflict : fields) {
      message += "\n- " + conflict->field;
    }
  }
  return message;
}

std::vector<std::string> RecordCreateEntries(
    std::string_view object_text, const std::function<Json()>& object_tree,
    const PatchSchema& schema, const ApplyOptions& options) {
  // The cache identifies schemas by address (the registry's live as long
  // as the process).
  std::string key =
      fmt::format("{}\n{}\n{}\n{}\n", static_cast<const void*>(&schema),
                  options.manager, options.api_version, options.subresource);
  AppendTextStructure(object_text, key);
  CreateEntryCache& cache = CreateEntryCache::ForThisThread();
  if (const CreateEntry* hit = cache.Find(key)) {
    if (!hit->owns_fields) return {};
    return {hit->before_time + options.now + hit->after_time};
  }
  Json tree = object_tree();
  if (!tree.is_object()) return {};  // nothing to record, nothing to learn
  const Json recorded = RecordUpdate(nullptr, std::move(tree), schema, options);
  std::vector<std::string> entries;
  if (auto metadata = recorded.find("metadata");
      metadata != recorded.end() && metadata->is_object()) {
    if (auto managed = metadata->find("managedFields");
        managed != metadata->end() && managed->is_array()) {
      for (const Json& entry : *managed) entries.push_back(entry.dump());
    }
  }
  if (entries.empty()) {
    cache.Insert(std::move(key), {});
  } else if (entries.size() == 1 && !options.now.empty()) {
    // The time is the entry's only member that differs between alike
    // creates; a quote only starts a member name outside strings.
    const std::string time = fmt::format("\"time\":\"{}\"", options.now);
    const size_t at = entries[0].find(time);
    if (at != std::string::npos) {
      const size_t value = at + time.size() - options.now.size() - 1;
      cache.Insert(std::move(key),
                   {true, entries[0].substr(0, value),
                    entries[0].substr(value + options.now.size())});
    }
  }
  return entries;
}

}  // namespace dralloc::patch
