// NodeIdentityApiClient (tests): an ApiClient over another that answers
// list and watch requests as the Node authorizer answers them for
// system:node:<node>, so tests of the node agent and the example driver
// fail when either asks for more than a node may read:
//   - pods and resourceslices: only with fieldSelector spec.nodeName=<node>;
//   - nodes: only with fieldSelector metadata.name=<node>;
//   - resourceclaims and everything else: never (a node gets single claims).
// A refused request gets what HttpApiClient makes of the server's 403
// (StatusForApiError) and is recorded in refused(). Gets and writes are
// forwarded unchecked: tests/auth/node covers them (dralloc_nodeauth_test).
#ifndef DRALLOC_CLIENT_NODE_IDENTITY_API_CLIENT_H_
#define DRALLOC_CLIENT_NODE_IDENTITY_API_CLIENT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace dralloc::client::testing {

class NodeIdentityApiClient : public client::ApiClient {
 public:
  // `inner` must outlive this client.
  NodeIdentityApiClient(client::ApiClient& inner, std::string node)
      : inner_(inner), node_(std::move(node)) {}

  // Each refused request as "<verb> <resource>[?fieldSelector=<selector>]".
  std::vector<std::string> refused() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return refused_;
  }

  StatusOr<client::ObjectList> List(
      const api::ResourceInfo& resource) override {
    RETURN_IF_ERROR(Check("list", resource, ""));
    return inner_.List(resource);
  }
  StatusOr<std::unique_ptr<client::WatchStream>> Watch(
      const api::ResourceInfo& resource, int64_t resource_version) override {
    RETURN_IF_ERROR(Check("watch", resource, ""));
    return inner_.Watch(resource, resource_version);
  }
  StatusOr<client::ObjectList> ListMatching(
      const api::ResourceInfo& resource,
      std::string_view field_selector) override {
    RETURN_IF_ERROR(Check("list", resource, field_selector));
    return inner_.ListMatching(resource, field_selector);
  }
  StatusOr<std::unique_ptr<client::WatchStream>> WatchMatching(
      const api::ResourceInfo& resource, int64_t resource_version,
      std::string_view field_selector) override {
    RETURN_IF_ERROR(Check("watch", resource, field_selector));
    return inner_.WatchMatching(resource, resource_version, field_selector);
  }
  StatusOr<client::ObjectPtr> Get(const api::ResourceInfo& resource,
                                  std::string_view namespace_,
                                  std::string_view name) override {
    return inner_.Get(resource, namespace_, name);
  }
  StatusOr<client::ObjectPtr> Create(api::Object object) override {
    return inner_.Create(std::move(object));
  }
  StatusOr<client::ObjectPtr> Update(api::Object object) override {
    return inner_.Update(std::move(object));
  }
  StatusOr<client::ObjectPtr> UpdateStatus(api::Object object) override {
    return inner_.UpdateStatus(std::move(object));
  }
  StatusOr<client::ObjectPtr> UpdateWithStatus(api::Object object) override {
    return inner_.UpdateWithStatus(std::move(object));
  }
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name, std::string_view uid) override {
    return inner_.Delete(resource, namespace_, name, uid);
  }
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name,
                const client::DeleteOptions& options) override {
    return inner_.Delete(resource, namespace_, name, options);
  }
  Status Bind(std::string_view namespace_, std::string_view name,
              std::string_view uid, std::string_view node) override {
    return inner_.Bind(namespace_, name, uid, node);
  }
  Status CreateEvent(const api::Event& event) override {
    return inner_.CreateEvent(event);
  }

 private:
  // The one field selector a node may list `resource` with ("" : none).
  std::string AllowedSelector(const api::ResourceInfo& resource) const {
    const std::string name = resource.QualifiedResource();
    if (name == "pods" || name == "resourceslices.resource.k8s.io") {
      return "spec.nodeName=" + node_;
    }
    if (name == "nodes") return "metadata.name=" + node_;
    return "";
  }

  Status Check(std::string_view verb, const api::ResourceInfo& resource,
               std::string_view field_selector) EXCLUDES(mu_) {
    const std::string allowed = AllowedSelector(resource);
    if (!allowed.empty() && field_selector == allowed) return OkStatus();
    std::string request =
        std::string(verb) + " " + resource.QualifiedResource();
    if (!field_selector.empty()) {
      request += "?fieldSelector=" + std::string(field_selector);
    }
    {
      MutexLock lock(mu_);
      refused_.push_back(request);
    }
    return client::StatusForApiError(
        403, "Forbidden",
        resource.QualifiedResource() + " is forbidden: User \"system:node:" +
            node_ + "\" cannot " + std::string(verb) + " resource \"" +
            std::string(resource.plural) + "\" in API group \"" +
            std::string(resource.group) + "\" at the cluster scope" +
            (allowed.empty()
                 ? ""
                 : ": can only list/watch with fieldSelector " + allowed));
  }

  client::ApiClient& inner_;
  const std::string node_;
  mutable Mutex mu_;
  std::vector<std::string> refused_ GUARDED_BY(mu_);
};

}  // namespace dralloc::client::testing

#endif  // DRALLOC_CLIENT_NODE_IDENTITY_API_CLIENT_H_
