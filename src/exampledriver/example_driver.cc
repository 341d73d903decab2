#include "exampledriver/example_driver.h"

#include <algorithm>
#include <cctype>
#include <system_error>
#include <utility>

#include "cdi/spec.h"
#include "common/log.h"
#include "exampledriver/classic_gpu_pool.h"
#include "exampledriver/gpu_config.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;
using kubeletplugin::ClaimRef;
using kubeletplugin::PreparedDevice;
using kubeletplugin::PrepareResult;

constexpr char kComponent[] = "exampledriver";

std::string Describe(const ClaimRef& claim) {
  return "resourceclaim " + claim.namespace_ + "/" + claim.name;
}

std::vector<std::string> UidsOf(std::span<const ClaimRef> claims) {
  std::vector<std::string> uids;
  uids.reserve(claims.size());
  for (const ClaimRef& claim : claims) uids.push_back(claim.uid);
  return uids;
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

// The GPUs a structured resource handle names (results' instance names).
ClassicHandle HandleOf(const api::v1alpha2::StructuredResourceHandle& data) {
  ClassicHandle handle;
  handle.node_name = data.node_name;
  for (const auto& result : data.results) {
    if (result.named_resources)
      handle.gpus.push_back(result.named_resources->name);
  }
  return handle;
}

}  // namespace

ExampleDriver::ExampleDriver(ExampleDriverOptions options,
                             client::ApiClient* client,
                             std::unique_ptr<PreparedClaimsStore> store)
    : options_(std::move(options)),
      client_(client),
      cdi_kind_("k8s." + options_.driver_name + "/gpu"),
      spec_files_(options_.cdi_dir, cdi_kind_),
      store_(std::move(store)) {}

StatusOr<std::unique_ptr<ExampleDriver>> ExampleDriver::Create(
    ExampleDriverOptions options, client::ApiClient* client) {
  for (const fs::path& dir : {options.cdi_dir, options.state_dir}) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      return InternalError("directory " + dir.string() + ": " + ec.message());
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<PreparedClaimsStore> store,
                   PreparedClaimsStore::Open(
                       {.dir = options.state_dir, .sync = options.state_sync}));
  std::unique_ptr<ExampleDriver> driver(
      new ExampleDriver(std::move(options), client, std::move(store)));
  RETURN_IF_ERROR(driver->WriteCommonSpec());
  RETURN_IF_ERROR(driver->spec_files_.Reconcile(driver->store_->Claims()));
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
  return spec_files_.PathOf(claim_uid);
}

fs::path ExampleDriver::CommonSpecPath() const {
  return spec_files_.CommonPath();
}

void ExampleDriver::WaitDelay(std::chrono::milliseconds delay) {
  if (delay.count() <= 0) return;
  // A test knob: makes the driver slow so callers' deadlines (and crashes
  // of the caller during a call) can be tested.
  MutexLock lock(delay_mu_);
  delay_cancelled_.WaitFor(delay_mu_, delay, [&]() REQUIRES(delay_mu_) {
    return delays_cancelled_;
  });
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
  WaitDelay(options_.prepare_delay);
  const ClaimLocks::Held held = claim_locks_.LockAll(UidsOf(claims));
  std::map<std::string, PrepareResult> results;
  std::vector<ClaimChange> changes;
  for (const ClaimRef& claim : claims) {
    results[claim.uid] = PrepareClaim(claim, changes);
  }
  std::vector<std::string> recorded;
  for (const ClaimChange& change : changes) recorded.push_back(change.uid);
  if (Status saved = store_->Apply(std::move(changes)); !saved.ok()) {
    for (const ClaimRef& claim : claims) {
      if (std::ranges::find(recorded, claim.uid) == recorded.end()) continue;
      results[claim.uid].error = saved.WithPrefix(Describe(claim));
      (void)spec_files_.Remove(claim.uid);  // not prepared after all
    }
  }
  for (const ClaimRef& claim : claims) {
    const PrepareResult& result = results[claim.uid];
    if (!result.error.ok()) {
      log::Warn(kComponent, "prepare: {}", result.error.message());
    } else {
      log::Info(kComponent, "prepared {} ({} devices)", Describe(claim),
                result.devices.size());
    }
  }
  return results;
}

PrepareResult ExampleDriver::PrepareClaim(const ClaimRef& claim,
                                          std::vector<ClaimChange>& changes) {
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
  if (std::optional<PreparedClaim> prepared = store_->Find(claim.uid)) {
    result.devices = std::move(prepared->devices);
    return result;
  }
  StatusOr<PreparedClaim> prepared = options_.classic
                                         ? PrepareClassicClaim(claim, what)
                                         : PrepareStructuredClaim(claim, what);
  if (!prepared.ok()) {
    result.error = prepared.status();
    return result;
  }
  result.devices = prepared->devices;
  changes.push_back({claim.uid, std::move(prepared).value()});
  return result;
}

StatusOr<PreparedClaim> ExampleDriver::PrepareStructuredClaim(
    const ClaimRef& claim, const std::string& what) const {
  ASSIGN_OR_RETURN(api::ResourceClaim fetched, FetchClaim(claim));
  return PrepareDevices(fetched, what);
}

StatusOr<PreparedClaim> ExampleDriver::PrepareClassicClaim(
    const ClaimRef& claim, const std::string& what) const {
  StatusOr<client::ObjectPtr> object =
      client_->Get(client::ResourceFor<api::v1alpha2::ResourceClaim>(),
                   claim.namespace_, claim.name);
  if (!object.ok()) return object.status().WithPrefix(what + " (v1alpha2)");
  const auto* fetched =
      std::get_if<api::v1alpha2::ResourceClaim>(object->get());
  if (fetched == nullptr) {
    return InternalError(what + ": API returned another kind");
  }
  RETURN_IF_ERROR(CheckFetched(claim, fetched->metadata.uid,
                               fetched->status.allocation.has_value()));
  return PrepareClassicDevices(*fetched, what);
}

Status ExampleDriver::CheckFetched(const ClaimRef& claim,
                                   const std::string& uid, bool allocated) {
  const std::string what = Describe(claim);
  if (uid != claim.uid) {
    return FailedPreconditionError(what + ": metadata.uid: Invalid value: \"" +
                                   uid + "\": the kubelet asked for uid " +
                                   claim.uid +
                                   " (the claim was deleted and re-created)");
  }
  if (!allocated) {
    return FailedPreconditionError(
        what + ": status.allocation: Required value: claim is not allocated");
  }
  return OkStatus();
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
  RETURN_IF_ERROR(CheckFetched(claim, resource_claim->metadata.uid,
                               resource_claim->status.allocation.has_value()));
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
  PreparedClaim prepared{
      claim.metadata.namespace_, claim.metadata.name, {}, {}};
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
  RETURN_IF_ERROR(WriteClaimSpec(spec, uid, prepared, what));
  return prepared;
}

StatusOr<PreparedClaim> ExampleDriver::PrepareClassicDevices(
    const api::v1alpha2::ResourceClaim& claim, const std::string& what) const {
  const std::string uid = claim.metadata.uid;
  cdi::Spec spec;
  spec.kind = cdi_kind_;
  PreparedClaim prepared{
      claim.metadata.namespace_, claim.metadata.name, {}, {}};
  const auto& handles = claim.status.allocation->resource_handles;
  for (size_t i = 0; i < handles.size(); ++i) {
    if (handles[i].driver_name != options_.driver_name) continue;
    const std::string path =
        what + ": status.allocation.resourceHandles[" + std::to_string(i) +
        (handles[i].structured_data ? "].structuredData" : "].data");
    // The control-plane driver's JSON data, or the scheduler's structured
    // data (1.30's structured parameters: the node and instance names).
    StatusOr<ClassicHandle> parsed =
        handles[i].structured_data
            ? StatusOr<ClassicHandle>(HandleOf(*handles[i].structured_data))
            : ClassicHandle::FromJson(handles[i].data);
    if (!parsed.ok()) return parsed.status().WithPrefix(path);
    const ClassicHandle& handle = *parsed;
    // As 1.30's test driver: a handle for another node is refused.
    if (handle.node_name != options_.node_name) {
      return FailedPreconditionError(
          path + ": nodeName: Invalid value: \"" + handle.node_name +
          "\": this driver serves node " + options_.node_name);
    }
    for (const std::string& gpu : handle.gpus) {
      cdi::Device device;
      device.name = uid + "-" + gpu;
      device.container_edits.env.push_back(EnvPrefix(gpu) + "=" + gpu);
      for (const auto& [key, value] : handle.env) {
        device.container_edits.env.push_back(key + "=" + value);
      }
      // Classic claims have no requests: a container gets the whole claim.
      prepared.devices.push_back({{},
                                  options_.node_name,
                                  gpu,
                                  {cdi::QualifiedName(cdi_kind_, "common"),
                                   cdi::QualifiedName(cdi_kind_, device.name)},
                                  std::nullopt});
      spec.devices.push_back(std::move(device));
    }
  }
  if (spec.devices.empty()) {
    return FailedPreconditionError(
        what + ": status.allocation.resourceHandles: no GPU of driver " +
        options_.driver_name + " is allocated");
  }
  RETURN_IF_ERROR(WriteClaimSpec(spec, uid, prepared, what));
  return prepared;
}

Status ExampleDriver::WriteClaimSpec(const cdi::Spec& spec,
                                     const std::string& uid,
                                     PreparedClaim& prepared,
                                     const std::string& what) const {
  StatusOr<std::string> text = spec_files_.Render(spec, uid);
  if (!text.ok()) return text.status().WithPrefix(what);
  prepared.cdi_spec = std::move(text).value();
  return spec_files_.Write(uid, prepared.cdi_spec).WithPrefix(what);
}

std::map<std::string, Status> ExampleDriver::UnprepareClaims(
    std::span<const ClaimRef> claims) {
  WaitDelay(options_.unprepare_delay);
  const ClaimLocks::Held held = claim_locks_.LockAll(UidsOf(claims));
  std::map<std::string, Status> results;
  std::vector<ClaimChange> changes;
  for (const ClaimRef& claim : claims) {
    results[claim.uid] = UnprepareClaim(claim, changes);
  }
  std::vector<std::string> recorded;
  for (const ClaimChange& change : changes) recorded.push_back(change.uid);
  if (Status saved = store_->Apply(std::move(changes)); !saved.ok()) {
    for (const ClaimRef& claim : claims) {
      if (std::ranges::find(recorded, claim.uid) == recorded.end()) continue;
      results[claim.uid] = saved.WithPrefix(Describe(claim));
    }
  }
  for (const ClaimRef& claim : claims) {
    const Status& result = results[claim.uid];
    if (!result.ok()) {
      log::Warn(kComponent, "unprepare: {}", result.message());
    } else {
      log::Info(kComponent, "unprepared {}", Describe(claim));
    }
  }
  return results;
}

Status ExampleDriver::UnprepareClaim(const ClaimRef& claim,
                                     std::vector<ClaimChange>& changes) {
  // The file goes first: should the driver die before the record does,
  // the restarted driver restores the file and a repeated unprepare
  // removes both.
  RETURN_IF_ERROR(spec_files_.Remove(claim.uid).WithPrefix(Describe(claim)));
  if (store_->Find(claim.uid)) changes.push_back({claim.uid, std::nullopt});
  return OkStatus();
}

}  // namespace dralloc::exampledriver
