#include "apiserver/managed_fields_writer.h"

#include <fmt/format.h>

#include <optional>
#include <utility>
#include <vector>

#include "api/codec.h"
#include "apiserver/api_error.h"
#include "common/clock.h"
#include "patch/patch_schema.h"
#include "patch/server_side_apply.h"
#include "store/store.h"

namespace dralloc::apiserver {

namespace {
// Objects are encoded before the store serialises the write; the revision
// is spliced in afterwards, in place of this marker.
constexpr std::string_view kRevisionMarker =
    "\"resourceVersion\":\"@revision@\"";
static_assert(kRevisionMarker.find(store::kRevisionMarker) !=
              std::string_view::npos);
}  // namespace

std::string ManagedFieldsWriter::WithRevision(std::string text,
                                              int64_t revision) {
  // The store puts the revision in itself (its marker is inside ours).
  if (revision == store::kRevisionAtCommit) return text;
  const size_t at = text.find(kRevisionMarker);
  if (at != std::string::npos) {
    text.replace(at, kRevisionMarker.size(),
                 fmt::format("\"resourceVersion\":\"{}\"", revision));
  }
  return text;
}

std::string ManagedFieldsWriter::StoredText(const api::Object* old,
                                            api::Object& next) const {
  api::MetaOf(next).resource_version = "@revision@";
  if (!manager_.empty() && old == nullptr &&
      api::MetaOf(next).managed_fields.empty()) {
    return CreatedText(next);
  }
  if (!manager_.empty()) RecordManagedFields(old, next);
  auto text = api::EncodeObjectText(next, api::PreferredVersion(next));
  return text.ok() ? std::move(*text) : std::string(kUnencodable);
}

std::string ManagedFieldsWriter::CreatedText(api::Object& next) const {
  // The text encoder writes raw JSON as it is and escapes control
  // characters in strings, so this byte marks only the entry's place.
  constexpr std::string_view kEntryPlace = "\x01";
  std::vector<api::RawJson>& managed = api::MetaOf(next).managed_fields;
  managed = {api::RawJson{std::string(kEntryPlace), /*canonical=*/true}};
  const std::string_view version = api::PreferredVersion(next);
  auto text = api::EncodeObjectText(next, version);
  if (!text.ok()) {
    managed.clear();
    return std::string(kUnencodable);
  }
  const patch::ApplyOptions options{manager_, false,
                                    scope_.info->GroupVersion(scope_.version),
                                    NowRfc3339(), scope_.subresource};
  std::vector<std::string> entries = patch::RecordCreateEntries(
      *text,
      [&] {
        std::vector<api::RawJson> place;
        std::swap(place, managed);
        auto tree = api::EncodeObject(next, version);
        std::swap(place, managed);
        return tree.ok() ? std::move(*tree) : Json(nullptr);
      },
      patch::SchemaFor(*scope_.info), options);
  managed.clear();
  for (std::string& entry : entries) {
    managed.push_back({std::move(entry), /*canonical=*/true});
  }
  const size_t at = text->find(kEntryPlace);
  if (managed.size() == 1 && at != std::string::npos) {
    text->replace(at, kEntryPlace.size(), managed[0].json);
    return std::move(*text);
  }
  text = api::EncodeObjectText(next, version);
  return text.ok() ? std::move(*text) : std::string(kUnencodable);
}

void ManagedFieldsWriter::RecordManagedFields(const api::Object* old,
                                              api::Object& next) const {
  const patch::PatchSchema& schema = patch::SchemaFor(*scope_.info);
  const patch::ApplyOptions options{manager_, false,
                                    scope_.info->GroupVersion(scope_.version),
                                    NowRfc3339(), scope_.subresource};
  std::optional<std::pair<api::Object, api::Object>> differing;
  if (old != nullptr) differing = api::DifferingMembers(*old, next);
  if (!differing) {
    // A create (field sets of alike creates are cached by structure), or
    // objects of different kinds: whole JSON trees.
    auto after = api::EncodeObject(next, api::PreferredVersion(next));
    if (!after.ok()) return;
    Json before = nullptr;
    if (old != nullptr) {
      auto encoded = api::EncodeObject(*old, api::PreferredVersion(*old));
      if (encoded.ok()) before = std::move(*encoded);
    }
    const Json recorded =
        patch::RecordUpdate(before, std::move(*after), schema, options);
    std::vector<api::RawJson> entries;
    if (auto metadata = recorded.find("metadata");
        metadata != recorded.end() && metadata->is_object()) {
      if (auto managed = metadata->find("managedFields");
          managed != metadata->end() && managed->is_array()) {
        for (const Json& entry : *managed) {
          entries.push_back({entry.dump(), /*canonical=*/true});
        }
      }
    }
    api::MetaOf(next).managed_fields = std::move(entries);
    return;
  }
  // An update: ownership follows the JSON difference between old and next,
  // which only the members that differ contribute to, so encode just those,
  // and keep the managedFields apart as text.
  // Taken out of the copies as compact JSON (what the text encoder would
  // write for them).
  auto texts_of = [](std::vector<api::RawJson>& entries) {
    std::vector<std::string> texts;
    for (api::RawJson& entry : entries) {
      if (entry.canonical) {
        texts.push_back(std::move(entry.json));
      } else {
        texts.push_back(Json::parse(entry.json, nullptr, false).dump());
      }
    }
    entries.clear();
    return texts;
  };
  const std::vector<std::string> old_entries =
      texts_of(api::MetaOf(differing->first).managed_fields);
  const std::vector<std::string> new_entries =
      texts_of(api::MetaOf(differing->second).managed_fields);
  auto before =
      api::EncodeObject(differing->first, api::PreferredVersion(*old));
  auto after =
      api::EncodeObject(differing->second, api::PreferredVersion(next));
  if (!before.ok() || !after.ok()) return;
  std::vector<api::RawJson> entries;
  for (std::string& text : patch::RecordUpdateEntries(
           *before, *after, new_entries, old_entries, schema, options)) {
    entries.push_back({std::move(text), /*canonical=*/true});
  }
  api::MetaOf(next).managed_fields = std::move(entries);
}

}  // namespace dralloc::apiserver
