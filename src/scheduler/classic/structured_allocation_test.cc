// 1.30's structured parameters: parameter lookup (defaults, direct
// references, generatedFrom) with 1.30's verdicts and messages, and the
// allocation on one node (filter, selector, taken instances, the exact
// result).
#include "scheduler/classic/structured_allocation.h"

#include <gtest/gtest.h>

#include <map>

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
constexpr char kDriver[] = "gpu.named.example.com";

client::ObjectPtr Wrap(api::Object object) {
  return std::make_shared<const api::Object>(std::move(object));
}

v1alpha2::ResourceSlice Slice(
    std::string name, std::string node,
    std::vector<std::pair<std::string, int64_t>> memory_gi) {
  v1alpha2::ResourceSlice slice;
  slice.metadata.name = std::move(name);
  slice.node_name = std::move(node);
  slice.driver_name = kDriver;
  slice.named_resources.emplace();
  for (const auto& [instance, gi] : memory_gi) {
    v1alpha2::NamedResourcesInstance entry;
    entry.name = instance;
    v1alpha2::NamedResourcesAttribute memory;
    memory.name = "memory";
    memory.quantity = Quantity::FromInt64(gi * 1024 * 1024 * 1024);
    entry.attributes.push_back(memory);
    slice.named_resources->instances.push_back(entry);
  }
  return slice;
}

class StructuredAllocationTest : public ::testing::Test {
 protected:
  StructuredAllocationTest() {
    resource_class_.metadata.name = "named-gpu";
    resource_class_.driver_name = kDriver;
    resource_class_.structured_parameters = true;
    claim_.metadata.name = "claim";
    claim_.metadata.namespace_ = "ns";
    claim_.spec.resource_class_name = "named-gpu";
    source_.claim_parameters = [this](const std::string& ns,
                                      const std::string& name) {
      auto it = claim_parameters_.find(ns + "/" + name);
      return it == claim_parameters_.end() ? nullptr : it->second;
    };
    source_.class_parameters = [this](const std::string& ns,
                                      const std::string& name) {
      auto it = class_parameters_.find(ns + "/" + name);
      return it == class_parameters_.end() ? nullptr : it->second;
    };
    source_.all_claim_parameters = [this] { return Values(claim_parameters_); };
    source_.all_class_parameters = [this] { return Values(class_parameters_); };
  }
  static std::vector<client::ObjectPtr> Values(
      const std::map<std::string, client::ObjectPtr>& map) {
    std::vector<client::ObjectPtr> out;
    for (const auto& [key, object] : map) out.push_back(object);
    return out;
  }
  void AddClaimParameters(
      std::string name, std::vector<std::string> selectors,
      std::optional<v1alpha2::ResourceClaimParametersReference> generated_from =
          std::nullopt) {
    v1alpha2::ResourceClaimParameters parameters;
    parameters.metadata.name = name;
    parameters.metadata.namespace_ = "ns";
    parameters.generated_from = std::move(generated_from);
    v1alpha2::DriverRequests requests;
    requests.driver_name = kDriver;
    for (std::string& selector : selectors) {
      requests.requests.push_back(
          {std::nullopt,
           v1alpha2::NamedResourcesSelector{std::move(selector)}});
    }
    parameters.driver_requests.push_back(std::move(requests));
    claim_parameters_["ns/" + name] = Wrap(std::move(parameters));
  }
  Verdict Plan(StructuredClaim& out) {
    return PlanStructuredClaim(claim_, resource_class_, source_, selectors_,
                               out);
  }

  v1alpha2::ResourceClass resource_class_;
  v1alpha2::ResourceClaim claim_;
  std::map<std::string, client::ObjectPtr> claim_parameters_;
  std::map<std::string, client::ObjectPtr> class_parameters_;
  ParameterSource source_;
  SelectorCache selectors_;
};

TEST_F(StructuredAllocationTest, NoParametersMeansAnyInstanceShareable) {
  StructuredClaim plan;
  ASSERT_TRUE(Plan(plan).ok());
  EXPECT_EQ(plan.driver_name, kDriver);
  EXPECT_TRUE(plan.shareable);
  ASSERT_EQ(plan.drivers.size(), 1u);
  EXPECT_EQ(plan.drivers[0].driver, kDriver);
  ASSERT_EQ(plan.drivers[0].requests.size(), 1u);
  EXPECT_EQ(plan.drivers[0].requests[0].selector->source(), "true");
}

TEST_F(StructuredAllocationTest, MissingParametersWaitWith130Messages) {
  claim_.spec.parameters_ref = v1alpha2::ResourceClaimParametersReference{
      "resource.k8s.io", "ResourceClaimParameters", "absent"};
  StructuredClaim plan;
  Verdict verdict = Plan(plan);
  EXPECT_EQ(verdict.reason, "claim parameters ns/absent not found");
  EXPECT_FALSE(verdict.ok());

  claim_.spec.parameters_ref =
      v1alpha2::ResourceClaimParametersReference{"", "ConfigMap", "settings"};
  verdict = Plan(plan);
  EXPECT_EQ(verdict.reason,
            "generated claim parameters for ConfigMap ns/settings not found");

  resource_class_.parameters_ref = v1alpha2::ResourceClassParametersReference{
      "resource.k8s.io", "ResourceClassParameters", "filters", "admin"};
  verdict = Plan(plan);
  EXPECT_EQ(verdict.reason, "class parameters admin/filters not found");
}

TEST_F(StructuredAllocationTest, GeneratedFromFindsExactlyOne) {
  claim_.spec.parameters_ref = v1alpha2::ResourceClaimParametersReference{
      "example.com", "GpuRequest", "big"};
  AddClaimParameters("generated-1", {"true"},
                     v1alpha2::ResourceClaimParametersReference{
                         "example.com", "GpuRequest", "big"});
  AddClaimParameters("unrelated", {"true"},
                     v1alpha2::ResourceClaimParametersReference{
                         "example.com", "GpuRequest", "small"});
  StructuredClaim plan;
  ASSERT_TRUE(Plan(plan).ok());
  AddClaimParameters("generated-2", {"true"},
                     v1alpha2::ResourceClaimParametersReference{
                         "example.com", "GpuRequest", "big"});
  const Verdict verdict = Plan(plan);
  EXPECT_EQ(verdict.reason,
            "multiple generated claim parameters for GpuRequest.example.com "
            "ns/big found: [generated-1 generated-2]");
}

TEST_F(StructuredAllocationTest, UnusableRequestsAreErrors) {
  AddClaimParameters("bad", {"attributes.int[\"x\"] +"});
  claim_.spec.parameters_ref = v1alpha2::ResourceClaimParametersReference{
      "resource.k8s.io", "ResourceClaimParameters", "bad"};
  StructuredClaim plan;
  Verdict verdict = Plan(plan);
  EXPECT_TRUE(verdict.reason.starts_with(
      "claim parameters ns/bad: driverRequests[0].requests[0]."
      "namedResources.selector: "))
      << verdict.reason;

  v1alpha2::ResourceClaimParameters no_model;
  no_model.metadata = {};
  no_model.metadata.name = "bad";
  no_model.metadata.namespace_ = "ns";
  no_model.driver_requests.push_back({kDriver, std::nullopt, {{}}});
  claim_parameters_["ns/bad"] = Wrap(no_model);
  verdict = Plan(plan = {});
  EXPECT_EQ(verdict.reason,
            "claim parameters ns/bad: driverRequersts[0].requests[0]: no "
            "supported structured parameters found");
}

TEST_F(StructuredAllocationTest, AllocatesDistinctFreeInstancesWith130Result) {
  AddClaimParameters("pair", {"true",
                              "attributes.quantity[\"memory\"].isLessThan("
                              "quantity(\"16Gi\"))"});
  claim_.spec.parameters_ref = v1alpha2::ResourceClaimParametersReference{
      "resource.k8s.io", "ResourceClaimParameters", "pair"};
  StructuredClaim plan;
  ASSERT_TRUE(Plan(plan).ok());
  NamedResourcesInventory inventory;
  inventory.Rebuild(
      {Wrap(Slice("b-slice", "node-a", {{"gpu-2", 8}})),
       Wrap(Slice("a-slice", "node-a", {{"gpu-0", 8}, {"gpu-1", 40}})),
       Wrap(Slice("other", "node-b", {{"gpu-0", 8}}))});
  std::string reason;
  auto none_taken = [](const std::string&) { return false; };
  auto allocated =
      AllocateOnNode({plan}, inventory, "node-a", none_taken, reason);
  ASSERT_TRUE(allocated.has_value()) << reason;
  // First fit: gpu-0 (slices in name order) for "true", then gpu-2.
  EXPECT_EQ(allocated->devices,
            (std::vector<std::string>{"gpu.named.example.com/node-a/gpu-0",
                                      "gpu.named.example.com/node-a/gpu-2"}));
  const v1alpha2::AllocationResult& result = allocated->allocations[0];
  EXPECT_FALSE(result.shareable);
  ASSERT_TRUE(result.available_on_nodes.has_value());
  EXPECT_EQ(result.available_on_nodes->node_selector_terms[0]
                .match_expressions[0]
                .key,
            "kubernetes.io/hostname");
  ASSERT_EQ(result.resource_handles.size(), 1u);
  EXPECT_EQ(result.resource_handles[0].driver_name, kDriver);
  EXPECT_EQ(result.resource_handles[0].structured_data->node_name, "node-a");
  EXPECT_EQ(result.resource_handles[0].structured_data->results.size(), 2u);

  // gpu-2 taken: 1.30's first fit fails (gpu-0 to "true", nothing small
  // left); the matcher gives gpu-1 to "true" and gpu-0 to the second.
  auto gpu2_taken = [](const std::string& id) {
    return id == "gpu.named.example.com/node-a/gpu-2";
  };
  allocated = AllocateOnNode({plan}, inventory, "node-a", gpu2_taken, reason);
  ASSERT_TRUE(allocated.has_value()) << reason;
  EXPECT_EQ(allocated->devices,
            (std::vector<std::string>{"gpu.named.example.com/node-a/gpu-1",
                                      "gpu.named.example.com/node-a/gpu-0"}));
  EXPECT_EQ(StructuredDevicesOf(v1alpha2::ResourceClaim{
                .status = {.allocation = allocated->allocations[0]}}),
            allocated->devices);

  EXPECT_FALSE(AllocateOnNode({plan}, inventory, "node-b", none_taken, reason));
  EXPECT_EQ(reason,
            "resourceclaim cannot be allocated for the node (unsuitable)");
}

TEST_F(StructuredAllocationTest, SelectorRuntimeErrorsSayWhy) {
  AddClaimParameters("missing-key", {"attributes.int[\"cores\"] > 1"});
  claim_.spec.parameters_ref = v1alpha2::ResourceClaimParametersReference{
      "resource.k8s.io", "ResourceClaimParameters", "missing-key"};
  StructuredClaim plan;
  ASSERT_TRUE(Plan(plan).ok());
  NamedResourcesInventory inventory;
  inventory.Rebuild({Wrap(Slice("a", "node-a", {{"gpu-0", 8}}))});
  std::string reason;
  EXPECT_FALSE(AllocateOnNode(
      {plan}, inventory, "node-a", [](const std::string&) { return false; },
      reason));
  EXPECT_TRUE(reason.starts_with("checking structured parameters failed: "))
      << reason;
}

}  // namespace
}  // namespace dralloc::scheduler::classic
