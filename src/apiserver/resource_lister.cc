#include "apiserver/resource_lister.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <thread>
#include <utility>

#include "apiserver/resource_storage.h"

namespace dralloc::apiserver {
namespace {

bool IsStorageVersion(const RequestScope& scope) {
  return scope.version == scope.info->versions[0];
}

simdjson::dom::parser& Parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// A field selector's view of a stored object: dotted paths into its JSON.
std::string FieldValue(simdjson::dom::element root, std::string_view field) {
  if (field == "source") field = "source.component";
  simdjson::dom::element e = root;
  while (!field.empty()) {
    const size_t dot = field.find('.');
    const std::string_view part = field.substr(0, dot);
    field = dot == std::string_view::npos ? std::string_view()
                                          : field.substr(dot + 1);
    simdjson::dom::element child;
    if (e[part].get(child) != simdjson::SUCCESS) return {};
    e = child;
  }
  if (e.is_string()) return std::string(e.get_string().value());
  if (e.is_bool()) return e.get_bool().value() ? "true" : "false";
  if (e.is_int64()) return std::to_string(e.get_int64().value());
  return {};
}

// The kind upstream names in a 422 for bad list parameters.
const api::ResourceInfo& ListOptionsInfo() {
  static const api::ResourceInfo info{.group = "meta.k8s.io",
                                      .kind = "ListOptions"};
  return info;
}

// Upstream's ValidateListOptions for a list (watches validate their own).
api::ErrorList ValidateListOptions(const ListOptions& options) {
  api::ErrorList errors;
  const api::FieldPath match_path("resourceVersionMatch");
  const std::string& match = options.resource_version_match;
  if (!match.empty()) {
    if (options.resource_version.empty()) {
      errors.push_back(api::Forbidden(
          match_path,
          "resourceVersionMatch is forbidden unless resourceVersion is "
          "provided"));
    }
    if (!options.continue_token.empty()) {
      errors.push_back(api::Forbidden(
          match_path,
          "resourceVersionMatch is forbidden when continue is provided"));
    }
    if (match != "Exact" && match != "NotOlderThan") {
      errors.push_back(
          api::NotSupported(match_path, match, {"Exact", "NotOlderThan", ""}));
    }
    if (match == "Exact" && options.resource_version == "0") {
      errors.push_back(api::Forbidden(
          match_path,
          "resourceVersionMatch \"exact\" is forbidden for resourceVersion "
          "\"0\""));
    }
  }
  if (options.send_initial_events) {
    errors.push_back(api::Forbidden(api::FieldPath("sendInitialEvents"),
                                    "sendInitialEvents is forbidden for list"));
  }
  return errors;
}

constexpr std::string_view kListTooOld =
    "The resourceVersion for the provided list is too old.";
constexpr std::string_view kContinueTooOld =
    "The provided continue parameter is too old to display a consistent list "
    "result. You can start a new list without the continue parameter.";
constexpr std::string_view kInconsistentContinue =
    "The provided continue parameter is too old to display a consistent list "
    "result. You can start a new list without the continue parameter, or use "
    "the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent "
    "list - objects that were created, modified, or deleted between the time "
    "the first chunk was returned and now may show up in the list.";

// The requested resourceVersion; 0 for none and for "0" (any).
ApiOr<int64_t> RequestedRevision(const ListOptions& options) {
  if (options.resource_version.empty()) return int64_t{0};
  char* end = nullptr;
  const long long value =
      std::strtoll(options.resource_version.c_str(), &end, 10);
  if (*end != '\0' || value < 0 || options.resource_version[0] == '+' ||
      options.resource_version[0] == '-' ||
      std::isspace(static_cast<unsigned char>(options.resource_version[0]))) {
    return BadRequest(fmt::format(
        "invalid resource version: resourceVersion: Invalid value: \"{}\": "
        "must be a non-negative integer",
        options.resource_version));
  }
  return int64_t{value};
}

// The 410 of a list whose revision the store no longer holds. Like
// upstream, a continued list can still read the remainder at the latest
// revision, with the token this error carries.
ApiError TooOld(const std::optional<ContinueToken>& token,
                const std::string& prefix) {
  if (!token) return Gone(std::string(kListTooOld));
  ApiError gone = Gone(std::string(kContinueTooOld));
  auto fresh =
      ContinueToken{ContinueToken::kLatest, token->start}.Encode(prefix);
  if (fresh.ok()) {
    gone.message = std::string(kInconsistentContinue);
    gone.metadata = {{"continue", *fresh}};
  }
  return gone;
}

}  // namespace

std::optional<ApiError> ResourceLister::WaitForRevision(
    int64_t revision) const {
  if (store_.Revision() >= revision) return std::nullopt;
  const auto deadline =
      std::chrono::steady_clock::now() + too_large_resource_version_wait_;
  // Any write wakes the wait; the revision is checked after each.
  auto watcher = store_.Watch("", store_.Revision());
  while (store_.Revision() < revision) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return TooLargeResourceVersion(revision, store_.Revision());
    }
    const auto step = std::min(left, std::chrono::milliseconds(100));
    if (!watcher.ok() || !(*watcher)->Next(step).ok()) {
      std::this_thread::sleep_for(
          std::min(step, std::chrono::milliseconds(10)));
      watcher = store_.Watch("", store_.Revision());
    }
  }
  return std::nullopt;
}
bool ResourceLister::Selected(const std::string& stored,
                              const LabelSelector& labels,
                              const FieldSelector& fields) {
  if (labels.empty() && fields.empty()) return true;
  simdjson::dom::element root;
  if (Parser().parse(stored).get(root) != simdjson::SUCCESS) return false;
  if (!labels.empty()) {
    std::map<std::string, std::string> map;
    simdjson::dom::object object;
    if (root["metadata"]["labels"].get(object) == simdjson::SUCCESS) {
      for (auto [key, value] : object) {
        std::string_view text;
        if (value.get(text) == simdjson::SUCCESS) {
          map.emplace(std::string(key), std::string(text));
        }
      }
    }
    if (!labels.Matches(map)) return false;
  }
  if (!fields.empty()) {
    return fields.Matches(
        [&](std::string_view field) { return FieldValue(root, field); });
  }
  return true;
}

ApiOr<ResourceLister::ReadPoint> ResourceLister::Start(
    const std::string& prefix, const ListOptions& options) const {
  auto requested = RequestedRevision(options);
  if (!requested.ok()) return requested.error();
  ReadPoint point;
  if (!options.continue_token.empty()) {
    if (*requested != 0) {
      return BadRequest(
          "specifying resource version is not allowed when using continue");
    }
    auto decoded = ContinueToken::Decode(options.continue_token, prefix);
    if (!decoded.ok()) {
      return BadRequest(fmt::format("invalid continue token: {}",
                                    decoded.status().message()));
    }
    point.token = std::move(*decoded);
    point.start = point.token->start;
    if (point.token->revision > 0) {
      if (auto error = WaitForRevision(point.token->revision)) return *error;
      point.revision = point.token->revision;
    }
  } else if (options.resource_version.empty()) {
    // The most recent state: consistent across servers sharing the store.
    if (Status synced = store_.Sync(); !synced.ok()) {
      return StorageUnavailable(synced);
    }
  } else if (*requested > 0) {
    if (auto error = WaitForRevision(*requested)) return *error;
    // Exact, or the legacy form with a limit, reads at that revision;
    // NotOlderThan (and the legacy form without a limit) reads the latest,
    // which is not older.
    const std::string& match = options.resource_version_match;
    if (match == "Exact" || (match.empty() && options.limit > 0)) {
      point.revision = *requested;
    }
  }
  return point;
}

ApiOr<ResourceLister::Page> ResourceLister::Read(const RequestScope& scope,
                                                 const ListOptions& options,
                                                 const std::string& prefix,
                                                 ReadPoint point) const {
  Page out;
  out.revision = point.revision;
  std::string& start = point.start;
  const bool filtered = !options.labels.empty() || !options.fields.empty();
  // Pages are filled after filtering: read in batches until `limit` items
  // pass the selectors or the collection ends. Every batch reads the
  // revision of the first, so the page is one snapshot.
  // Like upstream, a batch that selectors thin out is followed by larger
  // ones (up to 10000).
  size_t batch =
      options.limit == 0
          ? 0
          : (filtered ? std::max<size_t>(options.limit, 256) : options.limit);
  const auto full = [&] {
    return options.limit != 0 && out.items.size() == options.limit;
  };
  for (;;) {
    auto page = store_.ListAt(prefix, start, batch, out.revision);
    if (!page.ok()) {
      if (page.status().code() != StatusCode::kOutOfRange) {
        return StorageError(*scope.info, "", page.status());
      }
      return TooOld(point.token, prefix);
    }
    out.revision = page->revision;
    size_t consumed = 0;
    for (store::KeyValue& kv : page->items) {
      ++consumed;
      if (!Selected(*kv.value, options.labels, options.fields)) continue;
      if (!IsStorageVersion(scope)) {
        auto converted = ResourceStorage::ToVersion(scope, *kv.value);
        if (!converted.ok()) return converted.error();
        kv.value = std::make_shared<const std::string>(std::move(*converted));
      }
      out.items.push_back(std::move(kv.value));
      out.last_key = kv.key;
      if (full()) break;
    }
    if (full()) {
      out.more = consumed < page->items.size() || page->more;
      out.remaining = page->remaining + (page->items.size() - consumed);
      break;
    }
    if (!page->more || page->items.empty()) break;
    // The next batch starts right after the last key read.
    start = page->items.back().key;
    start.push_back('\0');
    batch = std::max(batch, std::min<size_t>(batch * 2, 10000));
  }
  return out;
}

ApiOr<std::string> ResourceLister::List(const RequestScope& scope,
                                        const ListOptions& options) const {
  if (api::ErrorList errors = ValidateListOptions(options); !errors.empty()) {
    return Invalid(ListOptionsInfo(), "", errors);
  }
  const std::string prefix =
      ResourceStorage::Prefix(*scope.info, scope.namespace_);
  auto point = Start(prefix, options);
  if (!point.ok()) return point.error();
  auto page = Read(scope, options, prefix, std::move(*point));
  if (!page.ok()) return page.error();
  Json metadata = {{"resourceVersion", std::to_string(page->revision)}};
  if (page->more) {
    std::string next = std::move(page->last_key);
    next.push_back('\0');
    auto encoded =
        ContinueToken{page->revision, std::move(next)}.Encode(prefix);
    if (!encoded.ok()) {
      return StorageError(*scope.info, "", encoded.status());
    }
    metadata["continue"] = *encoded;
    // The count of what follows is exact only without selectors.
    if (options.labels.empty() && options.fields.empty()) {
      metadata["remainingItemCount"] = page->remaining;
    }
  }
  std::string out = fmt::format(
      R"({{"kind":"{}List","apiVersion":"{}","metadata":{},"items":[)",
      scope.info->kind, scope.info->GroupVersion(scope.version),
      metadata.dump());
  const std::vector<store::Value>& items = page->items;
  size_t size = out.size() + 2;
  for (const store::Value& item : items) size += item->size() + 1;
  out.reserve(size);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    out += *items[i];
  }
  out += "]}";
  return out;
}

}  // namespace dralloc::apiserver
