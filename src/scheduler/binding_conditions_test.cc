#include "scheduler/binding_conditions.h"

#include <gtest/gtest.h>

namespace dralloc::scheduler {
namespace {

struct Case {
  std::string name;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> failure_conditions;
  // Conditions of the device's status entry: type -> status.
  std::vector<std::pair<std::string, std::string>> status;
  BindingReadiness want;
};

api::ResourceClaim ClaimFor(const Case& c) {
  api::ResourceClaim claim;
  claim.metadata.name = "claim";
  claim.status.allocation.emplace();
  claim.status.allocation->devices.results.push_back(
      {.request = "r",
       .driver = "d.example.com",
       .pool = "p",
       .device = "dev",
       .binding_conditions = c.binding_conditions,
       .binding_failure_conditions = c.failure_conditions});
  // An entry for another device that must not count.
  claim.status.devices.push_back(
      {.driver = "d.example.com",
       .pool = "p",
       .device = "other",
       .conditions = {{.type = "ready", .status = "True"},
                      {.type = "failed", .status = "True"}}});
  api::AllocatedDeviceStatus status{
      .driver = "d.example.com", .pool = "p", .device = "dev"};
  for (const auto& [type, value] : c.status) {
    status.conditions.push_back({.type = type, .status = value});
  }
  claim.status.devices.push_back(status);
  return claim;
}

TEST(CheckBindingConditions, Cases) {
  const std::vector<Case> cases = {
      {"no binding conditions", {}, {}, {}, BindingReadiness::kReady},
      {"no status yet", {"ready"}, {"failed"}, {}, BindingReadiness::kPending},
      {"false",
       {"ready"},
       {},
       {{"ready", "False"}},
       BindingReadiness::kPending},
      {"unknown",
       {"ready"},
       {},
       {{"ready", "Unknown"}},
       BindingReadiness::kPending},
      {"true", {"ready"}, {}, {{"ready", "True"}}, BindingReadiness::kReady},
      {"one of two",
       {"a", "b"},
       {},
       {{"a", "True"}},
       BindingReadiness::kPending},
      {"both",
       {"a", "b"},
       {},
       {{"a", "True"}, {"b", "True"}},
       BindingReadiness::kReady},
      {"failure true",
       {"ready"},
       {"failed"},
       {{"failed", "True"}},
       BindingReadiness::kFailed},
      {"failure false",
       {"ready"},
       {"failed"},
       {{"failed", "False"}},
       BindingReadiness::kPending},
      {"failure beats ready",
       {"ready"},
       {"failed"},
       {{"ready", "True"}, {"failed", "True"}},
       BindingReadiness::kFailed},
  };
  for (const Case& c : cases) {
    const api::ResourceClaim claim = ClaimFor(c);
    EXPECT_EQ(CheckBindingConditions(claim).readiness, c.want) << c.name;
    EXPECT_EQ(HasBindingConditions(claim), !c.binding_conditions.empty())
        << c.name;
  }
}

TEST(CheckBindingConditions, FailureMessageCarriesReasonAndMessage) {
  Case c{"failed",
         {"ready"},
         {"failed"},
         {{"failed", "True"}},
         BindingReadiness::kFailed};
  api::ResourceClaim claim = ClaimFor(c);
  claim.status.devices.back().conditions[0].reason = "AttachFailed";
  claim.status.devices.back().conditions[0].message = "no slot";
  EXPECT_EQ(CheckBindingConditions(claim).message,
            "claim claim binding failed: reason=AttachFailed, message=no slot "
            "(device d.example.com/p/dev, condition failed)");
}

TEST(CheckBindingConditions, DeallocatedClaimFailsAndNamesIt) {
  api::ResourceClaim claim;
  claim.metadata.name = "gone";
  EXPECT_FALSE(HasBindingConditions(claim));
  const BindingCheck check = CheckBindingConditions(claim);
  EXPECT_EQ(check.readiness, BindingReadiness::kFailed);
  EXPECT_NE(check.message.find("gone"), std::string::npos);
}

}  // namespace
}  // namespace dralloc::scheduler
