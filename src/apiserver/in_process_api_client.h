// InProcessApiClient: the client::ApiClient of components running inside the
// API server process. Writes go through ResourceStorage, so they get exactly
// the admission, defaulting and resourceVersion semantics HTTP clients get;
// reads and watches come straight from the Store (no HTTP, no re-encoding).
#ifndef DRALLOC_APISERVER_IN_PROCESS_API_CLIENT_H_
#define DRALLOC_APISERVER_IN_PROCESS_API_CLIENT_H_

#include <string>

#include "apiserver/api_error.h"
#include "apiserver/resource_storage.h"
#include "client/api_client.h"

namespace dralloc::apiserver {

class InProcessApiClient : public client::ApiClient {
 public:
  // `field_manager` names this client in managedFields when
  // `record_managed_fields` is set. In-process controllers leave it off by
  // default: tracking field ownership of every scheduler write costs more
  // than the write itself, and nothing applies those fields.
  InProcessApiClient(ResourceStorage& storage, std::string field_manager,
                     bool record_managed_fields = false);

  StatusOr<client::ObjectList> List(const api::ResourceInfo& resource) override;
  StatusOr<std::unique_ptr<client::WatchStream>> Watch(
      const api::ResourceInfo& resource, int64_t resource_version) override;
  StatusOr<client::ObjectPtr> Get(const api::ResourceInfo& resource,
                                  std::string_view namespace_,
                                  std::string_view name) override;
  StatusOr<client::ObjectPtr> Create(api::Object object) override;
  StatusOr<client::ObjectPtr> Update(api::Object object) override;
  StatusOr<client::ObjectPtr> UpdateStatus(api::Object object) override;
  StatusOr<client::ObjectPtr> UpdateWithStatus(api::Object object) override;
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name, std::string_view uid) override;
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name,
                const client::DeleteOptions& options) override;
  Status Bind(std::string_view namespace_, std::string_view name,
              std::string_view uid, std::string_view node) override;
  Status CreateEvent(const api::Event& event) override;

 private:
  StatusOr<client::ObjectPtr> Write(api::Object object,
                                    std::string_view subresource,
                                    bool with_status = false);
  // In-process writes: typed, answered with the decoded object.
  WriteOptions Options() const;

  std::string RecordedManager() const {
    return record_managed_fields_ ? field_manager_ : std::string();
  }

  ResourceStorage& storage_;
  std::string field_manager_;
  bool record_managed_fields_ = false;
};

// The Status a client sees for an API error (see api_client.h).
Status ToStatus(const ApiError& error);
// Decodes one stored or served object (JSON in a served version).
StatusOr<api::Object> DecodeObject(std::string_view json);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_IN_PROCESS_API_CLIENT_H_
