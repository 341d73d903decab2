#include "load/load_support.h"

#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include <boost/beast/http/verb.hpp>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "load/object_manifests.h"

namespace dralloc::load {

namespace http = boost::beast::http;

bool IsSuccess(const StatusOr<HttpResult>& result) {
  return result.ok() && result->status >= 200 && result->status < 300;
}

std::string ErrorKey(const StatusOr<HttpResult>& result) {
  if (!result.ok()) return "transport";
  return std::to_string(result->status);
}

void MergeErrorCounts(const ErrorCounts& from, ErrorCounts& into) {
  for (const auto& [key, count] : from) into[key] += count;
}

std::string MakeRunId() {
  std::random_device device;
  std::mt19937 engine(device() ^ static_cast<unsigned>(getpid()));
  return fmt::format("{:08x}", engine());
}

std::string UrlEncode(std::string_view value) {
  std::string encoded;
  for (const char c : value) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                            c == '.' || c == '~';
    if (unreserved) {
      encoded.push_back(c);
    } else {
      encoded += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return encoded;
}

std::string ResourceVersionOf(std::string_view object_body) {
  thread_local simdjson::dom::parser parser;
  std::string_view rv;
  if (parser
          .parse(object_body.data(),
                 object_body.size())["metadata"]["resourceVersion"]
          .get_string()
          .get(rv)) {
    return "";
  }
  return std::string(rv);
}

std::optional<std::string> WithLabel(std::string_view object_body,
                                     std::string_view key,
                                     std::string_view value) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object metadata;
  if (parser.parse(object_body.data(), object_body.size())["metadata"]
          .get_object()
          .get(metadata)) {
    return std::nullopt;
  }
  // Compact JSON as every API server writes it: edit the text in place of
  // a parse and re-encode, which would cost the client more than the server
  // spends on the write. Anything unexpected takes the slow path.
  const std::string entry = nlohmann::json(std::string(key)).dump() + ":";
  const std::string encoded_value = nlohmann::json(std::string(value)).dump();
  simdjson::dom::object labels;
  if (!metadata["labels"].get_object().get(labels)) {
    const size_t labels_at = object_body.find("\"labels\":{");
    const size_t existing = object_body.find(entry);
    if (labels_at != std::string_view::npos &&
        object_body.find("\"labels\":{", labels_at + 1) ==
            std::string_view::npos) {
      std::string out(object_body);
      if (existing != std::string_view::npos && existing > labels_at &&
          labels[key].error() == simdjson::SUCCESS) {
        const size_t start = existing + entry.size();
        const size_t end = out.find('"', start + 1);  // values are plain
        if (out[start] == '"' && end != std::string::npos) {
          out.replace(start, end + 1 - start, encoded_value);
          return out;
        }
      } else if (labels[key].error() == simdjson::NO_SUCH_FIELD) {
        const size_t insert_at = labels_at + 10;  // after "labels":{
        const bool empty = out[insert_at] == '}';
        out.insert(insert_at, entry + encoded_value + (empty ? "" : ","));
        return out;
      }
    }
  }
  nlohmann::json object = nlohmann::json::parse(object_body, nullptr,
                                                /*allow_exceptions=*/false);
  if (!object.is_object()) return std::nullopt;
  nlohmann::json& target = object["metadata"]["labels"];
  if (target.is_null()) target = nlohmann::json::object();
  if (!target.is_object()) return std::nullopt;
  target[std::string(key)] = std::string(value);
  return object.dump();
}

std::optional<std::uint64_t> ParseResourceVersion(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

Status EnsureNamespace(HttpConnection& connection, std::string_view name) {
  const std::string path = fmt::format("{}/{}", NamespacesPath(), name);
  StatusOr<HttpResult> found = connection.Send(http::verb::get, path);
  if (!found.ok()) return found.status();
  // 403: a user bound to a role in the namespace only (RBAC benchmarks)
  // may not read the Namespace object; its requests will tell whether the
  // namespace exists.
  if (found->status == 200 || found->status == 403) return OkStatus();
  if (found->status != 404) {
    return InternalError(
        fmt::format("GET {}: HTTP {}: {}", path, found->status, found->body));
  }
  StatusOr<HttpResult> created = connection.Send(
      http::verb::post, NamespacesPath(), NamespaceManifest(name).dump());
  if (!created.ok()) return created.status();
  if (created->status != 201 && created->status != 409) {
    return InternalError(fmt::format("POST {} ({}): HTTP {}: {}",
                                     NamespacesPath(), name, created->status,
                                     created->body));
  }
  return OkStatus();
}

std::optional<std::int64_t> ReadVmRssKib(int pid) {
  std::ifstream status_file(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(status_file, line)) {
    if (!line.starts_with("VmRSS:")) continue;
    const std::size_t start = line.find_first_not_of(" \t", 6);
    if (start == std::string::npos) return std::nullopt;
    std::int64_t kib = 0;
    const char* begin = line.data() + start;
    const auto [end, error] =
        std::from_chars(begin, line.data() + line.size(), kib);
    if (error != std::errc()) return std::nullopt;
    return kib;
  }
  return std::nullopt;
}

double SecondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

std::string ErrorsText(const ErrorCounts& errors) {
  std::string text;
  for (const auto& [key, count] : errors) {
    text += fmt::format(" {}={}", key, count);
  }
  return text.empty() ? " none" : text;
}

}  // namespace dralloc::load
