#include "apiserver/in_process_api_client.h"

#include <fmt/format.h>

#include "api/codec.h"

namespace dralloc::apiserver {
namespace {

RequestScope ScopeFor(const api::ResourceInfo& info,
                      std::string_view namespace_, std::string_view name) {
  RequestScope scope;
  scope.info = &info;
  scope.version = std::string(info.versions.front());
  if (info.namespaced) scope.namespace_ = std::string(namespace_);
  scope.name = std::string(name);
  return scope;
}

client::WatchEvent::Type EventType(const store::WatchEvent& event) {
  if (event.type == store::WatchEvent::Type::kDelete) {
    return client::WatchEvent::Type::kDeleted;
  }
  return event.created() ? client::WatchEvent::Type::kAdded
                         : client::WatchEvent::Type::kModified;
}

class StoreWatchStream : public client::WatchStream {
 public:
  StoreWatchStream(const ResourceStorage& storage,
                   const api::ResourceInfo& resource,
                   std::unique_ptr<store::Watcher> watcher)
      : storage_(storage), resource_(resource), watcher_(std::move(watcher)) {
    storage_.AddInProcessWatcher(resource_);
  }
  StoreWatchStream(const StoreWatchStream&) = delete;
  StoreWatchStream& operator=(const StoreWatchStream&) = delete;
  ~StoreWatchStream() override { storage_.RemoveInProcessWatcher(resource_); }

  StatusOr<std::vector<client::WatchEvent>> Next(
      std::chrono::milliseconds timeout) override {
    ASSIGN_OR_RETURN(std::vector<store::WatchEvent> raw,
                     watcher_->Next(timeout));
    std::vector<client::WatchEvent> events;
    events.reserve(raw.size());
    for (const store::WatchEvent& event : raw) {
      // A deletion's state is gone: decoded, not cached.
      const bool live = event.type != store::WatchEvent::Type::kDelete;
      ASSIGN_OR_RETURN(client::ObjectPtr object,
                       storage_.ObjectOf(event.kv, live));
      events.push_back(
          {EventType(event), std::move(object), event.kv.mod_revision});
    }
    return events;
  }
  void Stop() override { watcher_->Stop(); }

 private:
  const ResourceStorage& storage_;
  // A copy: the caller's ResourceInfo need not outlive the stream.
  const api::ResourceInfo resource_;
  std::unique_ptr<store::Watcher> watcher_;
};

}  // namespace

Status ToStatus(const ApiError& error) {
  return client::StatusForApiError(error.code, error.reason, error.message);
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

InProcessApiClient::InProcessApiClient(ResourceStorage& storage,
                                       std::string field_manager,
                                       bool record_managed_fields)
    : storage_(storage),
      field_manager_(std::move(field_manager)),
      record_managed_fields_(record_managed_fields) {}

StatusOr<client::ObjectList> InProcessApiClient::List(
    const api::ResourceInfo& resource) {
  store::ListResult listed =
      storage_.store().List(ResourceStorage::Prefix(resource, ""), "", 0);
  client::ObjectList out;
  out.resource_version = listed.revision;
  out.items.reserve(listed.items.size());
  for (const store::KeyValue& kv : listed.items) {
    ASSIGN_OR_RETURN(client::ObjectPtr object, storage_.ObjectOf(kv, true));
    out.items.push_back(std::move(object));
  }
  return out;
}

StatusOr<std::unique_ptr<client::WatchStream>> InProcessApiClient::Watch(
    const api::ResourceInfo& resource, int64_t resource_version) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Watcher> watcher,
                   storage_.store().Watch(ResourceStorage::Prefix(resource, ""),
                                          resource_version));
  return std::unique_ptr<client::WatchStream>(
      std::make_unique<StoreWatchStream>(storage_, resource,
                                         std::move(watcher)));
}

StatusOr<client::ObjectPtr> InProcessApiClient::Get(
    const api::ResourceInfo& resource, std::string_view namespace_,
    std::string_view name) {
  auto object = storage_.GetObject(ScopeFor(resource, namespace_, name));
  if (!object.ok()) return ToStatus(object.error());
  return client::ObjectPtr(std::move(*object));
}

WriteOptions InProcessApiClient::Options() const {
  WriteOptions options;
  options.field_manager = RecordedManager();
  options.want_object = true;
  return options;
}

StatusOr<client::ObjectPtr> InProcessApiClient::Create(api::Object object) {
  const api::ResourceInfo& info = client::ResourceOf(object);
  const RequestScope scope = ScopeFor(info, api::MetaOf(object).namespace_, "");
  auto written = storage_.CreateObject(scope, std::move(object), Options());
  if (!written.ok()) return ToStatus(written.error());
  return client::ObjectPtr(std::move(written->object));
}

StatusOr<client::ObjectPtr> InProcessApiClient::Write(
    api::Object object, std::string_view subresource, bool with_status) {
  const api::ResourceInfo& info = client::ResourceOf(object);
  const api::ObjectMeta& meta = api::MetaOf(object);
  RequestScope scope = ScopeFor(info, meta.namespace_, meta.name);
  scope.subresource = std::string(subresource);
  WriteOptions options = Options();
  options.with_status = with_status;
  auto written = storage_.UpdateObject(scope, std::move(object), options);
  if (!written.ok()) return ToStatus(written.error());
  return client::ObjectPtr(std::move(written->object));
}

StatusOr<client::ObjectPtr> InProcessApiClient::Update(api::Object object) {
  return Write(std::move(object), "");
}

StatusOr<client::ObjectPtr> InProcessApiClient::UpdateStatus(
    api::Object object) {
  return Write(std::move(object), "status");
}

StatusOr<client::ObjectPtr> InProcessApiClient::UpdateWithStatus(
    api::Object object) {
  return Write(std::move(object), "", /*with_status=*/true);
}

Status InProcessApiClient::Delete(const api::ResourceInfo& resource,
                                  std::string_view namespace_,
                                  std::string_view name,
                                  const client::DeleteOptions& options) {
  std::string body;
  if (!options.uid.empty() || options.grace_period_seconds) {
    Json json = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (options.grace_period_seconds) {
      json["gracePeriodSeconds"] = *options.grace_period_seconds;
    }
    if (!options.uid.empty()) json["preconditions"] = {{"uid", options.uid}};
    body = json.dump();
  }
  auto deleted = storage_.Delete(ScopeFor(resource, namespace_, name), body,
                                 WriteOptions{});
  if (!deleted.ok()) return ToStatus(deleted.error());
  return OkStatus();
}

Status InProcessApiClient::Delete(const api::ResourceInfo& resource,
                                  std::string_view namespace_,
                                  std::string_view name, std::string_view uid) {
  return Delete(resource, namespace_, name,
                client::DeleteOptions{.uid = std::string(uid)});
}

Status InProcessApiClient::Bind(std::string_view namespace_,
                                std::string_view name, std::string_view uid,
                                std::string_view node) {
  RequestScope scope = ScopeFor(client::PodsResource(), namespace_, name);
  scope.subresource = "binding";
  auto bound =
      storage_.BindTo(scope, std::string(node), std::string(uid), Options());
  if (!bound.ok()) return ToStatus(bound.error());
  return OkStatus();
}

Status InProcessApiClient::CreateEvent(const api::Event& event) {
  return Create(api::Object(event)).status();
}

}  // namespace dralloc::apiserver
