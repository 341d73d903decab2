#include "patch/json_patch.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace dralloc::patch {

namespace {

// A parsed RFC 6901 pointer: "" is the whole document.
struct Pointer {
  std::string text;                 // as written, for messages
  std::vector<std::string> tokens;  // unescaped reference tokens
};

StatusOr<Pointer> ParsePointer(const std::string& text) {
  Pointer pointer{text, {}};
  if (text.empty()) return pointer;
  if (text[0] != '/') {
    return InvalidArgumentError(fmt::format(
        "invalid JSON pointer \"{}\": must be empty or start with '/'", text));
  }
  std::string token;
  for (size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      pointer.tokens.push_back(std::move(token));
      token.clear();
      continue;
    }
    if (text[i] == '~') {
      if (i + 1 < text.size() && (text[i + 1] == '0' || text[i + 1] == '1')) {
        token += text[i + 1] == '0' ? '~' : '/';
        ++i;
        continue;
      }
      return InvalidArgumentError(fmt::format(
          "invalid JSON pointer \"{}\": '~' must be followed by '0' or '1'",
          text));
    }
    token += text[i];
  }
  return pointer;
}

// Parses an array index token: decimal digits without leading zeros.
std::optional<size_t> ParseIndex(const std::string& token) {
  if (token.empty() || token.size() > 18) return std::nullopt;
  if (token.size() > 1 && token[0] == '0') return std::nullopt;
  size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index;
}

Status Missing(std::string_view op, const Pointer& pointer,
               std::string_view what = "path") {
  return FailedPreconditionError(
      fmt::format("{} operation does not apply: doc is missing {}: \"{}\"", op,
                  what, pointer.text));
}

// Resolves the first `count` tokens of `pointer` in `doc`; nullptr when a
// step does not exist.
Json* Resolve(Json& doc, const Pointer& pointer, size_t count) {
  Json* node = &doc;
  for (size_t i = 0; i < count; ++i) {
    const std::string& token = pointer.tokens[i];
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      std::optional<size_t> index = ParseIndex(token);
      if (!index || *index >= node->size()) return nullptr;
      node = &(*node)[*index];
    } else {
      return nullptr;
    }
  }
  return node;
}

Json* ResolveAll(Json& doc, const Pointer& pointer) {
  return Resolve(doc, pointer, pointer.tokens.size());
}

// Inserts `value` at `pointer` (RFC 6902 "add" semantics).
Status AddAt(Json& doc, const Pointer& pointer, Json value,
             std::string_view op) {
  if (pointer.tokens.empty()) {
    doc = std::move(value);
    return OkStatus();
  }
  Json* parent = Resolve(doc, pointer, pointer.tokens.size() - 1);
  if (parent == nullptr) return Missing(op, pointer);
  const std::string& last = pointer.tokens.back();
  if (parent->is_object()) {
    (*parent)[last] = std::move(value);
    return OkStatus();
  }
  if (parent->is_array()) {
    if (last == "-") {
      parent->push_back(std::move(value));
      return OkStatus();
    }
    std::optional<size_t> index = ParseIndex(last);
    if (!index || *index > parent->size()) {
      return FailedPreconditionError(fmt::format(
          "error in {} for path: '{}': Unable to access invalid index: {}", op,
          pointer.text, last));
    }
    parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*index),
                   std::move(value));
    return OkStatus();
  }
  return Missing(op, pointer);
}

// Removes and returns the value at `pointer`, which must exist.
StatusOr<Json> RemoveAt(Json& doc, const Pointer& pointer,
                        std::string_view op) {
  if (pointer.tokens.empty()) {
    return FailedPreconditionError(fmt::format(
        "{} operation does not apply: cannot remove the whole document", op));
  }
  Json* parent = Resolve(doc, pointer, pointer.tokens.size() - 1);
  if (parent == nullptr) return Missing(op, pointer);
  const std::string& last = pointer.tokens.back();
  if (parent->is_object()) {
    auto it = parent->find(last);
    if (it == parent->end()) {
      return FailedPreconditionError(fmt::format(
          "error in {} for path: '{}': Unable to remove nonexistent key: {}: "
          "missing value",
          op, pointer.text, last));
    }
    Json removed = std::move(*it);
    parent->erase(it);
    return removed;
  }
  if (parent->is_array()) {
    std::optional<size_t> index = ParseIndex(last);
    if (!index || *index >= parent->size()) {
      return FailedPreconditionError(fmt::format(
          "error in {} for path: '{}': Unable to access invalid index: {}", op,
          pointer.text, last));
    }
    Json removed = std::move((*parent)[*index]);
    parent->erase(*index);
    return removed;
  }
  return Missing(op, pointer);
}

// Reads a required string member of an operation.
StatusOr<Pointer> PointerMember(const Json& operation, const char* name,
                                std::string_view op) {
  auto it = operation.find(name);
  if (it == operation.end() || !it->is_string()) {
    return InvalidArgumentError(fmt::format(
        "invalid JSON patch: {} operation requires a string \"{}\"", op, name));
  }
  return ParsePointer(it->get<std::string>());
}

StatusOr<Json> ValueMember(const Json& operation, std::string_view op) {
  auto it = operation.find("value");
  if (it == operation.end()) {
    return InvalidArgumentError(fmt::format(
        "invalid JSON patch: {} operation requires a \"value\"", op));
  }
  return *it;
}

// Depth and node count of `value`, computed without recursion.
struct Extent {
  size_t depth = 0;
  size_t nodes = 0;
};

Extent MeasureExtent(const Json& value) {
  Extent extent;
  std::vector<std::pair<const Json*, size_t>> pending = {{&value, 1}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    ++extent.nodes;
    extent.depth = std::max(extent.depth, depth);
    if (node->is_structured()) {
      for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
    }
  }
  return extent;
}

// Limits that keep a patched document bounded: placing `value` at `pointer`
// must not nest deeper than kMaxNestingDepth, and copies may duplicate at
// most kMaxCopiedNodes nodes in total (a chain of copies doubles the size).
constexpr size_t kMaxCopiedNodes = 1'000'000;

Status CheckPlacement(const Json& value, const Pointer& pointer,
                      std::string_view op, size_t* copied_nodes) {
  Extent extent = MeasureExtent(value);
  if (extent.depth + pointer.tokens.size() >
      static_cast<size_t>(kMaxNestingDepth)) {
    return InvalidArgumentError(fmt::format(
        "invalid JSON patch: {} at \"{}\" would nest the document more than "
        "{} levels deep",
        op, pointer.text, kMaxNestingDepth));
  }
  if (copied_nodes != nullptr) {
    *copied_nodes += extent.nodes;
    if (*copied_nodes > kMaxCopiedNodes) {
      return InvalidArgumentError(fmt::format(
          "invalid JSON patch: Unable to complete the copy, the accumulated "
          "size increase of copy exceeds the limit of {} values",
          kMaxCopiedNodes));
    }
  }
  return OkStatus();
}

bool IsProperPrefix(const Pointer& prefix, const Pointer& pointer) {
  if (prefix.tokens.size() >= pointer.tokens.size()) return false;
  for (size_t i = 0; i < prefix.tokens.size(); ++i) {
    if (prefix.tokens[i] != pointer.tokens[i]) return false;
  }
  return true;
}

Status ApplyOperation(Json& doc, const Json& operation, size_t* copied_nodes) {
  if (!operation.is_object()) {
    return InvalidArgumentError(
        "invalid JSON patch: each operation must be a JSON object");
  }
  auto op_it = operation.find("op");
  if (op_it == operation.end() || !op_it->is_string()) {
    return InvalidArgumentError(
        "invalid JSON patch: operation is missing the string \"op\"");
  }
  const std::string op = op_it->get<std::string>();
  if (op != "add" && op != "remove" && op != "replace" && op != "move" &&
      op != "copy" && op != "test") {
    return InvalidArgumentError(
        fmt::format("invalid JSON patch: Unexpected kind: {}", op));
  }
  ASSIGN_OR_RETURN(Pointer path, PointerMember(operation, "path", op));

  if (op == "add") {
    ASSIGN_OR_RETURN(Json value, ValueMember(operation, op));
    RETURN_IF_ERROR(CheckPlacement(value, path, op, nullptr));
    return AddAt(doc, path, std::move(value), op);
  }
  if (op == "remove") {
    ASSIGN_OR_RETURN(Json removed, RemoveAt(doc, path, op));
    (void)removed;
    return OkStatus();
  }
  if (op == "replace") {
    ASSIGN_OR_RETURN(Json value, ValueMember(operation, op));
    RETURN_IF_ERROR(CheckPlacement(value, path, op, nullptr));
    Json* target = ResolveAll(doc, path);
    if (target == nullptr) {
      return FailedPreconditionError(fmt::format(
          "replace operation does not apply: doc is missing key: {}",
          path.text));
    }
    *target = std::move(value);
    return OkStatus();
  }
  if (op == "test") {
    ASSIGN_OR_RETURN(Json value, ValueMember(operation, op));
    Json* target = ResolveAll(doc, path);
    if (target == nullptr) {
      return FailedPreconditionError(fmt::format(
          "test operation does not apply: is missing path: {}", path.text));
    }
    if (!JsonEqual(*target, value)) {
      return FailedPreconditionError(
          fmt::format("testing value {} failed: test failed", path.text));
    }
    return OkStatus();
  }
  // move and copy
  ASSIGN_OR_RETURN(Pointer from, PointerMember(operation, "from", op));
  if (op == "move") {
    if (IsProperPrefix(from, path)) {
      return InvalidArgumentError(fmt::format(
          "invalid JSON patch: move from \"{}\" into its own child \"{}\"",
          from.text, path.text));
    }
    Json* source = ResolveAll(doc, from);
    if (source == nullptr) return Missing(op, from, "from path");
    RETURN_IF_ERROR(CheckPlacement(*source, path, op, nullptr));
    if (from.tokens == path.tokens) return OkStatus();
    ASSIGN_OR_RETURN(Json value, RemoveAt(doc, from, op));
    return AddAt(doc, path, std::move(value), op);
  }
  Json* source = ResolveAll(doc, from);
  if (source == nullptr) return Missing(op, from, "from path");
  RETURN_IF_ERROR(CheckPlacement(*source, path, op, copied_nodes));
  Json value = *source;
  return AddAt(doc, path, std::move(value), op);
}

}  // namespace

StatusOr<Json> ApplyJsonPatch(const Json& original, const Json& patch) {
  if (!patch.is_array()) {
    return InvalidArgumentError(fmt::format(
        "invalid JSON patch: the patch must be a JSON array of operations, got "
        "{}",
        patch.type_name()));
  }
  RETURN_IF_ERROR(CheckNestingDepth(patch, "JSON patch"));
  RETURN_IF_ERROR(CheckNestingDepth(original, "object"));
  try {
    Json doc = original;
    size_t copied_nodes = 0;
    for (const Json& operation : patch) {
      RETURN_IF_ERROR(ApplyOperation(doc, operation, &copied_nodes));
    }
    return doc;
  } catch (const std::exception& e) {
    // Not expected: every access above is checked. Kept so that a library
    // surprise becomes an error value instead of escaping the module.
    return InternalError(std::string("applying JSON patch: ") + e.what());
  }
}

}  // namespace dralloc::patch
