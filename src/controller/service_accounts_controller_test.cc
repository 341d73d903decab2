// ServiceAccountsController against the in-memory API: every active
// namespace gets its "default" ServiceAccount, again after a deletion, and a
// terminating namespace gets none.
#include "controller/service_accounts_controller.h"

#include <gtest/gtest.h>

#include <string>

#include "api/types/core.h"
#include "api/types/service_account.h"
#include "client/memory_api_client.h"

namespace dralloc::controller {
namespace {

class ServiceAccountsControllerTest : public ::testing::Test {
 protected:
  // Pumps and processes until nothing changes (bounded).
  void Settle() {
    for (int round = 0; round < 100; ++round) {
      size_t changes = *namespaces_.Pump(std::chrono::milliseconds(0)) +
                       *accounts_.Pump(std::chrono::milliseconds(0));
      bool worked = false;
      while (controller_.ProcessOne()) worked = true;
      if (changes == 0 && !worked) return;
    }
    ADD_FAILURE() << "no quiescence";
  }

  void CreateNamespace(const std::string& name) {
    api::Namespace ns;
    ns.metadata.name = name;
    auto created = api_.Create(ns);
    ASSERT_TRUE(created.ok()) << created.status();
  }

  bool HasAccount(const std::string& namespace_, const std::string& name) {
    return api_
        .Get(client::ResourceFor<api::ServiceAccount>(), namespace_, name)
        .ok();
  }

  client::MemoryApiClient api_;
  client::Informer namespaces_{api_, client::ResourceFor<api::Namespace>()};
  client::Informer accounts_{api_, client::ResourceFor<api::ServiceAccount>()};
  ServiceAccountsController controller_{api_, namespaces_, accounts_};
};

TEST_F(ServiceAccountsControllerTest, EveryNamespaceGetsDefault) {
  CreateNamespace("a");
  CreateNamespace("b");
  Settle();
  EXPECT_TRUE(HasAccount("a", "default"));
  EXPECT_TRUE(HasAccount("b", "default"));
  EXPECT_EQ(controller_.metrics().created, 2u);
}

TEST_F(ServiceAccountsControllerTest, ADeletedDefaultComesBack) {
  CreateNamespace("a");
  Settle();
  ASSERT_TRUE(api_.Delete(client::ResourceFor<api::ServiceAccount>(), "a",
                          "default", "")
                  .ok());
  Settle();
  EXPECT_TRUE(HasAccount("a", "default"));
  EXPECT_EQ(controller_.metrics().created, 2u);
}

TEST_F(ServiceAccountsControllerTest, OtherAccountsAreLeftAlone) {
  CreateNamespace("a");
  api::ServiceAccount driver;
  driver.metadata.namespace_ = "a";
  driver.metadata.name = "gpu-driver";
  ASSERT_TRUE(api_.Create(driver).ok());
  Settle();
  ASSERT_TRUE(api_.Delete(client::ResourceFor<api::ServiceAccount>(), "a",
                          "gpu-driver", "")
                  .ok());
  Settle();
  EXPECT_FALSE(HasAccount("a", "gpu-driver"));
  EXPECT_TRUE(HasAccount("a", "default"));
}

TEST_F(ServiceAccountsControllerTest, AnExistingDefaultIsKept) {
  CreateNamespace("a");
  api::ServiceAccount existing;
  existing.metadata.namespace_ = "a";
  existing.metadata.name = "default";
  existing.automount_service_account_token = false;
  ASSERT_TRUE(api_.Create(existing).ok());
  Settle();
  auto got =
      api_.Get(client::ResourceFor<api::ServiceAccount>(), "a", "default");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(
      std::get<api::ServiceAccount>(**got).automount_service_account_token,
      false);
  EXPECT_EQ(controller_.metrics().created, 0u);
}

TEST_F(ServiceAccountsControllerTest, TerminatingNamespacesGetNone) {
  api::Namespace ns;
  ns.metadata.name = "going";
  ns.spec.finalizers = {"kubernetes"};  // keeps it Terminating once deleted
  ASSERT_TRUE(api_.Create(ns).ok());
  ASSERT_TRUE(
      api_.Delete(client::ResourceFor<api::Namespace>(), "", "going", "").ok());
  auto got = api_.Get(client::ResourceFor<api::Namespace>(), "", "going");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(std::get<api::Namespace>(**got).status.phase, "Terminating");
  Settle();
  EXPECT_FALSE(HasAccount("going", "default"));
  EXPECT_EQ(controller_.metrics().sync_errors, 0u);
}

}  // namespace
}  // namespace dralloc::controller
