// StoreObjectLookup: serviceaccount::ObjectLookup over the API server's
// store, for token issuance (TokenRequest) and service-account token
// authentication: the uid and deletion time of a ServiceAccount, Pod,
// Secret or Node, read from the stored JSON.
#ifndef DRALLOC_APISERVER_STORE_OBJECT_LOOKUP_H_
#define DRALLOC_APISERVER_STORE_OBJECT_LOOKUP_H_

#include <optional>
#include <string>
#include <string_view>

#include "serviceaccount/object_lookup.h"
#include "store/store.h"

namespace dralloc::apiserver {

class StoreObjectLookup : public serviceaccount::ObjectLookup {
 public:
  // `store` must outlive the lookup.
  explicit StoreObjectLookup(const store::Store& store) : store_(store) {}

  std::optional<serviceaccount::ObjectRecord> ServiceAccount(
      std::string_view namespace_, std::string_view name) const override;
  std::optional<serviceaccount::ObjectRecord> Pod(
      std::string_view namespace_, std::string_view name) const override;
  std::optional<serviceaccount::ObjectRecord> Secret(
      std::string_view namespace_, std::string_view name) const override;
  std::optional<serviceaccount::ObjectRecord> Node(
      std::string_view name) const override;

 private:
  std::optional<serviceaccount::ObjectRecord> Read(const std::string& key,
                                                   bool pod) const;
  const store::Store& store_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_STORE_OBJECT_LOOKUP_H_
