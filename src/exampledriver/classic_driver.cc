#include "exampledriver/classic_driver.h"

#include <fmt/format.h>

namespace dralloc::exampledriver {
namespace {

namespace v1alpha2 = api::v1alpha2;
using classiccontroller::ClaimAllocation;

}  // namespace

ClassicExampleDriver::ClassicExampleDriver(client::ApiClient& client,
                                           std::string driver_name,
                                           ClassicGpuPool pool)
    : client_(client),
      driver_name_(std::move(driver_name)),
      pool_(std::move(pool)) {}

Status ClassicExampleDriver::Restore(
    const std::vector<client::ObjectPtr>& claims) {
  std::string failures;
  MutexLock lock(mu_);
  for (const client::ObjectPtr& object : claims) {
    const auto* claim = client::As<v1alpha2::ResourceClaim>(object);
    if (claim == nullptr || claim->status.driver_name != driver_name_ ||
        !claim->status.allocation) {
      continue;
    }
    for (const v1alpha2::ResourceHandle& handle :
         claim->status.allocation->resource_handles) {
      if (handle.driver_name != driver_name_) continue;
      StatusOr<ClassicHandle> parsed = ClassicHandle::FromJson(handle.data);
      const Status restored = parsed.ok()
                                  ? pool_.Restore(claim->metadata.uid, *parsed)
                                  : parsed.status();
      if (!restored.ok()) {
        failures += fmt::format("{}resourceclaim {}/{}: {}",
                                failures.empty() ? "" : "; ",
                                claim->metadata.namespace_,
                                claim->metadata.name, restored.message());
      }
    }
  }
  if (failures.empty()) return OkStatus();
  return Status(StatusCode::kFailedPrecondition, failures);
}

StatusOr<ClassicExampleDriver::Data> ClassicExampleDriver::ConfigMapData(
    std::string_view namespace_, std::string_view name,
    std::string_view referrer) const {
  auto got =
      client_.Get(client::ResourceFor<api::ConfigMap>(), namespace_, name);
  if (!got.ok()) {
    return Status(
        got.status().code(),
        fmt::format("{}: parametersRef: ConfigMap {}/{}: {}", referrer,
                    namespace_, name, got.status().message()));
  }
  return Data(std::get<api::ConfigMap>(**got).data);
}

StatusOr<std::any> ClassicExampleDriver::GetClassParameters(
    const v1alpha2::ResourceClass& resource_class) {
  const auto& ref = resource_class.parameters_ref;
  if (!ref) return std::any(Data());
  if (!ref->api_group.empty() || ref->kind != "ConfigMap") {
    return Status(
        StatusCode::kInvalidArgument,
        fmt::format("resourceclass {}: parametersRef: kind {} "
                    "(group \"{}\") is not supported, only core/v1 "
                    "ConfigMap",
                    resource_class.metadata.name, ref->kind, ref->api_group));
  }
  ASSIGN_OR_RETURN(Data data,
                   ConfigMapData(ref->namespace_, ref->name,
                                 fmt::format("resourceclass {}",
                                             resource_class.metadata.name)));
  return std::any(std::move(data));
}

StatusOr<std::any> ClassicExampleDriver::GetClaimParameters(
    const v1alpha2::ResourceClaim& claim, const v1alpha2::ResourceClass&,
    const std::any& class_parameters) {
  const std::string referrer = fmt::format(
      "resourceclaim {}/{}", claim.metadata.namespace_, claim.metadata.name);
  Data claim_data;
  if (const auto& ref = claim.spec.parameters_ref) {
    if (!ref->api_group.empty() || ref->kind != "ConfigMap") {
      return Status(StatusCode::kInvalidArgument,
                    fmt::format("{}: spec.parametersRef: kind {} (group "
                                "\"{}\") is not supported, only core/v1 "
                                "ConfigMap",
                                referrer, ref->kind, ref->api_group));
    }
    ASSIGN_OR_RETURN(claim_data, ConfigMapData(claim.metadata.namespace_,
                                               ref->name, referrer));
  }
  const Data& class_data = std::any_cast<const Data&>(class_parameters);
  auto parameters = ClassicParameters::FromConfigMapData(
      claim_data ? &*claim_data : nullptr, class_data ? &*class_data : nullptr);
  if (!parameters.ok()) {
    return Status(
        parameters.status().code(),
        fmt::format("{}: {}", referrer, parameters.status().message()));
  }
  return std::any(*std::move(parameters));
}

void ClassicExampleDriver::Allocate(std::span<ClaimAllocation> claims,
                                    std::string_view selected_node) {
  MutexLock lock(mu_);
  for (ClaimAllocation& claim : claims) {
    const auto& parameters =
        std::any_cast<const ClassicParameters&>(claim.claim_parameters);
    auto handle = pool_.Allocate(claim.claim->metadata.uid, parameters.count,
                                 selected_node);
    if (!handle.ok()) {
      claim.error = handle.status();
      continue;
    }
    handle->env = parameters.env;
    v1alpha2::AllocationResult result;
    result.resource_handles.push_back(
        {.driver_name = driver_name_, .data = handle->ToJson()});
    result.available_on_nodes = ClassicGpuPool::OnNode(handle->node_name);
    claim.allocation = std::move(result);
  }
}

Status ClassicExampleDriver::Deallocate(const v1alpha2::ResourceClaim& claim) {
  MutexLock lock(mu_);
  pool_.Deallocate(claim.metadata.uid);
  return OkStatus();
}

Status ClassicExampleDriver::UnsuitableNodes(
    const api::Pod&, std::span<ClaimAllocation> claims,
    const std::vector<std::string>& potential_nodes) {
  // Claims of one pod on one node add up: a node is unsuitable for all of
  // them when their GPUs together do not fit.
  int total = 0;
  for (const ClaimAllocation& claim : claims) {
    total +=
        std::any_cast<const ClassicParameters&>(claim.claim_parameters).count;
  }
  MutexLock lock(mu_);
  const std::vector<std::string> unsuitable =
      pool_.UnsuitableNodes(potential_nodes, total);
  for (ClaimAllocation& claim : claims) claim.unsuitable_nodes = unsuitable;
  return OkStatus();
}

int ClassicExampleDriver::FreeOn(std::string_view node) const {
  MutexLock lock(mu_);
  return pool_.FreeOn(node);
}

}  // namespace dralloc::exampledriver
