#include "apiserver/resource_storage.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <ctime>
#include <optional>
#include <span>

#include "api/codec.h"
#include "api/pod_conditions.h"
#include "apiserver/patch_request.h"
#include "common/clock.h"
#include "patch/patch_schema.h"
#include "patch/server_side_apply.h"
#include "registry/pod_strategy.h"
#include "registry/rest_errors.h"
#include "registry/write_rules.h"

namespace dralloc::apiserver {
namespace {

constexpr int kMaxWriteAttempts = 64;

bool IsStorageVersion(const RequestScope& scope) {
  return scope.version == scope.info->versions[0];
}

simdjson::dom::parser& Parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// True if a stored namespace is being deleted.
bool IsTerminating(const std::string& stored_namespace) {
  simdjson::dom::element root;
  if (Parser().parse(stored_namespace).get(root) != simdjson::SUCCESS) {
    return false;
  }
  simdjson::dom::element ignored;
  if (root["metadata"]["deletionTimestamp"].get(ignored) == simdjson::SUCCESS &&
      !ignored.is_null()) {
    return true;
  }
  std::string_view phase;
  return root["status"]["phase"].get(phase) == simdjson::SUCCESS &&
         phase == "Terminating";
}

// The namespaces of `store` for admission rules.
class StoredNamespaces final : public registry::NamespaceLookup {
 public:
  explicit StoredNamespaces(store::Store& store) : store_(store) {}
  std::optional<api::StringMap> Labels(std::string_view name) const override {
    auto stored = store_.Get("/namespaces/" + std::string(name));
    if (!stored) return std::nullopt;
    auto decoded = api::DecodeDocument(*stored->value, {.strict = false});
    if (decoded.size() != 1 || !decoded[0].object) return api::StringMap();
    return std::move(api::MetaOf(*decoded[0].object).labels);
  }

 private:
  store::Store& store_;
};

// What an update of `scope` writes.
registry::WritePart PartOf(const RequestScope& scope,
                           const WriteOptions& options) {
  if (scope.subresource == "status") return registry::WritePart::kStatus;
  if (scope.subresource == "finalize") return registry::WritePart::kFinalize;
  if (scope.subresource == "binding" || options.with_status) {
    return registry::WritePart::kObjectAndStatus;
  }
  return registry::WritePart::kObject;
}

// The subset of DeleteOptions the server honours.
struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string uid;
  std::string resource_version;
  bool dry_run = false;  // kubectl sends dryRun in the body, not the query
};

ApiOr<DeleteOptions> ParseDeleteOptions(std::string_view body) {
  DeleteOptions options;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return options;
  }
  Json json = Json::parse(body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return BadRequest("the DeleteOptions body is not a JSON object");
  }
  if (auto it = json.find("preconditions");
      it != json.end() && it->is_object()) {
    if (auto uid = it->find("uid"); uid != it->end() && uid->is_string()) {
      options.uid = uid->get<std::string>();
    }
    if (auto rv = it->find("resourceVersion");
        rv != it->end() && rv->is_string()) {
      options.resource_version = rv->get<std::string>();
    }
  }
  if (auto it = json.find("gracePeriodSeconds"); it != json.end()) {
    if (it->is_number_integer()) {
      options.grace_period_seconds = it->get<int64_t>();
    } else if (!it->is_null()) {
      return BadRequest(
          "DeleteOptions: gracePeriodSeconds: Invalid value: must be an "
          "integer");
    }
  }
  if (auto it = json.find("dryRun"); it != json.end() && it->is_array()) {
    for (const Json& value : *it) {
      if (value == "All") options.dry_run = true;
    }
  }
  return options;
}

}  // namespace

ResourceStorage::ResourceStorage(store::Store& store)
    : store_(store),
      lister_(store),
      allocations_(
          store,
          [](const std::string& stored) -> std::optional<api::ResourceClaim> {
            std::vector<api::DecodeResult> decoded =
                api::DecodeDocument(stored);
            if (decoded.size() != 1 || !decoded[0].object) return std::nullopt;
            auto* claim = std::get_if<api::ResourceClaim>(&*decoded[0].object);
            if (claim == nullptr) return std::nullopt;
            return std::move(*claim);
          }),
      in_process_watchers_(api::AllResources().size()) {}

namespace {

// The index of `resource` in api::AllResources() (also for a copy of an
// entry), or nullopt for a resource that is not served.
std::optional<size_t> ResourceIndex(const api::ResourceInfo& resource) {
  const std::span<const api::ResourceInfo> all = api::AllResources();
  if (&resource >= all.data() && &resource < all.data() + all.size()) {
    return static_cast<size_t>(&resource - all.data());
  }
  for (const api::ResourceInfo& entry : all) {
    if (entry.store_prefix == resource.store_prefix) {
      return static_cast<size_t>(&entry - all.data());
    }
  }
  return std::nullopt;
}

}  // namespace

void ResourceStorage::AddInProcessWatcher(
    const api::ResourceInfo& resource) const {
  if (const auto index = ResourceIndex(resource)) {
    in_process_watchers_[*index].fetch_add(1, std::memory_order_relaxed);
  }
}

void ResourceStorage::RemoveInProcessWatcher(
    const api::ResourceInfo& resource) const {
  if (const auto index = ResourceIndex(resource)) {
    in_process_watchers_[*index].fetch_sub(1, std::memory_order_relaxed);
  }
}

bool ResourceStorage::PublishesWrites(const api::ResourceInfo& resource,
                                      const WriteOptions& options) const {
  if (options.want_object) return true;
  const auto index = ResourceIndex(resource);
  return index.has_value() &&
         in_process_watchers_[*index].load(std::memory_order_relaxed) > 0;
}

std::string ResourceStorage::Key(const api::ResourceInfo& info,
                                 std::string_view namespace_,
                                 std::string_view name) {
  if (info.namespaced) {
    return fmt::format("/{}/{}/{}", info.store_prefix, namespace_, name);
  }
  return fmt::format("/{}/{}", info.store_prefix, name);
}

std::string ResourceStorage::Prefix(const api::ResourceInfo& info,
                                    std::string_view namespace_) {
  if (info.namespaced && !namespace_.empty()) {
    return fmt::format("/{}/{}/", info.store_prefix, namespace_);
  }
  return fmt::format("/{}/", info.store_prefix);
}

const api::ResourceInfo* ResourceStorage::InfoForKey(std::string_view key) {
  if (key.size() < 2) return nullptr;
  for (const api::ResourceInfo& info : api::AllResources()) {
    const std::string_view prefix = info.store_prefix;
    if (key.size() > prefix.size() + 1 &&
        key.substr(1, prefix.size()) == prefix &&
        key[prefix.size() + 1] == '/') {
      return &info;
    }
  }
  return nullptr;
}

ApiOr<std::string> ResourceStorage::ToVersion(const RequestScope& scope,
                                              const std::string& stored) {
  if (IsStorageVersion(scope)) return stored;
  auto object = DecodeStored(scope, stored);
  if (!object.ok()) return object.error();
  auto text =
      api::EncodeObjectText(*object, scope.info->GroupVersion(scope.version));
  if (!text.ok()) {
    return ApiError{500, "InternalError",
                    fmt::format("converting to {}: {}", scope.version,
                                text.status().message()),
                    nullptr};
  }
  return std::move(*text);
}

ApiOr<api::Object> ResourceStorage::DecodeStored(const RequestScope& scope,
                                                 const std::string& stored) {
  auto results = api::DecodeDocument(stored, {.strict = false});
  if (results.size() != 1 || !results[0].object) {
    return ApiError{
        500, "InternalError",
        fmt::format("stored {} cannot be decoded", scope.info->kind), nullptr};
  }
  return std::move(*results[0].object);
}

ApiOr<WriteResult> ResourceStorage::Respond(
    const RequestScope& scope, int code, const std::string& stored,
    std::vector<std::string> warnings) const {
  auto body = ToVersion(scope, stored);
  if (!body.ok()) return body.error();
  return WriteResult{code, std::move(*body), std::move(warnings)};
}

store::ValueEncoder ResourceStorage::Publisher(const RequestScope& scope,
                                               const std::string& key,
                                               const std::string& text,
                                               api::Object* object,
                                               SharedObject* published) const {
  return [this, &scope, &key, &text, object, published](int64_t revision) {
    // A revision assigned at commit is not known yet: the caller publishes
    // once the write returns (Publish).
    if (object != nullptr && revision != store::kRevisionAtCommit) {
      *published = Publish(scope, key, revision, *object);
    }
    return WithRevision(text, revision);
  };
}

SharedObject ResourceStorage::Publish(const RequestScope& scope,
                                      const std::string& key, int64_t revision,
                                      api::Object& object) const {
  api::MetaOf(object).resource_version = std::to_string(revision);
  const std::string_view version = api::PreferredVersion(object);
  std::visit(
      [&](auto& typed) {
        typed.api_version = std::string(version);
        typed.kind = std::string(scope.info->kind);
      },
      object);
  auto shared = std::make_shared<const api::Object>(std::move(object));
  decoded_.Insert(key, revision, shared);
  return shared;
}

ApiOr<WriteResult> ResourceStorage::Written(
    const RequestScope& scope, const WriteOptions& options, int code,
    const store::KeyValue& stored, SharedObject published,
    std::vector<std::string> warnings) const {
  if (!options.want_object)
    return Respond(scope, code, *stored.value, warnings);
  WriteResult result{code, {}, std::move(warnings), std::move(published)};
  if (result.object != nullptr) {
#ifndef NDEBUG
    // The cache stands for the stored bytes: they must decode to it.
    auto decoded = DecodeStored(scope, *stored.value);
    if (!decoded.ok() || !(*decoded == *result.object)) {
      auto text = api::EncodeObjectText(*result.object,
                                        api::PreferredVersion(*result.object));
      fmt::print(stderr,
                 "decoded-object cache: {} (encoding {}) differs from its "
                 "bytes {}\n",
                 stored.key, text.ok() ? *text : "?", *stored.value);
      std::abort();
    }
#endif
    return result;
  }
  auto decoded = DecodeStored(scope, *stored.value);
  if (!decoded.ok()) return decoded.error();
  result.object = std::make_shared<const api::Object>(std::move(*decoded));
  if (stored.mod_revision != 0) {
    decoded_.Insert(stored.key, stored.mod_revision, result.object);
  }
  return result;
}

ApiOr<SharedObject> ResourceStorage::Current(const RequestScope& scope,
                                             const store::KeyValue& kv,
                                             bool cache) const {
  if (SharedObject hit = decoded_.Find(kv.key, kv.mod_revision)) return hit;
  auto decoded = DecodeStored(scope, *kv.value);
  if (!decoded.ok()) return decoded.error();
  auto object = std::make_shared<const api::Object>(std::move(*decoded));
  if (cache) decoded_.Insert(kv.key, kv.mod_revision, object);
  return SharedObject(std::move(object));
}

ApiError ResourceStorage::Absent(const api::ResourceInfo& info,
                                 std::string_view namespace_,
                                 std::string_view name) const {
  if (info.sibling != nullptr &&
      store_.Get(Key(*info.sibling, namespace_, name))) {
    return HeldByOtherFamily(info, name);
  }
  return NotFound(info, name);
}

ApiOr<SharedObject> ResourceStorage::GetObject(
    const RequestScope& scope) const {
  auto kv = store_.Get(Key(*scope.info, scope.namespace_, scope.name));
  if (!kv) return Absent(*scope.info, scope.namespace_, scope.name);
  return Current(scope, *kv, true);
}

StatusOr<SharedObject> ResourceStorage::ObjectOf(const store::KeyValue& kv,
                                                 bool cache) const {
  if (cache) {
    if (SharedObject hit = decoded_.Find(kv.key, kv.mod_revision)) return hit;
  }
  auto results = api::DecodeDocument(*kv.value, {.strict = false});
  if (results.size() != 1 || !results[0].object) {
    return InternalError(
        fmt::format("stored object {} cannot be decoded: {}", kv.key,
                    results.empty() ? std::string("no object")
                                    : api::ToString(results[0].errors)));
  }
  auto object =
      std::make_shared<const api::Object>(std::move(*results[0].object));
  if (cache) decoded_.Insert(kv.key, kv.mod_revision, object);
  return SharedObject(std::move(object));
}

ApiOr<WriteResult> ResourceStorage::Create(const RequestScope& scope,
                                           std::string_view body,
                                           const WriteOptions& options) {
  auto decoded = DecodeBody(scope, body, options.field_validation);
  if (!decoded.ok()) return decoded.error();
  return CreateDecoded(scope, std::move(*decoded), options);
}

ApiOr<WriteResult> ResourceStorage::CreateObject(const RequestScope& scope,
                                                 api::Object object,
                                                 const WriteOptions& options) {
  return CreateDecoded(scope, Decoded{std::move(object), {}}, options);
}

std::optional<ApiError> ResourceStorage::CheckNamespace(
    const RequestScope& scope, api::ObjectMeta& meta) const {
  const api::ResourceInfo& info = *scope.info;
  if (!info.namespaced) return std::nullopt;
  if (meta.namespace_.empty()) meta.namespace_ = scope.namespace_;
  if (meta.namespace_ != scope.namespace_) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace "
        "sent on the request");
  }
  auto stored_namespace = store_.Get("/namespaces/" + meta.namespace_);
  if (!stored_namespace) {
    return ApiError{404, "NotFound",
                    fmt::format("namespaces \"{}\" not found", meta.namespace_),
                    Json{{"name", meta.namespace_}, {"kind", "namespaces"}}};
  }
  if (IsTerminating(*stored_namespace->value)) {
    return NamespaceTerminating(info, meta.name, meta.namespace_);
  }
  return std::nullopt;
}

ApiOr<WriteResult> ResourceStorage::CreateDecoded(const RequestScope& scope,
                                                  Decoded decoded,
                                                  const WriteOptions& options) {
  api::Object& object = decoded.object;
  api::ObjectMeta& meta = api::MetaOf(object);
  const api::ResourceInfo& info = *scope.info;
  if (auto error = CheckNamespace(scope, meta)) return *error;
  const StoredNamespaces namespaces(store_);
  api::ErrorList errors =
      registry::PrepareCreate(info, object, names_, NewUid(), NowRfc3339(),
                              {.validate = true, .namespaces = &namespaces});
  if (!errors.empty()) return Invalid(info, meta.name, errors);
  RequestScope named = scope;
  named.namespace_ = meta.namespace_;
  if (auto refused = Admit(AdmissionOperation::kCreate, named, options, &object,
                           nullptr)) {
    return *refused;
  }
  const std::string text =
      StoredText(scope, nullptr, object, options.field_manager);
  const std::string key = Key(info, meta.namespace_, meta.name);
  if (info.sibling != nullptr &&
      store_.Get(Key(*info.sibling, meta.namespace_, meta.name))) {
    return AlreadyExistsInOtherFamily(info, meta.name);
  }
  if (options.dry_run) {
    store::KeyValue unwritten{
        key, std::make_shared<const std::string>(WithRevision(text, 0)), 0, 0};
    return Written(scope, options, 201, unwritten, nullptr,
                   std::move(decoded.warnings));
  }
  const bool publish = text != kUnencodable && PublishesWrites(info, options);
  SharedObject published;
  auto written = store_.Put(
      key, store::Precondition::MustNotExist(),
      Publisher(scope, key, text, publish ? &object : nullptr, &published));
  if (!written.ok()) {
    if (published) decoded_.Erase(key);
    return StorageError(info, meta.name, written.status());
  }
  if (publish && !published) {
    published = Publish(scope, key, written->mod_revision, object);
  }
  return Written(scope, options, 201, *written, std::move(published),
                 std::move(decoded.warnings));
}

ApiOr<std::string> ResourceStorage::Get(const RequestScope& scope,
                                        int64_t min_revision) const {
  if (min_revision > 0) {
    if (auto error = WaitForRevision(min_revision)) return *error;
  }
  auto kv = store_.Get(Key(*scope.info, scope.namespace_, scope.name));
  if (!kv) return Absent(*scope.info, scope.namespace_, scope.name);
  return ToVersion(scope, *kv->value);
}

ApiOr<WriteResult> ResourceStorage::ApplyCreate(const RequestScope& scope,
                                                const WriteOptions& options,
                                                std::string_view create_body) {
  const api::ResourceInfo& info = *scope.info;
  Json applied = Json::parse(create_body, nullptr, false);
  auto outcome = patch::ServerSideApply(
      nullptr, applied, patch::SchemaFor(info),
      {options.field_manager, options.force, info.GroupVersion(scope.version),
       NowRfc3339(), ""});
  if (!outcome.ok()) return BadRequest(outcome.status().message());
  WriteOptions create_options = options;
  create_options.field_manager.clear();  // managedFields are set
  return Create(scope, outcome->object.dump(), create_options);
}

std::optional<ApiError> ResourceStorage::PrepareUpdate(
    const RequestScope& scope, const WriteOptions& options, api::Object& next,
    const api::Object& current) const {
  const api::ResourceInfo& info = *scope.info;
  const api::ObjectMeta& meta = api::MetaOf(next);
  const api::ObjectMeta& old_meta = api::MetaOf(current);
  if (meta.name != scope.name) {
    return BadRequest(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})",
        meta.name, scope.name));
  }
  if (info.namespaced && !meta.namespace_.empty() &&
      meta.namespace_ != scope.namespace_) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace "
        "sent on the request");
  }
  if (!meta.resource_version.empty() &&
      meta.resource_version != old_meta.resource_version) {
    return Conflict(info, scope.name);
  }
  if (!meta.uid.empty() && meta.uid != old_meta.uid) {
    return Conflict(info, scope.name,
                    registry::UidPreconditionFailed(meta.uid, old_meta.uid));
  }
  const StoredNamespaces namespaces(store_);
  api::ErrorList errors =
      registry::PrepareUpdate(info, next, current, PartOf(scope, options),
                              {.validate = true, .namespaces = &namespaces});
  if (!errors.empty()) return Invalid(info, scope.name, errors);
  return std::nullopt;
}

std::optional<ApiOr<WriteResult>> ResourceStorage::StoreUpdate(
    const RequestScope& scope, const WriteOptions& options,
    const std::string& key, const store::KeyValue& kv,
    const api::Object& current, api::Object& next, const std::string& text,
    std::vector<std::string>& warnings) {
  const api::ResourceInfo& info = *scope.info;
  // The device index matters only when the claim was or becomes
  // allocated; other claim writes (labels, finalizers, a pending claim's
  // spec) must not queue behind it across the store write.
  const auto* claim = std::get_if<api::ResourceClaim>(&next);
  if (claim != nullptr && !claim->status.allocation) {
    const auto* before = std::get_if<api::ResourceClaim>(&current);
    if (before == nullptr || !before->status.allocation) claim = nullptr;
  }
  // A store shared with other servers guards devices itself, atomically
  // with the write (reservations); this server's index would miss the
  // others' writes.
  const bool shared = store_.Shared();
  const bool indexed = claim != nullptr && !shared;
  DeviceAllocationIndex::WriteLock claim_lock(allocations_, indexed);
  if (indexed) {
    if (auto taken = allocations_.Conflict(key, *claim)) {
      return Conflict(info, scope.name, *taken);
    }
  }
  const auto* claim_before =
      claim != nullptr ? std::get_if<api::ResourceClaim>(&current) : nullptr;
  if (registry::ReadyToRemove(next)) {
    auto deleted = DeleteStored(
        key, store::Precondition::AtRevision(kv.mod_revision), claim_before);
    if (deleted.ok()) {
      if (indexed) allocations_.Record(key, nullptr);
      decoded_.Erase(key);
      store::KeyValue gone{key,
                           std::make_shared<const std::string>(
                               WithRevision(text, deleted->mod_revision)),
                           0, 0};
      return Written(scope, options, 200, gone, nullptr, std::move(warnings));
    }
    if (deleted.status().code() == StatusCode::kAborted) return std::nullopt;
    return StorageError(info, scope.name, deleted.status());
  }
  // StoredText has encoded `next` after recording managedFields in it.
  const bool publish = text != kUnencodable && PublishesWrites(info, options);
  SharedObject published;
  const store::Precondition at =
      store::Precondition::AtRevision(kv.mod_revision);
  const store::ValueEncoder encode =
      Publisher(scope, key, text, publish ? &next : nullptr, &published);
  auto written = claim != nullptr && shared
                     ? store_.PutReserving(key, at, encode,
                                           DeviceAllocationIndex::Reservations(
                                               claim_before, claim))
                     : store_.Put(key, at, encode);
  if (written.ok()) {
    if (publish && !published) {
      published = Publish(scope, key, written->mod_revision, next);
    }
    // `next` has moved into `published` when it was published.
    if (indexed) {
      allocations_.Record(
          key,
          published ? std::get_if<api::ResourceClaim>(published.get()) : claim);
    }
    return Written(scope, options, 200, *written, std::move(published),
                   std::move(warnings));
  }
  if (published) decoded_.Erase(key);
  if (written.status().code() == StatusCode::kFailedPrecondition) {
    // Another server gave a device of this claim to a different claim.
    return Conflict(
        info, scope.name,
        DeviceAllocationIndex::DescribeRefusal(written.status().message()));
  }
  if (written.status().code() != StatusCode::kAborted) {
    return StorageError(info, scope.name, written.status());
  }
  return std::nullopt;
}

StatusOr<store::KeyValue> ResourceStorage::DeleteStored(
    const std::string& key, store::Precondition precondition,
    const api::ResourceClaim* claim) {
  if (claim != nullptr && claim->status.allocation && store_.Shared()) {
    return store_.DeleteReleasing(
        key, precondition, DeviceAllocationIndex::ReservationKeys(*claim));
  }
  return store_.Delete(key, precondition);
}

ApiOr<WriteResult> ResourceStorage::UpdateLoop(const RequestScope& scope,
                                               const WriteOptions& options,
                                               const Compute& compute,
                                               bool apply,
                                               std::string_view create_body) {
  const api::ResourceInfo& info = *scope.info;
  const std::string key = Key(info, scope.namespace_, scope.name);
  for (int attempt = 0; attempt < kMaxWriteAttempts; ++attempt) {
    auto kv = store_.Get(key);
    if (!kv) {
      // Server-side apply of an absent object creates it, owned by the
      // applier.
      if (apply && scope.subresource != "status") {
        return ApplyCreate(scope, options, create_body);
      }
      return Absent(info, scope.namespace_, scope.name);
    }
    auto shared_current = Current(scope, *kv, options.want_object);
    if (!shared_current.ok()) return shared_current.error();
    const api::Object& current = **shared_current;
    auto desired = compute(current, *kv->value);
    if (!desired.ok()) return desired.error();
    api::Object next = std::move(desired->object);
    if (auto error = PrepareUpdate(scope, options, next, current)) {
      return *error;
    }
    if (next == current) {
      if (options.want_object) {
        return WriteResult{
            200, {}, std::move(desired->warnings), *shared_current};
      }
      return Respond(scope, 200, *kv->value, std::move(desired->warnings));
    }
    if (auto refused = Admit(AdmissionOperation::kUpdate, scope, options, &next,
                             &current)) {
      return *refused;
    }
    // An apply has set managedFields itself; any other write is recorded
    // as an Update by its manager (on top of managedFields it sent).
    const std::string text =
        apply ? StoredText(scope, nullptr, next, "")
              : StoredText(scope, &current, next, options.field_manager);
    if (options.dry_run) {
      store::KeyValue unwritten{key,
                                std::make_shared<const std::string>(
                                    WithRevision(text, kv->mod_revision)),
                                0, 0};
      return Written(scope, options, 200, unwritten, nullptr,
                     std::move(desired->warnings));
    }
    auto stored = StoreUpdate(scope, options, key, *kv, current, next, text,
                              desired->warnings);
    if (stored) return std::move(*stored);
  }
  return Conflict(info, scope.name, "too many concurrent writers");
}

ApiOr<WriteResult> ResourceStorage::Bind(const RequestScope& scope,
                                         std::string_view body,
                                         const WriteOptions& options) {
  const Json binding = Json::parse(body, nullptr, false);
  if (!binding.is_object()) {
    return BadRequest("the body of a binding must be a JSON Binding object");
  }
  const Json target = binding.value("target", Json::object());
  const std::string node =
      target.is_object() ? target.value("name", std::string()) : "";
  if (node.empty()) {
    return Invalid(*scope.info, scope.name,
                   {api::Required(api::FieldPath("target").Child("name"),
                                  "must name the node")});
  }
  std::string uid;
  if (auto meta = binding.find("metadata");
      meta != binding.end() && meta->is_object()) {
    uid = meta->value("uid", std::string());
  }
  return BindTo(scope, node, uid, options);
}

ApiOr<WriteResult> ResourceStorage::BindTo(const RequestScope& scope,
                                           const std::string& node,
                                           const std::string& uid,
                                           const WriteOptions& options) {
  const std::string now = NowRfc3339();
  return UpdateLoop(
      scope, options,
      [&](const api::Object& current, const std::string&) -> ApiOr<Decoded> {
        const auto* pod = std::get_if<api::Pod>(&current);
        if (pod == nullptr) return BadRequest("only pods can be bound");
        if (auto conflict = registry::BindingConflict(*pod, uid)) {
          return Conflict(*scope.info, scope.name, *conflict);
        }
        api::Pod bound = *pod;
        api::MarkBound(bound, node, now);
        return Decoded{api::Object(std::move(bound)), {}};
      },
      false, "");
}

ApiOr<WriteResult> ResourceStorage::Update(const RequestScope& scope,
                                           std::string_view body,
                                           const WriteOptions& options) {
  auto decoded = DecodeBody(scope, body, options.field_validation);
  if (!decoded.ok()) return decoded.error();
  return UpdateLoop(
      scope, options,
      [&](const api::Object&, const std::string&) -> ApiOr<Decoded> {
        return *decoded;
      },
      /*apply=*/false, body);
}

ApiOr<WriteResult> ResourceStorage::UpdateObject(const RequestScope& scope,
                                                 api::Object object,
                                                 const WriteOptions& options) {
  const Decoded decoded{std::move(object), {}};
  return UpdateLoop(
      scope, options,
      [&](const api::Object&, const std::string&) -> ApiOr<Decoded> {
        return decoded;
      },
      /*apply=*/false, "");
}

ApiOr<WriteResult> ResourceStorage::RemoveNamespaceFinalizer(
    std::string_view name, std::string_view finalizer) {
  RequestScope scope;
  scope.info = api::FindResourceByKind("Namespace");
  scope.version = std::string(scope.info->versions[0]);
  scope.name = std::string(name);
  scope.subresource = "finalize";
  return UpdateLoop(
      scope, {},
      [&](const api::Object& current, const std::string&) -> ApiOr<Decoded> {
        api::Object next = current;
        auto* ns = std::get_if<api::Namespace>(&next);
        if (ns == nullptr) return BadRequest("not a namespace");
        std::erase(ns->spec.finalizers, finalizer);
        return Decoded{std::move(next), {}};
      },
      /*apply=*/false, "");
}

ApiOr<WriteResult> ResourceStorage::Patch(const RequestScope& scope,
                                          std::string_view content_type,
                                          std::string_view body,
                                          const WriteOptions& options) {
  auto request = PatchRequest::Parse(scope, content_type, body, options);
  if (!request.ok()) return request.error();
  return UpdateLoop(
      scope, options,
      [&](const api::Object&, const std::string& stored) -> ApiOr<Decoded> {
        auto current_text = ToVersion(scope, stored);
        if (!current_text.ok()) return current_text.error();
        Json current = Json::parse(*current_text, nullptr, false);
        auto patched = request->ApplyTo(current, scope, options);
        if (!patched.ok()) return patched.error();
        return DecodeBody(scope, patched->dump(), options.field_validation);
      },
      request->apply(), request->text());
}

ApiOr<WriteResult> ResourceStorage::Delete(const RequestScope& scope,
                                           std::string_view body,
                                           const WriteOptions& options) {
  auto delete_options = ParseDeleteOptions(body);
  if (!delete_options.ok()) return delete_options.error();
  const bool dry_run = options.dry_run || delete_options->dry_run;
  const api::ResourceInfo& info = *scope.info;
  const std::string key = Key(info, scope.namespace_, scope.name);
  for (int attempt = 0; attempt < kMaxWriteAttempts; ++attempt) {
    auto kv = store_.Get(key);
    if (!kv) return Absent(info, scope.namespace_, scope.name);
    auto current = DecodeStored(scope, *kv->value);
    if (!current.ok()) return current.error();
    api::ObjectMeta& meta = api::MetaOf(*current);
    if (!delete_options->uid.empty() && delete_options->uid != meta.uid) {
      return Conflict(
          info, scope.name,
          registry::UidPreconditionFailed(delete_options->uid, meta.uid));
    }
    if (!delete_options->resource_version.empty() &&
        delete_options->resource_version != meta.resource_version) {
      return Conflict(
          info, scope.name,
          fmt::format("Precondition failed: ResourceVersion in precondition: "
                      "{}, ResourceVersion in meta: {}",
                      delete_options->resource_version, meta.resource_version));
    }
    if (auto refused = Admit(AdmissionOperation::kDelete, scope, options,
                             nullptr, &*current)) {
      return *refused;
    }
    const registry::DeletionStep step = registry::PrepareDeletion(
        *current, delete_options->grace_period_seconds,
        std::chrono::system_clock::now());
    if (step == registry::DeletionStep::kUnchanged || dry_run) {
      return Respond(scope, 200, *kv->value, {});
    }
    if (step == registry::DeletionStep::kStore) {
      const std::string text = StoredText(scope, nullptr, *current, "");
      auto written = store_.Put(
          key, store::Precondition::AtRevision(kv->mod_revision),
          [&](int64_t revision) { return WithRevision(text, revision); });
      if (written.ok()) return Respond(scope, 200, *written->value, {});
      if (written.status().code() == StatusCode::kAborted) continue;
      return StorageError(info, scope.name, written.status());
    }
    const auto* deleted_claim = std::get_if<api::ResourceClaim>(&*current);
    const bool allocated = deleted_claim != nullptr &&
                           deleted_claim->status.allocation && !store_.Shared();
    DeviceAllocationIndex::WriteLock claim_lock(allocations_, allocated);
    auto deleted = DeleteStored(
        key, store::Precondition::AtRevision(kv->mod_revision), deleted_claim);
    if (deleted.ok()) {
      if (allocated) allocations_.Record(key, nullptr);
      decoded_.Erase(key);
      return Respond(scope, 200, *kv->value, {});
    }
    if (deleted.status().code() == StatusCode::kAborted) continue;
    return StorageError(info, scope.name, deleted.status());
  }
  return Conflict(info, scope.name, "too many concurrent writers");
}

std::optional<ApiError> ResourceStorage::Admit(
    AdmissionOperation operation, const RequestScope& scope,
    const WriteOptions& options, const api::Object* object,
    const api::Object* old_object) const {
  const AdmissionRequest request{operation, scope,      options.user,
                                 object,    old_object, options.dry_run};
  for (const auto& plugin : admission_) {
    if (auto refused = plugin->Admit(request)) return refused;
  }
  return std::nullopt;
}

void ResourceStorage::DeleteKey(const std::string& key) {
  (void)DeleteKeyAs(key, {});
}

ApiOr<WriteResult> ResourceStorage::DeleteKeyAs(const std::string& key,
                                                const WriteOptions& options) {
  const api::ResourceInfo* info = InfoForKey(key);
  if (info == nullptr) return NotFoundPath(key);
  RequestScope scope;
  scope.info = info;
  scope.version = std::string(info->versions[0]);
  std::string_view rest =
      std::string_view(key).substr(info->store_prefix.size() + 2);
  if (info->namespaced) {
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return NotFoundPath(key);
    scope.namespace_ = std::string(rest.substr(0, slash));
    rest = rest.substr(slash + 1);
  }
  scope.name = std::string(rest);
  return Delete(scope, "", options);
}

}  // namespace dralloc::apiserver
