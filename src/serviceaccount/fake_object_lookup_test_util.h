// FakeObjectLookup: an ObjectLookup over maps the tests fill and change.
#ifndef DRALLOC_SERVICEACCOUNT_FAKE_OBJECT_LOOKUP_TEST_UTIL_H_
#define DRALLOC_SERVICEACCOUNT_FAKE_OBJECT_LOOKUP_TEST_UTIL_H_

#include <map>
#include <string>

#include "serviceaccount/object_lookup.h"

namespace dralloc::serviceaccount::testing {

class FakeObjectLookup : public ObjectLookup {
 public:
  // Keys are "namespace/name" (nodes: "name").
  std::map<std::string, ObjectRecord> service_accounts, pods, secrets, nodes;

  std::optional<ObjectRecord> ServiceAccount(
      std::string_view namespace_, std::string_view name) const override {
    return Find(service_accounts, Key(namespace_, name));
  }
  std::optional<ObjectRecord> Pod(std::string_view namespace_,
                                  std::string_view name) const override {
    return Find(pods, Key(namespace_, name));
  }
  std::optional<ObjectRecord> Secret(std::string_view namespace_,
                                     std::string_view name) const override {
    return Find(secrets, Key(namespace_, name));
  }
  std::optional<ObjectRecord> Node(std::string_view name) const override {
    return Find(nodes, std::string(name));
  }

 private:
  static std::string Key(std::string_view namespace_, std::string_view name) {
    return std::string(namespace_) + "/" + std::string(name);
  }
  static std::optional<ObjectRecord> Find(
      const std::map<std::string, ObjectRecord>& objects,
      const std::string& key) {
    auto found = objects.find(key);
    if (found == objects.end()) return std::nullopt;
    return found->second;
  }
};

}  // namespace dralloc::serviceaccount::testing

#endif  // DRALLOC_SERVICEACCOUNT_FAKE_OBJECT_LOOKUP_TEST_UTIL_H_
