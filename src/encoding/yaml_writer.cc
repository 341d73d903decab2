#include "encoding/yaml_writer.h"

#include <yaml.h>

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::encoding {
namespace {

using Json = nlohmann::ordered_json;

// Length of the valid UTF-8 sequence at s[i] (no overlong forms, surrogates
// or code points above U+10FFFF), or 0 if there is none.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(s[i + k]);
  };
  const auto continuation = [&](size_t k) {
    return i + k < s.size() && (byte(k) & 0xC0) == 0x80;
  };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (b0 == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
    if (b0 == 0xED && byte(1) >= 0xA0) return 0;  // surrogates
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (b0 == 0xF0 && byte(1) < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && byte(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Returns `s` with every invalid UTF-8 byte replaced by U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t length = Utf8SequenceLength(s, i);
    if (length == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(s.substr(i, length));
      i += length;
    }
  }
  return out;
}

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// True if a plain scalar with this text could be read as something other
// than this string, under our reader's rules or YAML 1.1 (as Kubernetes
// reads YAML), or is otherwise better quoted.
bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() <= 5) {
    std::string lower;
    for (char c : s) lower.push_back(AsciiLower(c));
    for (std::string_view word : {"~", "null", "true", "false", "yes", "no",
                                  "on", "off", "y", "n", "<<", "="}) {
      if (lower == word) return true;
    }
  }
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) !=
      std::string_view::npos) {
    return true;
  }
  if (IsBlank(s.front()) || IsBlank(s.back())) return true;
  if (s.back() == ':' || s.find(": ") != std::string_view::npos ||
      s.find(" #") != std::string_view::npos) {
    return true;
  }
  // Numbers, YAML 1.1 numbers (octal, hex, binary, sexagesimal, floats,
  // .inf, .nan) and timestamps start with a digit or '.' after an optional
  // sign and use only a few characters.
  std::string_view t = s;
  if (t.front() == '+' || t.front() == '-') t.remove_prefix(1);
  if (t.empty()) return true;
  if (t.front() == '.') {
    std::string lower;
    for (char c : t.substr(0, 5)) lower.push_back(AsciiLower(c));
    if (t.size() == 4 && (lower == ".inf" || lower == ".nan")) return true;
  }
  if (IsAsciiDigit(t.front()) || t.front() == '.') {
    constexpr std::string_view kNumberChars =
        "0123456789abcdefABCDEFxXoO_.:+-tTzZ \t";
    if (t.find_first_not_of(kNumberChars) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

int WriteToString(void* data, unsigned char* buffer, size_t size) {
  try {
    static_cast<std::string*>(data)->append(reinterpret_cast<char*>(buffer),
                                            size);
    return 1;
  } catch (...) {
    return 0;
  }
}

class Emitter {
 public:
  Emitter() {
    ok_ = yaml_emitter_initialize(&emitter_) != 0;
    if (!ok_) return;
    yaml_emitter_set_output(&emitter_, WriteToString, &out_);
    yaml_emitter_set_encoding(&emitter_, YAML_UTF8_ENCODING);
    yaml_emitter_set_unicode(&emitter_, 1);
    yaml_emitter_set_indent(&emitter_, 2);
    yaml_emitter_set_width(&emitter_, -1);
    yaml_emitter_set_break(&emitter_, YAML_LN_BREAK);
  }
  ~Emitter() {
    if (ok_) yaml_emitter_delete(&emitter_);
  }
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  // Emits one document; false on any libyaml failure.
  bool EmitDocument(const Json& value) {
    if (!ok_) return false;
    yaml_event_t event;
    if (!yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING) ||
        !Emit(&event)) {
      return false;
    }
    if (!yaml_document_start_event_initialize(&event, nullptr, nullptr, nullptr,
                                              /*implicit=*/1) ||
        !Emit(&event)) {
      return false;
    }
    if (!EmitTree(value)) return false;
    if (!yaml_document_end_event_initialize(&event, /*implicit=*/1) ||
        !Emit(&event)) {
      return false;
    }
    if (!yaml_stream_end_event_initialize(&event) || !Emit(&event)) {
      return false;
    }
    return yaml_emitter_flush(&emitter_) != 0;
  }

  std::string& output() { return out_; }

 private:
  struct Frame {
    const Json* node;
    Json::const_iterator next;
  };

  bool Emit(yaml_event_t* event) {
    // yaml_emitter_emit takes ownership of the event, also on failure.
    return yaml_emitter_emit(&emitter_, event) != 0;
  }

  bool EmitScalar(std::string_view text, yaml_scalar_style_t style) {
    yaml_event_t event;
    if (!yaml_scalar_event_initialize(
            &event, nullptr, nullptr,
            reinterpret_cast<yaml_char_t*>(const_cast<char*>(text.data())),
            static_cast<int>(text.size()), /*plain_implicit=*/1,
            /*quoted_implicit=*/1, style)) {
      return false;
    }
    return Emit(&event);
  }

  bool EmitString(const std::string& raw) {
    const std::string text = ValidUtf8(raw);
    yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
    if (NeedsQuotes(text)) {
      style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    } else if (text.find('\n') != std::string::npos) {
      // libyaml falls back to double quotes where a literal block cannot
      // hold the text exactly (and for keys).
      style = YAML_LITERAL_SCALAR_STYLE;
    }
    // For other plain text that YAML cannot hold plainly, libyaml picks
    // quotes itself.
    return EmitScalar(text, style);
  }

  // Emits a scalar, or the start of a container (pushing a frame).
  bool EmitNode(const Json& node, std::vector<Frame>& stack) {
    switch (node.type()) {
      case Json::value_t::object:
      case Json::value_t::array: {
        yaml_event_t event;
        const bool ok =
            node.is_object()
                ? yaml_mapping_start_event_initialize(
                      &event, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE)
                : yaml_sequence_start_event_initialize(
                      &event, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if (!ok || !Emit(&event)) return false;
        stack.push_back(Frame{&node, node.begin()});
        return true;
      }
      case Json::value_t::string:
        return EmitString(node.get_ref<const std::string&>());
      case Json::value_t::boolean:
        return EmitScalar(node.get<bool>() ? "true" : "false",
                          YAML_PLAIN_SCALAR_STYLE);
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
      case Json::value_t::number_float:
        return EmitScalar(node.dump(), YAML_PLAIN_SCALAR_STYLE);
      default:  // null, binary, discarded
        return EmitScalar("null", YAML_PLAIN_SCALAR_STYLE);
    }
  }

  // Walks the tree with an explicit stack, so deep values cannot overflow
  // the call stack.
  bool EmitTree(const Json& root) {
    std::vector<Frame> stack;
    if (!EmitNode(root, stack)) return false;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == frame.node->end()) {
        const bool is_object = frame.node->is_object();
        stack.pop_back();
        yaml_event_t event;
        const bool ok = is_object ? yaml_mapping_end_event_initialize(&event)
                                  : yaml_sequence_end_event_initialize(&event);
        if (!ok || !Emit(&event)) return false;
        continue;
      }
      const auto current = frame.next++;  // before EmitNode may grow stack
      if (frame.node->is_object() && !EmitString(current.key())) return false;
      if (!EmitNode(current.value(), stack)) return false;
    }
    return true;
  }

  yaml_emitter_t emitter_;
  bool ok_ = false;
  std::string out_;
};

// JSON is YAML too; used only if libyaml fails.
std::string JsonFallback(const Json& value) {
  try {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  } catch (...) {
    return "null\n";
  }
}

}  // namespace

std::string ToYaml(const nlohmann::ordered_json& value) {
  try {
    Emitter emitter;
    if (!emitter.EmitDocument(value)) return JsonFallback(value);
    std::string out = std::move(emitter.output());
    if (out.empty() || out.back() != '\n') out.push_back('\n');
    return out;
  } catch (...) {
    return JsonFallback(value);
  }
}

std::string ToYamlStream(const std::vector<nlohmann::ordered_json>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.append("---\n");
    out.append(ToYaml(values[i]));
  }
  return out;
}

}  // namespace dralloc::encoding
