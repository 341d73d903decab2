// The Secret and ConfigMap write rules: stringData merged into data, the
// Opaque default, the size limit, and immutability.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "registry/name_generator.h"
#include "registry/write_rules.h"

namespace dralloc::registry {
namespace {

class NoNamespaces : public NamespaceLookup {
 public:
  std::optional<api::StringMap> Labels(std::string_view) const override {
    return api::StringMap{};
  }
};

struct SecretRulesTest : ::testing::Test {
  api::Secret NewSecret() {
    api::Secret secret;
    secret.metadata.name = "creds";
    secret.metadata.namespace_ = "default";
    return secret;
  }
  api::ErrorList Create(api::Object& object) {
    const api::ResourceInfo& info =
        *api::FindResourceByKind(api::KindOf(object));
    return PrepareCreate(info, object, names, "uid-1", "2026-11-28T00:00:00Z",
                         context);
  }
  api::ErrorList Update(api::Object& next, const api::Object& old) {
    const api::ResourceInfo& info = *api::FindResourceByKind(api::KindOf(old));
    return PrepareUpdate(info, next, old, WritePart::kObject, context);
  }

  NoNamespaces namespaces;
  DeterministicNameGenerator names;
  WriteContext context{.validate = true, .namespaces = &namespaces};
};

TEST_F(SecretRulesTest, StringDataIsMergedIntoDataAndNeverStored) {
  api::Secret secret = NewSecret();
  secret.data = {{"user", "b2xk"}, {"host", "aG9zdA=="}};
  secret.string_data = {{"user", "admin"}, {"password", "s3cret"}};
  api::Object object(secret);
  ASSERT_TRUE(Create(object).empty());
  const auto& stored = std::get<api::Secret>(object);
  EXPECT_EQ(stored.data,
            (std::map<std::string, std::string>{{"host", "aG9zdA=="},
                                                {"password", "czNjcmV0"},
                                                {"user", "YWRtaW4="}}));
  EXPECT_TRUE(stored.string_data.empty());
  EXPECT_EQ(stored.type, "Opaque");

  api::Secret sent = stored;
  sent.string_data = {{"user", "root"}};
  api::Object next(sent);
  ASSERT_TRUE(Update(next, object).empty());
  EXPECT_EQ(std::get<api::Secret>(next).data.at("user"), "cm9vdA==");
  EXPECT_TRUE(std::get<api::Secret>(next).string_data.empty());
}

TEST_F(SecretRulesTest, BadStringDataKeyIsReportedUnderData) {
  api::Secret secret = NewSecret();
  secret.string_data = {{"bad key", "x"}};
  api::Object object(secret);
  const api::ErrorList errors = Create(object);
  ASSERT_EQ(errors.size(), 1u) << api::ToString(errors);
  EXPECT_EQ(errors[0].field, "data[bad key]");
}

TEST_F(SecretRulesTest, TotalSizeIsLimitedToOneMebibyte) {
  api::Secret secret = NewSecret();
  secret.string_data = {{"a", std::string(600 * 1024, 'x')},
                        {"b", std::string(600 * 1024, 'y')}};
  api::Object object(secret);
  const api::ErrorList errors = Create(object);
  ASSERT_EQ(errors.size(), 1u) << api::ToString(errors);
  EXPECT_EQ(errors[0].field, "data");
  EXPECT_EQ(errors[0].type, api::FieldErrorType::kTooLong);
}

TEST_F(SecretRulesTest, ImmutableSecretKeepsDataAndType) {
  api::Secret secret = NewSecret();
  secret.immutable = true;
  secret.string_data = {{"k", "v"}};
  api::Object stored(secret);
  ASSERT_TRUE(Create(stored).empty());

  api::Secret sent = std::get<api::Secret>(stored);
  sent.string_data = {{"k", "changed"}};
  sent.immutable = false;
  sent.type = "kubernetes.io/basic-auth";
  sent.data["username"] = "dQ==";
  api::Object next(sent);
  const api::ErrorList errors = Update(next, stored);
  std::map<std::string, std::string> by_field;
  for (const api::FieldError& e : errors) by_field[e.field] = e.detail;
  EXPECT_EQ(by_field,
            (std::map<std::string, std::string>{
                {"data", "field is immutable when `immutable` is set"},
                {"immutable", "field is immutable when `immutable` is set"},
                {"type", "field is immutable"}}));

  // Labels may still change.
  api::Secret relabelled = std::get<api::Secret>(stored);
  relabelled.metadata.labels["owner"] = "helm";
  api::Object relabel(relabelled);
  EXPECT_TRUE(Update(relabel, stored).empty());
}

TEST_F(SecretRulesTest, ImmutableConfigMapKeepsData) {
  api::ConfigMap config_map;
  config_map.metadata.name = "values";
  config_map.metadata.namespace_ = "default";
  config_map.immutable = true;
  config_map.data = {{"k", "v"}};
  api::Object stored(config_map);
  ASSERT_TRUE(Create(stored).empty());
  api::ConfigMap sent = std::get<api::ConfigMap>(stored);
  sent.data["k"] = "w";
  sent.binary_data["b"] = "eA==";
  api::Object next(sent);
  const api::ErrorList errors = Update(next, stored);
  ASSERT_EQ(errors.size(), 2u) << api::ToString(errors);
  EXPECT_EQ(errors[0].field, "data");
  EXPECT_EQ(errors[1].field, "binaryData");
}

}  // namespace
}  // namespace dralloc::registry
