#include "encoding/internal/yaml_reader.h"

#include <yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/text_escape.h"
#include "encoding/internal/read_errors.h"

namespace dralloc::encoding::internal {
namespace {

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

size_t SaturatingAdd(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

// 1-based line and column (in bytes) of byte `offset` of `text`.
std::pair<size_t, size_t> LineColumnAt(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + std::count(before.begin(), before.end(), '\n');
  const size_t last_newline = before.rfind('\n');
  const size_t column = last_newline == std::string_view::npos
                            ? offset + 1
                            : offset - last_newline;
  return {line, column};
}

class YamlParser {
 public:
  YamlParser() { ok_ = yaml_parser_initialize(&parser_) != 0; }
  ~YamlParser() {
    if (ok_) yaml_parser_delete(&parser_);
  }
  YamlParser(const YamlParser&) = delete;
  YamlParser& operator=(const YamlParser&) = delete;

  bool ok() const { return ok_; }
  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_;
  bool ok_ = false;
};

class YamlEvent {
 public:
  YamlEvent() = default;
  ~YamlEvent() { Reset(); }
  YamlEvent(const YamlEvent&) = delete;
  YamlEvent& operator=(const YamlEvent&) = delete;

  // Deletes the current event (if any) and returns storage for the next one.
  yaml_event_t* Next() {
    Reset();
    has_event_ = true;
    return &event_;
  }
  const yaml_event_t& get() const { return event_; }

 private:
  void Reset() {
    if (has_event_) yaml_event_delete(&event_);
    has_event_ = false;
  }

  yaml_event_t event_;
  bool has_event_ = false;
};

enum class ScalarKind { kNull, kBool, kInt, kString };

struct ResolvedScalar {
  ScalarKind kind = ScalarKind::kString;
  std::string json;  // value form (JSON text)
};

bool IsNullText(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> BoolText(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

// Decimal integer without leading zeros, optional sign, that fits int64;
// returns its canonical JSON form.
std::optional<std::string> IntText(std::string_view s) {
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  if (digits[0] == '0' && digits.size() > 1) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // Parse the magnitude as uint64 (19 digits always fit) and range-check.
  uint64_t magnitude = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (magnitude > limit) return std::nullopt;
  if (magnitude == 0) return std::string("0");
  std::string out = negative ? "-" : "";
  out.append(digits);
  return out;
}

class YamlReader {
 public:
  YamlReader(std::string_view text, std::string_view source,
             const ReadLimits& limits)
      : text_(text), source_(source), limits_(limits) {}

  StatusOr<std::vector<Document>> Run();

 private:
  struct Frame {
    bool is_map = false;
    bool expect_key = true;  // maps only
    size_t count = 0;        // entries written so far
    size_t begin = 0;        // offset of '[' or '{' in out_
    int height = 1;          // nesting levels of this subtree
    std::string anchor;
  };
  struct Anchor {
    bool is_scalar = false;
    std::string value_json;  // scalars
    std::string key_json;    // scalars
    size_t begin = 0;        // containers: range in out_
    size_t end = 0;
    int height = 0;  // containers
  };

  Status ErrorAt(const yaml_mark_t& mark, std::string_view message) const {
    return InvalidArgumentError(std::string(source_) + ": line " +
                                std::to_string(mark.line + 1) + " column " +
                                std::to_string(mark.column + 1) + ": " +
                                std::string(message));
  }
  Status ParserError(const yaml_parser_t& parser) const;
  // libyaml's input callback. Within a document it stops reading when more
  // than the document size limit (plus some slack) follows the last event, so
  // that a huge token fails fast without being scanned whole; the exact limit
  // is checked on events. Between documents, reading is not limited.
  static int ReadInput(void* data, unsigned char* buffer, size_t size,
                       size_t* size_read);
  void SetReadLimit(size_t base) {
    read_limit_ = SaturatingAdd(SaturatingAdd(base, limits_.max_document_bytes),
                                kReadSlack);
  }
  Status CheckOutputSize() const {
    if (out_.size() > limits_.max_document_bytes) {
      return DocumentTooLarge(source_, document_number_, document_line_,
                              limits_.max_document_bytes);
    }
    return OkStatus();
  }

  Status OnEvent(const yaml_event_t& event);
  Status OnScalar(const yaml_event_t& event);
  Status OnContainerStart(const yaml_event_t& event, bool is_map);
  Status OnContainerEnd();
  Status OnAlias(const yaml_event_t& event);
  StatusOr<ResolvedScalar> Resolve(const yaml_event_t& event) const;

  bool InKeyPosition() const {
    return !stack_.empty() && stack_.back().is_map && stack_.back().expect_key;
  }
  void WriteKey(std::string_view key_json) {
    Frame& frame = stack_.back();
    if (frame.count++ > 0) out_.push_back(',');
    out_.append(key_json);
    out_.push_back(':');
    frame.expect_key = false;
  }
  void BeginValue() {
    if (stack_.empty()) return;
    Frame& frame = stack_.back();
    if (!frame.is_map && frame.count++ > 0) out_.push_back(',');
  }
  void EndValue() {
    if (stack_.empty()) return;
    stack_.back().expect_key = true;
  }

  // How far libyaml may read beyond the limit; more than its read-ahead.
  static constexpr size_t kReadSlack = 256u << 10;

  std::string_view text_;
  std::string_view source_;
  const ReadLimits& limits_;

  size_t input_offset_ = 0;  // bytes handed to libyaml
  size_t read_limit_ = 0;
  bool read_limit_hit_ = false;

  std::vector<Document> documents_;
  int document_number_ = 0;
  int document_line_ = 1;
  size_t document_begin_ = 0;
  std::string out_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchor> anchors_;
};

int YamlReader::ReadInput(void* data, unsigned char* buffer, size_t size,
                          size_t* size_read) {
  YamlReader& self = *static_cast<YamlReader*>(data);
  const size_t length = std::min(size, self.text_.size() - self.input_offset_);
  if (length > 0 && self.input_offset_ + length > self.read_limit_) {
    self.read_limit_hit_ = true;
    return 0;
  }
  std::copy_n(self.text_.data() + self.input_offset_, length, buffer);
  self.input_offset_ += length;
  *size_read = length;
  return 1;
}

Status YamlReader::ParserError(const yaml_parser_t& parser) const {
  if (read_limit_hit_) {
    return DocumentTooLarge(source_, document_number_, document_line_,
                            limits_.max_document_bytes);
  }
  const std::string problem =
      parser.problem != nullptr ? parser.problem : "unknown error";
  switch (parser.error) {
    case YAML_MEMORY_ERROR:
      return ResourceExhaustedError(std::string(source_) +
                                    ": yaml: out of memory");
    case YAML_READER_ERROR: {
      const auto [line, column] = LineColumnAt(text_, parser.problem_offset);
      std::string message = std::string(source_) + ": line " +
                            std::to_string(line) + " column " +
                            std::to_string(column) + ": yaml: " + problem;
      if (parser.problem_value >= 0 && parser.problem_value <= 0xFF) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        message += " (byte 0x";
        message.push_back(kHex[(parser.problem_value >> 4) & 0xF]);
        message.push_back(kHex[parser.problem_value & 0xF]);
        message += ")";
      }
      return InvalidArgumentError(std::move(message));
    }
    case YAML_SCANNER_ERROR:
    case YAML_PARSER_ERROR: {
      std::string message = "yaml: " + problem;
      if (parser.context != nullptr) {
        message += " (" + std::string(parser.context) + " at line " +
                   std::to_string(parser.context_mark.line + 1) + " column " +
                   std::to_string(parser.context_mark.column + 1) + ")";
      }
      return ErrorAt(parser.problem_mark, message);
    }
    default:
      return InvalidArgumentError(std::string(source_) + ": yaml: " + problem);
  }
}

StatusOr<ResolvedScalar> YamlReader::Resolve(const yaml_event_t& event) const {
  const auto& scalar = event.data.scalar;
  const std::string_view text(reinterpret_cast<const char*>(scalar.value),
                              scalar.length);
  const std::string_view tag =
      scalar.tag != nullptr ? reinterpret_cast<const char*>(scalar.tag) : "";
  ResolvedScalar result;
  auto as_string = [&]() {
    result.kind = ScalarKind::kString;
    result.json.reserve(text.size() + 2);
    AppendJsonString(result.json, text);
    return result;
  };
  auto as_null = [&]() {
    result.kind = ScalarKind::kNull;
    result.json = "null";
    return result;
  };
  auto unresolvable = [&](std::string_view tag_name) {
    size_t shown_size = std::min<size_t>(text.size(), 64);
    while (shown_size < text.size() && shown_size > 0 &&
           (static_cast<unsigned char>(text[shown_size]) & 0xC0) == 0x80) {
      --shown_size;  // do not cut a UTF-8 sequence
    }
    std::string shown(text.substr(0, shown_size));
    if (shown_size < text.size()) shown += "...";
    std::string quoted;
    AppendJsonString(quoted, shown);
    return ErrorAt(event.start_mark, "yaml: cannot resolve " + quoted +
                                         " as !!" + std::string(tag_name));
  };

  std::string_view short_tag;
  if (tag.substr(0, kTagPrefix.size()) == kTagPrefix) {
    short_tag = tag.substr(kTagPrefix.size());
  }
  if (tag == "!" || short_tag == "str" || short_tag == "float") {
    return as_string();
  }
  if (short_tag == "null") {
    if (!IsNullText(text)) return unresolvable("null");
    return as_null();
  }
  if (short_tag == "bool") {
    const std::optional<bool> value = BoolText(text);
    if (!value.has_value()) return unresolvable("bool");
    result.kind = ScalarKind::kBool;
    result.json = *value ? "true" : "false";
    return result;
  }
  if (short_tag == "int") {
    std::optional<std::string> value = IntText(text);
    if (!value.has_value()) return unresolvable("int");
    result.kind = ScalarKind::kInt;
    result.json = std::move(*value);
    return result;
  }
  // Untagged, or a tag we do not interpret.
  if (scalar.style != YAML_PLAIN_SCALAR_STYLE) return as_string();
  if (IsNullText(text)) return as_null();
  if (const std::optional<bool> value = BoolText(text); value.has_value()) {
    result.kind = ScalarKind::kBool;
    result.json = *value ? "true" : "false";
    return result;
  }
  if (std::optional<std::string> value = IntText(text); value.has_value()) {
    result.kind = ScalarKind::kInt;
    result.json = std::move(*value);
    return result;
  }
  return as_string();
}

Status YamlReader::OnScalar(const yaml_event_t& event) {
  ASSIGN_OR_RETURN(ResolvedScalar resolved, Resolve(event));
  const std::string_view text(
      reinterpret_cast<const char*>(event.data.scalar.value),
      event.data.scalar.length);
  const bool is_key = InKeyPosition();
  const bool anchored = event.data.scalar.anchor != nullptr;
  std::string key_json;
  if (is_key || anchored) {
    if (resolved.kind == ScalarKind::kNull) {
      key_json = "\"null\"";
    } else if (resolved.kind == ScalarKind::kString) {
      key_json = resolved.json;
    } else {
      AppendJsonString(key_json, text);
    }
  }
  if (is_key) {
    WriteKey(key_json);
  } else {
    BeginValue();
    out_.append(resolved.json);
    EndValue();
  }
  if (anchored) {
    Anchor& anchor =
        anchors_[reinterpret_cast<const char*>(event.data.scalar.anchor)];
    anchor = Anchor();
    anchor.is_scalar = true;
    anchor.value_json = std::move(resolved.json);
    anchor.key_json = std::move(key_json);
  }
  return CheckOutputSize();
}

Status YamlReader::OnContainerStart(const yaml_event_t& event, bool is_map) {
  if (InKeyPosition()) {
    return ErrorAt(event.start_mark, "yaml: mapping keys must be scalars");
  }
  if (stack_.size() >= static_cast<size_t>(std::max(limits_.max_depth, 0))) {
    return ErrorAt(event.start_mark, DepthMessage(limits_.max_depth));
  }
  BeginValue();
  Frame frame;
  frame.is_map = is_map;
  frame.begin = out_.size();
  const yaml_char_t* anchor = is_map ? event.data.mapping_start.anchor
                                     : event.data.sequence_start.anchor;
  if (anchor != nullptr) frame.anchor = reinterpret_cast<const char*>(anchor);
  stack_.push_back(std::move(frame));
  out_.push_back(is_map ? '{' : '[');
  return CheckOutputSize();
}

Status YamlReader::OnContainerEnd() {
  // libyaml guarantees that end events match start events.
  Frame frame = std::move(stack_.back());
  stack_.pop_back();
  out_.push_back(frame.is_map ? '}' : ']');
  if (!stack_.empty()) {
    stack_.back().height = std::max(stack_.back().height, frame.height + 1);
  }
  if (!frame.anchor.empty()) {
    Anchor& anchor = anchors_[frame.anchor];
    anchor = Anchor();
    anchor.begin = frame.begin;
    anchor.end = out_.size();
    anchor.height = frame.height;
  }
  EndValue();
  return CheckOutputSize();
}

Status YamlReader::OnAlias(const yaml_event_t& event) {
  const char* name = reinterpret_cast<const char*>(event.data.alias.anchor);
  const auto it = anchors_.find(name);
  if (it == anchors_.end()) {
    return ErrorAt(event.start_mark, "yaml: unknown anchor '" +
                                         std::string(name) + "' referenced");
  }
  const Anchor& anchor = it->second;
  if (InKeyPosition()) {
    if (!anchor.is_scalar) {
      return ErrorAt(event.start_mark, "yaml: mapping keys must be scalars");
    }
    WriteKey(anchor.key_json);
    return CheckOutputSize();
  }
  if (anchor.is_scalar) {
    BeginValue();
    out_.append(anchor.value_json);
    EndValue();
    return CheckOutputSize();
  }
  if (stack_.size() + anchor.height >
      static_cast<size_t>(std::max(limits_.max_depth, 0))) {
    return ErrorAt(event.start_mark, DepthMessage(limits_.max_depth));
  }
  const size_t length = anchor.end - anchor.begin;
  if (out_.size() + length > limits_.max_document_bytes) {
    return DocumentTooLarge(source_, document_number_, document_line_,
                            limits_.max_document_bytes);
  }
  BeginValue();
  // Reserve first so that the source range stays valid while appending.
  out_.reserve(out_.size() + length);
  out_.append(out_.data() + anchor.begin, length);
  if (!stack_.empty()) {
    stack_.back().height = std::max(stack_.back().height, anchor.height + 1);
  }
  EndValue();
  return CheckOutputSize();
}

Status YamlReader::OnEvent(const yaml_event_t& event) {
  switch (event.type) {
    case YAML_DOCUMENT_START_EVENT:
      ++document_number_;
      document_line_ = static_cast<int>(event.start_mark.line + 1);
      document_begin_ = event.start_mark.index;
      SetReadLimit(document_begin_);
      out_.clear();
      stack_.clear();
      anchors_.clear();
      return OkStatus();
    case YAML_DOCUMENT_END_EVENT:
      if (!out_.empty() && out_ != "null") {
        Document document;
        document.json = out_;
        document.source = std::string(source_);
        document.index = static_cast<int>(documents_.size());
        document.line = document_line_;
        documents_.push_back(std::move(document));
      }
      out_.clear();
      anchors_.clear();
      read_limit_ = SIZE_MAX;  // until the next document starts
      return OkStatus();
    case YAML_SCALAR_EVENT:
      return OnScalar(event);
    case YAML_SEQUENCE_START_EVENT:
      return OnContainerStart(event, /*is_map=*/false);
    case YAML_MAPPING_START_EVENT:
      return OnContainerStart(event, /*is_map=*/true);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      return OnContainerEnd();
    case YAML_ALIAS_EVENT:
      return OnAlias(event);
    default:
      return OkStatus();
  }
}

StatusOr<std::vector<Document>> YamlReader::Run() {
  YamlParser parser;
  if (!parser.ok()) {
    return ResourceExhaustedError(std::string(source_) +
                                  ": yaml: out of memory");
  }
  yaml_parser_set_encoding(parser.get(), YAML_UTF8_ENCODING);
  read_limit_ = SIZE_MAX;  // until the first document starts
  yaml_parser_set_input(parser.get(), &YamlReader::ReadInput, this);
  YamlEvent event;
  while (true) {
    if (yaml_parser_parse(parser.get(), event.Next()) == 0) {
      return ParserError(*parser.get());
    }
    const yaml_event_t& current = event.get();
    if (current.type == YAML_STREAM_END_EVENT) break;
    // The source size of a document is measured up to the end of its last
    // scalar, alias or collection start; the marks of end events may lie
    // beyond comments that follow the content.
    const bool node_event = current.type == YAML_SCALAR_EVENT ||
                            current.type == YAML_ALIAS_EVENT ||
                            current.type == YAML_SEQUENCE_START_EVENT ||
                            current.type == YAML_MAPPING_START_EVENT;
    if (node_event) {
      if (current.end_mark.index - document_begin_ >
          limits_.max_document_bytes) {
        return DocumentTooLarge(source_, document_number_, document_line_,
                                limits_.max_document_bytes);
      }
      SetReadLimit(current.end_mark.index);
    }
    RETURN_IF_ERROR(OnEvent(current));
  }
  return std::move(documents_);
}

}  // namespace

StatusOr<std::vector<Document>> ReadYamlStream(std::string_view text,
                                               std::string_view source,
                                               const ReadLimits& limits) {
  return YamlReader(text, source, limits).Run();
}

}  // namespace dralloc::encoding::internal
