#include "pki/subject_alt_names.h"

#include <gtest/gtest.h>

namespace dralloc::pki {
namespace {

TEST(ParseHosts, SplitsNamesAndAddressesAndAddsDefaults) {
  auto names =
      ParseHosts("api.example.com,10.0.0.1,,fd00::1,*.nodes.local", "--hosts");
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_EQ(names->dns_names,
            (std::vector<std::string>{
                "api.example.com", "*.nodes.local", "localhost", "kubernetes",
                "kubernetes.default", "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ(names->ip_addresses,
            (std::vector<std::string>{"10.0.0.1", "fd00::1", "127.0.0.1"}));
}

TEST(ParseHosts, EmptyGivesDefaultsWithoutDuplicates) {
  auto names = ParseHosts("localhost,127.0.0.1", "--hosts");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->ip_addresses, (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_EQ(names->dns_names.front(), "localhost");
  EXPECT_EQ(names->dns_names.size(), 5u);
}

TEST(ParseHosts, RejectsWhatIsNeitherNameNorAddress) {
  for (const char* bad :
       {"bad_name", "-lead", "a..b", "host name", "1.2.3.4:80", "http://x"}) {
    auto names = ParseHosts(bad, "--hosts");
    ASSERT_FALSE(names.ok()) << bad;
    EXPECT_EQ(names.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(names.status().message().find("--hosts"), std::string::npos);
  }
}

TEST(SubjectAltNames, OpenSslValue) {
  SubjectAltNames names{.dns_names = {"a", "b"}, .ip_addresses = {"::1"}};
  EXPECT_EQ(names.ToOpenSslValue(), "DNS:a,DNS:b,IP:::1");
}

}  // namespace
}  // namespace dralloc::pki
