#include "exampledriver/example_driver.h"

#include <algorithm>
#include <cctype>
#include <system_error>
#include <utility>

#include "cdi/spec.h"
#include "common/log.h"
#include "exampledriver/gpu_config.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;
using kubeletplugin::ClaimRef;
using kubeletplugin::PreparedDevice;
using kubeletplugin::PrepareResult;

constexpr char kComponent[] = "exampledriver";
constexpr char kCheckpointFile[] = "prepared-claims.json";

std::string Describe(const ClaimRef& claim) {
  return "resourceclaim " + claim.namespace_ + "/" + claim.name;
}

// "GPU_DEVICE_0" for gpu-0, "GPU_DEVICE_1_PARTITION_0" for
// gpu-1-partition-0.
std::string EnvPrefix(const std::string& device) {
  std::string suffix = device.starts_with("gpu-") ? device.substr(4) : device;
  for (char& c : suffix) {
    c = std::isalnum(static_cast<unsigned char>(c))
            ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
            : '_';
  }
  return "GPU_DEVICE_" + suffix;
}

// True when a config listing `requests` applies to allocation result
// `request` ("req" or "req/subrequest"); an empty list applies to all.
bool ConfigApplies(const std::vector<std::string>& requests,
                   const std::string& request) {
  if (requests.empty()) return true;
  const std::string parent = request.substr(0, request.find('/'));
  return std::ranges::any_of(requests, [&](const std::string& r) {
    return r == request || r == parent;
  });
}

// The configs of the allocation in the order they apply: from the class
// first, then from the claim (later ones override earlier ones).
std::vector<std::pair<size_t, const api::DeviceAllocationConfiguration*>>
OrderedConfigs(const api::DeviceAllocationResult& devices) {
  std::vector<std::pair<size_t, const api::DeviceAllocationConfiguration*>>
      ordered;
  for (const char* source : {"FromClass", "FromClaim"}) {
    for (size_t i = 0; i < devices.config.size(); ++i) {
      if (devices.config[i].source == source) {
        ordered.emplace_back(i, &devices.config[i]);
      }
    }
  }
  return ordered;
}

}  // namespace

ExampleDriver::ExampleDriver(ExampleDriverOptions options,
                             client::ApiClient* client,
                             PreparedClaimsCheckpoint checkpoint)
    : options_(std::move(options)),
      client_(client),
      cdi_kind_("k8s." + options_.driver_name + "/gpu"),
      checkpoint_(std::move(checkpoint)) {}

StatusOr<std::unique_ptr<ExampleDriver>> ExampleDriver::Create(
    ExampleDriverOptions options, client::ApiClient* client) {
  for (const fs::path& dir : {options.cdi_dir, options.state_dir}) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      return InternalError("directory " + dir.string() + ": " + ec.message());
    }
  }
  ASSIGN_OR_RETURN(
      PreparedClaimsCheckpoint checkpoint,
      PreparedClaimsCheckpoint::Load(options.state_dir / kCheckpointFile));
  std::unique_ptr<ExampleDriver> driver(
      new ExampleDriver(std::move(options), client, std::move(checkpoint)));
  RETURN_IF_ERROR(driver->WriteCommonSpec());
  return driver;
}

void ExampleDriver::CancelDelays() {
  {
    MutexLock lock(delay_mu_);
    delays_cancelled_ = true;
  }
  delay_cancelled_.SignalAll();
}

fs::path ExampleDriver::ClaimSpecPath(const std::string& claim_uid) const {
  return options_.cdi_dir / cdi::TransientSpecFileName(cdi_kind_, claim_uid);
}

fs::path ExampleDriver::CommonSpecPath() const {
  return options_.cdi_dir / cdi::TransientSpecFileName(cdi_kind_, "common");
}

Status ExampleDriver::WriteCommonSpec() const {
  cdi::Spec spec;
  spec.kind = cdi_kind_;
  cdi::Device common;
  common.name = "common";
  common.container_edits.env = {
      "KUBERNETES_NODE_NAME=" + options_.node_name,
      "DRA_RESOURCE_DRIVER_NAME=" + options_.driver_name};
  spec.devices.push_back(std::move(common));
  return cdi::WriteSpecFile(spec, CommonSpecPath());
}

std::map<std::string, PrepareResult> ExampleDriver::PrepareClaims(
    std::span<const ClaimRef> claims) {
  if (options_.prepare_delay.count() > 0) {
    // A test knob: makes the driver slow so callers' deadlines can be tested.
    MutexLock lock(delay_mu_);
    delay_cancelled_.WaitFor(
        delay_mu_, options_.prepare_delay,
        [&]() REQUIRES(delay_mu_) { return delays_cancelled_; });
  }
  std::map<std::string, PrepareResult> results;
  for (const ClaimRef& claim : claims) {
    results[claim.uid] = PrepareClaim(claim);
    if (!results[claim.uid].error.ok()) {
      log::Warn(kComponent, "prepare: {}", results[claim.uid].error.message());
    }
  }
  return results;
}

PrepareResult ExampleDriver::PrepareClaim(const ClaimRef& claim) {
  PrepareResult result;
  const std::string what = Describe(claim);
  if (options_.fail_prepare) {
    result.error = UnavailableError(
        what + ": prepare failed: the driver runs with --fail-prepare");
    return result;
  }
  if (!options_.fail_prepare_claim.empty() &&
      claim.name == options_.fail_prepare_claim) {
    result.error = UnavailableError(
        what + ": prepare failed: the driver runs with --fail-prepare-claim");
    return result;
  }
  if (const PreparedClaim* prepared = checkpoint_.Find(claim.uid)) {
    result.devices = prepared->devices;
    return result;
  }
  StatusOr<api::ResourceClaim> fetched = FetchClaim(claim);
  if (!fetched.ok()) {
    result.error = fetched.status();
    return result;
  }
  StatusOr<PreparedClaim> prepared = PrepareDevices(*fetched, what);
  if (!prepared.ok()) {
    result.error = prepared.status();
    return result;
  }
  result.devices = prepared->devices;
  Status saved = checkpoint_.Put(claim.uid, std::move(prepared).value());
  if (!saved.ok()) result.error = saved.WithPrefix(what);
  return result;
}

StatusOr<api::ResourceClaim> ExampleDriver::FetchClaim(
    const ClaimRef& claim) const {
  const std::string what = Describe(claim);
  StatusOr<client::ObjectPtr> object = client_->Get(
      client::ResourceClaimsResource(), claim.namespace_, claim.name);
  if (!object.ok()) return object.status().WithPrefix(what);
  const auto* resource_claim = std::get_if<api::ResourceClaim>(object->get());
  if (resource_claim == nullptr) {
    return InternalError(what + ": API returned another kind");
  }
  if (resource_claim->metadata.uid != claim.uid) {
    return FailedPreconditionError(
        what + ": metadata.uid: Invalid value: \"" +
        resource_claim->metadata.uid + "\": the kubelet asked for uid " +
        claim.uid + " (the claim was deleted and re-created)");
  }
  if (!resource_claim->status.allocation) {
    return FailedPreconditionError(
        what + ": status.allocation: Required value: claim is not allocated");
  }
  return *resource_claim;
}

StatusOr<PreparedClaim> ExampleDriver::PrepareDevices(
    const api::ResourceClaim& claim, const std::string& what) const {
  const api::DeviceAllocationResult& allocated =
      claim.status.allocation->devices;
  // Parse every config of ours once, in the order they apply.
  std::vector<std::pair<const api::DeviceAllocationConfiguration*, GpuConfig>>
      configs;
  for (const auto& [index, config] : OrderedConfigs(allocated)) {
    if (!config->opaque || config->opaque->driver != options_.driver_name) {
      continue;
    }
    const std::string path = what + ": status.allocation.devices.config[" +
                             std::to_string(index) + "].opaque.parameters";
    ASSIGN_OR_RETURN(GpuConfig parsed,
                     GpuConfig::Parse(config->opaque->parameters.json, path));
    configs.emplace_back(config, std::move(parsed));
  }

  const std::string uid = claim.metadata.uid;
  cdi::Spec spec;
  spec.kind = cdi_kind_;
  PreparedClaim prepared{claim.metadata.namespace_, claim.metadata.name, {}};
  for (const api::DeviceRequestAllocationResult& result : allocated.results) {
    if (result.driver != options_.driver_name) continue;
    const std::string prefix = EnvPrefix(result.device);
    cdi::Device device;
    device.name = uid + "-" + result.device;
    device.container_edits.env.push_back(prefix + "=" + result.device);
    const GpuConfig* effective = nullptr;
    for (const auto& [config, parsed] : configs) {
      if (ConfigApplies(config->requests, result.request)) effective = &parsed;
    }
    if (effective != nullptr) {
      for (std::string& env : effective->Env(prefix)) {
        device.container_edits.env.push_back(std::move(env));
      }
    }
    prepared.devices.push_back({{result.request},
                                result.pool,
                                result.device,
                                {cdi::QualifiedName(cdi_kind_, "common"),
                                 cdi::QualifiedName(cdi_kind_, device.name)},
                                result.share_id});
    spec.devices.push_back(std::move(device));
  }
  if (spec.devices.empty()) {
    return FailedPreconditionError(
        what + ": status.allocation.devices.results: no device of driver " +
        options_.driver_name + " is allocated");
  }
  RETURN_IF_ERROR(
      cdi::WriteSpecFile(spec, ClaimSpecPath(uid)).WithPrefix(what));
  log::Info(kComponent, "prepared {} ({} devices)", what,
            prepared.devices.size());
  return prepared;
}

std::map<std::string, Status> ExampleDriver::UnprepareClaims(
    std::span<const ClaimRef> claims) {
  std::map<std::string, Status> results;
  for (const ClaimRef& claim : claims) {
    const std::string what = Describe(claim);
    std::error_code ec;
    fs::remove(ClaimSpecPath(claim.uid), ec);
    if (ec) {
      results[claim.uid] = InternalError(what + ": removing CDI spec " +
                                         ClaimSpecPath(claim.uid).string() +
                                         ": " + ec.message());
      continue;
    }
    results[claim.uid] = checkpoint_.Erase(claim.uid).WithPrefix(what);
    if (results[claim.uid].ok()) log::Info(kComponent, "unprepared {}", what);
  }
  return results;
}

}  // namespace dralloc::exampledriver
