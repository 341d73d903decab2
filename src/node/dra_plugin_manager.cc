#include "node/dra_plugin_manager.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/log.h"
#include "k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.grpc.pb.h"

namespace dralloc::node {
namespace {

namespace reg = ::pluginregistration;
constexpr std::string_view kComponent = "dra-plugins";
constexpr std::string_view kDraPluginType = "DRAPlugin";

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string JoinVersions(const reg::PluginInfo& info) {
  std::string out = "[";
  for (int i = 0; i < info.supported_versions_size(); ++i) {
    if (i > 0) out += " ";
    out += info.supported_versions(i);
  }
  return out + "]";
}

// The DRA service version to use, newest first; an error message when the
// plugin is not acceptable.
StatusOr<DraApiVersion> Negotiate(const reg::PluginInfo& info) {
  if (info.type() != kDraPluginType) {
    return InvalidArgumentError("plugin type \"" + info.type() +
                                "\" is not supported (want \"DRAPlugin\")");
  }
  if (info.name().empty()) {
    return InvalidArgumentError("DRA plugin name is empty");
  }
  const auto& versions = info.supported_versions();
  for (DraApiVersion version : {DraApiVersion::kV1, DraApiVersion::kV1beta1}) {
    if (std::find(versions.begin(), versions.end(), DraServiceName(version)) !=
        versions.end()) {
      return version;
    }
  }
  return InvalidArgumentError(
      "DRA plugin " + info.name() + ": no supported DRAPlugin version in " +
      JoinVersions(info) + " (supported: v1.DRAPlugin, v1beta1.DRAPlugin)");
}

void Notify(reg::Registration::Stub& stub, std::chrono::milliseconds timeout,
            const std::string& socket, bool registered,
            const std::string& error) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  reg::RegistrationStatus status;
  status.set_plugin_registered(registered);
  status.set_error(error);
  reg::RegistrationStatusResponse response;
  grpc::Status result =
      stub.NotifyRegistrationStatus(&context, status, &response);
  if (!result.ok()) {
    log::Warn(kComponent, "plugin socket {}: NotifyRegistrationStatus: {}",
              socket, result.error_message());
  }
}

}  // namespace

DraPluginManager::DraPluginManager(client::ApiClient* api,
                                   DraPluginManagerOptions options)
    : api_(api), options_(std::move(options)) {}

DraPluginManager::~DraPluginManager() { Stop(); }

void DraPluginManager::Start() {
  thread_ = std::thread([this] { Run(); });
}

void DraPluginManager::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void DraPluginManager::OnSocketEvent(const PluginSocketEvent& event) {
  if (event.type == PluginSocketEvent::Type::kRemoved) {
    RemoveSocket(event.path);
    return;
  }
  {
    MutexLock lock(mu_);
    pending_sockets_[event.path] = {Clock::now(), options_.retry_initial};
    kicked_ = true;
  }
  wake_.SignalAll();
}

StatusOr<std::shared_ptr<const DraPluginClient>> DraPluginManager::GetClient(
    std::string_view driver) const {
  MutexLock lock(mu_);
  auto it = drivers_.find(driver);
  if (it == drivers_.end() || it->second.empty()) {
    return UnavailableError("DRA driver " + std::string(driver) +
                            " is not registered on this node");
  }
  return it->second.back().client;
}

std::vector<std::string> DraPluginManager::RegisteredDrivers() const {
  MutexLock lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, registrations] : drivers_) names.push_back(name);
  return names;
}

void DraPluginManager::Run() {
  while (true) {
    Clock::time_point next = RunDueTasks();
    MutexLock lock(mu_);
    if (stopping_) return;
    auto wait =
        std::min<Clock::duration>(next - Clock::now(), std::chrono::seconds(1));
    if (wait <= Clock::duration::zero()) continue;
    wake_.WaitFor(mu_, wait,
                  [this]() REQUIRES(mu_) { return stopping_ || kicked_; });
    kicked_ = false;
    if (stopping_) return;
  }
}

std::chrono::milliseconds DraPluginManager::NextBackoff(
    std::chrono::milliseconds now) const {
  return std::min(now * 2, options_.retry_max);
}

DraPluginManager::Clock::time_point DraPluginManager::RunDueTasks() {
  std::vector<std::string> sockets;
  std::vector<std::string> wipes;
  {
    MutexLock lock(mu_);
    const auto now = Clock::now();
    for (const auto& [path, pending] : pending_sockets_) {
      if (pending.due <= now) sockets.push_back(path);
    }
    for (const auto& [driver, pending] : pending_wipes_) {
      if (pending.due <= now) wipes.push_back(driver);
    }
  }
  for (const std::string& socket : sockets) {
    bool done = TryRegister(socket);
    MutexLock lock(mu_);
    auto it = pending_sockets_.find(socket);
    if (it == pending_sockets_.end()) continue;  // removed meanwhile
    if (done) {
      pending_sockets_.erase(it);
    } else {
      it->second.due = Clock::now() + it->second.backoff;
      it->second.backoff = NextBackoff(it->second.backoff);
    }
  }
  for (const std::string& driver : wipes) {
    Status wiped = WipeNodeSlices(driver);
    MutexLock lock(mu_);
    auto it = pending_wipes_.find(driver);
    if (it == pending_wipes_.end()) continue;  // re-registered meanwhile
    if (wiped.ok()) {
      pending_wipes_.erase(it);
    } else {
      log::Warn(kComponent, "deleting ResourceSlices of driver {}: {}", driver,
                wiped.message());
      it->second.due = Clock::now() + it->second.backoff;
      it->second.backoff = NextBackoff(it->second.backoff);
    }
  }
  MutexLock lock(mu_);
  Clock::time_point next = Clock::now() + std::chrono::seconds(1);
  for (const auto& [path, pending] : pending_sockets_) {
    next = std::min(next, pending.due);
  }
  for (const auto& [driver, pending] : pending_wipes_) {
    next = std::min(next, pending.due);
  }
  return next;
}

bool DraPluginManager::TryRegister(const std::string& socket) {
  if (!Exists(socket)) return true;  // gone: nothing to retry
  auto channel = grpc::CreateChannel("unix://" + socket,
                                     grpc::InsecureChannelCredentials());
  auto stub = reg::Registration::NewStub(channel);
  reg::PluginInfo info;
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         options_.registration_timeout);
    grpc::Status status = stub->GetInfo(&context, reg::InfoRequest(), &info);
    if (!status.ok()) {
      log::Warn(kComponent, "plugin socket {}: GetInfo: {} (will retry)",
                socket, status.error_message());
      return false;
    }
  }
  StatusOr<DraApiVersion> version = Negotiate(info);
  if (!version.ok()) {
    log::Error(kComponent, "plugin socket {}: registration rejected: {}",
               socket, version.status().message());
    Notify(*stub, options_.registration_timeout, socket, false,
           version.status().message());
    return true;
  }
  // As the kubelet: no endpoint means the registration socket serves DRA.
  const std::string endpoint =
      info.endpoint().empty() ? socket : info.endpoint();
  auto client = std::make_shared<const DraPluginClient>(
      info.name(), endpoint, *version, options_.call_timeout);
  std::vector<std::string> versions(info.supported_versions().begin(),
                                    info.supported_versions().end());
  AddRegistration(socket, client, versions);
  log::Info(kComponent, "registered DRA driver {} ({}) at {} via {}",
            info.name(), DraServiceName(*version), endpoint, socket);
  Notify(*stub, options_.registration_timeout, socket, true, "");
  if (on_registered_) on_registered_(info.name());
  if (on_driver_)
    on_driver_({info.name(), true, endpoint, std::move(versions)});
  return true;
}

void DraPluginManager::AddRegistration(
    const std::string& socket, std::shared_ptr<const DraPluginClient> client,
    std::vector<std::string> supported_versions) {
  MutexLock lock(mu_);
  // A socket registers one driver: a re-registration replaces its entry.
  for (auto& [name, registrations] : drivers_) {
    std::erase_if(registrations,
                  [&](const Registration& r) { return r.socket == socket; });
  }
  std::erase_if(drivers_,
                [](const auto& entry) { return entry.second.empty(); });
  pending_wipes_.erase(client->driver());
  std::vector<Registration>& same_name = drivers_[client->driver()];
  if (!same_name.empty()) {
    // As the kubelet: the newest registration serves, older ones stay as
    // fallbacks (a rolling update, or two drivers claiming one name).
    log::Warn(kComponent,
              "DRA driver {}: socket {} registers a name that {} already "
              "serves; the newest ({}) serves now, the others only if it goes",
              client->driver(), socket, same_name.back().socket, socket);
  }
  same_name.push_back(
      {socket, std::move(client), std::move(supported_versions)});
}

void DraPluginManager::RemoveSocket(const std::string& socket) {
  std::vector<DriverRegistration> changes;
  EraseSocket(socket, changes);
  wake_.SignalAll();
  if (!on_driver_) return;
  for (const DriverRegistration& change : changes) on_driver_(change);
}

void DraPluginManager::EraseSocket(const std::string& socket,
                                   std::vector<DriverRegistration>& changes) {
  MutexLock lock(mu_);
  pending_sockets_.erase(socket);
  for (auto it = drivers_.begin(); it != drivers_.end();) {
    auto& registrations = it->second;
    const bool was_newest =
        !registrations.empty() && registrations.back().socket == socket;
    size_t removed = std::erase_if(registrations, [&](const Registration& r) {
      return r.socket == socket;
    });
    if (removed > 0 && !registrations.empty() && was_newest) {
      // An older registration serves again (rolling update rolled back).
      const Registration& now = registrations.back();
      log::Info(kComponent,
                "DRA driver {}: socket {} removed; {} serves it again",
                it->first, socket, now.socket);
      changes.push_back(
          {it->first, true, now.client->endpoint(), now.supported_versions});
    }
    if (removed > 0 && registrations.empty()) {
      changes.push_back({it->first, false, "", {}});
      log::Info(kComponent,
                "DRA driver {} unregistered (socket {} removed); its "
                "ResourceSlices go in {} ms unless it comes back",
                it->first, socket, options_.wiping_delay.count());
      pending_wipes_[it->first] = {Clock::now() + options_.wiping_delay,
                                   options_.retry_initial};
      it = drivers_.erase(it);
    } else {
      ++it;
    }
  }
  kicked_ = true;
}

Status DraPluginManager::WipeNodeSlices(std::string_view driver) {
  if (api_ == nullptr) return OkStatus();
  // The Node authorizer lets a node list slices with this selector alone; a
  // client that cannot filter returns all of them, hence the check below.
  ASSIGN_OR_RETURN(client::ObjectList slices,
                   api_->ListMatching(client::ResourceSlicesResource(),
                                      "spec.nodeName=" + options_.node_name));
  for (const client::ObjectPtr& object : slices.items) {
    const auto* slice = std::get_if<api::ResourceSlice>(object.get());
    if (slice == nullptr || slice->spec.node_name != options_.node_name) {
      continue;
    }
    if (!driver.empty() && slice->spec.driver != driver) continue;
    Status deleted = api_->Delete(client::ResourceSlicesResource(), "",
                                  slice->metadata.name, slice->metadata.uid);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound &&
        deleted.code() != StatusCode::kAborted) {
      return deleted.WithPrefix("ResourceSlice " + slice->metadata.name);
    }
    log::Info(kComponent, "deleted ResourceSlice {} of driver {}",
              slice->metadata.name, slice->spec.driver);
  }
  return OkStatus();
}

}  // namespace dralloc::node
