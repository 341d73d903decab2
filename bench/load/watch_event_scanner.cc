#include "load/watch_event_scanner.h"

#include <nlohmann/json.hpp>

namespace dralloc::load {
namespace {

// The string value that starts right after `prefix`'s first occurrence at or
// after `from`, up to the next quote; nullopt if the prefix or the closing
// quote is missing or the value has an escape.
std::optional<std::string_view> QuotedValueAfter(std::string_view line,
                                                 std::string_view prefix,
                                                 std::size_t from) {
  const std::size_t start = line.find(prefix, from);
  if (start == std::string_view::npos) return std::nullopt;
  const std::size_t value_start = start + prefix.size();
  const std::size_t end = line.find('"', value_start);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view value = line.substr(value_start, end - value_start);
  if (value.find('\\') != std::string_view::npos) return std::nullopt;
  return value;
}

std::optional<WatchEventLine> ParseFully(std::string_view line) {
  const nlohmann::json event =
      nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!event.is_object()) return std::nullopt;
  const auto type = event.find("type");
  if (type == event.end() || !type->is_string()) return std::nullopt;
  WatchEventLine result{.type = type->get<std::string>()};
  const auto object = event.find("object");
  if (object == event.end() || !object->is_object()) return result;
  const auto metadata = object->find("metadata");
  if (metadata == object->end() || !metadata->is_object()) return result;
  const auto rv = metadata->find("resourceVersion");
  if (rv != metadata->end() && rv->is_string()) {
    result.resource_version = rv->get<std::string>();
  }
  return result;
}

}  // namespace

std::optional<WatchEventLine> ScanWatchEventLine(std::string_view line) {
  constexpr std::string_view kTypePrefix = R"({"type":")";
  constexpr std::string_view kResourceVersionPrefix = R"("resourceVersion":")";
  if (line.starts_with(kTypePrefix)) {
    const std::optional<std::string_view> type =
        QuotedValueAfter(line, kTypePrefix, 0);
    if (type.has_value()) {
      const std::optional<std::string_view> rv = QuotedValueAfter(
          line, kResourceVersionPrefix, kTypePrefix.size() + type->size());
      if (rv.has_value()) {
        return WatchEventLine{.type = std::string(*type),
                              .resource_version = std::string(*rv)};
      }
    }
  }
  return ParseFully(line);
}

}  // namespace dralloc::load
