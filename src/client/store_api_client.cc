#include "client/store_api_client.h"

#include <fmt/format.h>

#include "api/codec.h"

namespace dralloc::client {
namespace {

using apiserver::RequestScope;

RequestScope ScopeFor(const api::ResourceInfo& info,
                      std::string_view namespace_, std::string_view name) {
  RequestScope scope;
  scope.info = &info;
  scope.version = std::string(info.versions.front());
  if (info.namespaced) scope.namespace_ = std::string(namespace_);
  scope.name = std::string(name);
  return scope;
}

StatusOr<std::string> EncodeForStorage(const api::Object& object) {
  const api::ResourceInfo& info = ResourceOf(object);
  ASSIGN_OR_RETURN(
      api::Json json,
      api::EncodeObject(object, info.GroupVersion(info.versions.front())));
  return json.dump(-1, ' ', false, api::Json::error_handler_t::replace);
}

WatchEvent::Type EventType(const store::WatchEvent& event) {
  if (event.type == store::WatchEvent::Type::kDelete) {
    return WatchEvent::Type::kDeleted;
  }
  return event.created() ? WatchEvent::Type::kAdded
                         : WatchEvent::Type::kModified;
}

class StoreWatchStream : public WatchStream {
 public:
  explicit StoreWatchStream(std::unique_ptr<store::Watcher> watcher)
      : watcher_(std::move(watcher)) {}

  StatusOr<std::vector<WatchEvent>> Next(
      std::chrono::milliseconds timeout) override {
    ASSIGN_OR_RETURN(std::vector<store::WatchEvent> raw,
                     watcher_->Next(timeout));
    std::vector<WatchEvent> events;
    events.reserve(raw.size());
    for (const store::WatchEvent& event : raw) {
      ASSIGN_OR_RETURN(api::Object object, DecodeObject(*event.kv.value));
      events.push_back({EventType(event),
                        std::make_shared<const api::Object>(std::move(object)),
                        event.kv.mod_revision});
    }
    return events;
  }
  void Stop() override { watcher_->Stop(); }

 private:
  std::unique_ptr<store::Watcher> watcher_;
};

}  // namespace

Status ToStatus(const apiserver::ApiError& error) {
  return StatusForApiError(error.code, error.reason, error.message);
}

StatusOr<api::Object> DecodeObject(std::string_view json) {
  std::vector<api::DecodeResult> results = api::DecodeDocument(json);
  if (results.size() != 1 || !results[0].object) {
    std::string detail =
        results.empty() ? "no object" : api::ToString(results[0].errors);
    return InternalError(fmt::format(
        "cannot decode {}: {}",
        results.empty() ? std::string("object") : results[0].DisplayName(),
        detail));
  }
  return std::move(*results[0].object);
}

StoreApiClient::StoreApiClient(apiserver::ResourceStorage& storage,
                               std::string field_manager,
                               bool record_managed_fields)
    : storage_(storage),
      field_manager_(std::move(field_manager)),
      record_managed_fields_(record_managed_fields) {}

StatusOr<ObjectList> StoreApiClient::List(const api::ResourceInfo& resource) {
  store::ListResult listed = storage_.store().List(
      apiserver::ResourceStorage::Prefix(resource, ""), "", 0);
  ObjectList out;
  out.resource_version = listed.revision;
  out.items.reserve(listed.items.size());
  for (const store::KeyValue& kv : listed.items) {
    ASSIGN_OR_RETURN(api::Object object, DecodeObject(*kv.value));
    out.items.push_back(std::make_shared<const api::Object>(std::move(object)));
  }
  return out;
}

StatusOr<std::unique_ptr<WatchStream>> StoreApiClient::Watch(
    const api::ResourceInfo& resource, int64_t resource_version) {
  ASSIGN_OR_RETURN(
      std::unique_ptr<store::Watcher> watcher,
      storage_.store().Watch(apiserver::ResourceStorage::Prefix(resource, ""),
                             resource_version));
  return std::unique_ptr<WatchStream>(
      std::make_unique<StoreWatchStream>(std::move(watcher)));
}

StatusOr<api::Object> StoreApiClient::Get(const api::ResourceInfo& resource,
                                          std::string_view namespace_,
                                          std::string_view name) {
  auto body = storage_.Get(ScopeFor(resource, namespace_, name));
  if (!body.ok()) return ToStatus(body.error());
  return DecodeObject(*body);
}

StatusOr<api::Object> StoreApiClient::Create(api::Object object) {
  const api::ResourceInfo& info = ResourceOf(object);
  ASSIGN_OR_RETURN(std::string body, EncodeForStorage(object));
  apiserver::WriteOptions options;
  options.field_manager = RecordedManager();
  auto written = storage_.Create(
      ScopeFor(info, api::MetaOf(object).namespace_, ""), body, options);
  if (!written.ok()) return ToStatus(written.error());
  return DecodeObject(written->body);
}

StatusOr<api::Object> StoreApiClient::Write(const api::Object& object,
                                            std::string_view subresource) {
  const api::ResourceInfo& info = ResourceOf(object);
  const api::ObjectMeta& meta = api::MetaOf(object);
  ASSIGN_OR_RETURN(std::string body, EncodeForStorage(object));
  RequestScope scope = ScopeFor(info, meta.namespace_, meta.name);
  scope.subresource = std::string(subresource);
  apiserver::WriteOptions options;
  options.field_manager = RecordedManager();
  auto written = storage_.Update(scope, body, options);
  if (!written.ok()) return ToStatus(written.error());
  return DecodeObject(written->body);
}

StatusOr<api::Object> StoreApiClient::Update(api::Object object) {
  return Write(object, "");
}

StatusOr<api::Object> StoreApiClient::UpdateStatus(api::Object object) {
  return Write(object, "status");
}

Status StoreApiClient::Delete(const api::ResourceInfo& resource,
                              std::string_view namespace_,
                              std::string_view name, std::string_view uid) {
  std::string body;
  if (!uid.empty()) {
    body = fmt::format(
        R"({{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{{"uid":"{}"}}}})",
        uid);
  }
  auto deleted = storage_.Delete(ScopeFor(resource, namespace_, name), body,
                                 apiserver::WriteOptions{});
  if (!deleted.ok()) return ToStatus(deleted.error());
  return OkStatus();
}

Status StoreApiClient::Bind(std::string_view namespace_, std::string_view name,
                            std::string_view uid, std::string_view node) {
  RequestScope scope = ScopeFor(PodsResource(), namespace_, name);
  scope.subresource = "binding";
  api::Json binding = {{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata", {{"name", name}}},
                       {"target", {{"kind", "Node"}, {"name", node}}}};
  if (!uid.empty()) binding["metadata"]["uid"] = uid;
  apiserver::WriteOptions options;
  options.field_manager = RecordedManager();
  auto bound = storage_.Bind(scope, binding.dump(), options);
  if (!bound.ok()) return ToStatus(bound.error());
  return OkStatus();
}

Status StoreApiClient::CreateEvent(const api::Event& event) {
  return Create(api::Object(event)).status();
}

}  // namespace dralloc::client
