// FakeDraDriver: a DRA driver for the node agent's tests, built on the
// generated gRPC services. It serves Registration on
// <registry>/<name>-reg.sock (or a given socket name) and DRAPlugin v1 and
// v1beta1 on <plugins>/<name>/dra.sock, records what it was asked and has
// knobs for faults (per-claim errors, claims left out, slowness).
// Test-only (header-only, never linked into the agent).
#ifndef DRALLOC_NODE_FAKE_DRA_DRIVER_H_
#define DRALLOC_NODE_FAKE_DRA_DRIVER_H_

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.grpc.pb.h"

namespace dralloc::node::testing {

namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace drav1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;

// The generated names of one DRA API version.
struct FakeV1 {
  using DRAPlugin = drav1::DRAPlugin;
  using NodePrepareResourcesRequest = drav1::NodePrepareResourcesRequest;
  using NodePrepareResourcesResponse = drav1::NodePrepareResourcesResponse;
  using NodeUnprepareResourcesRequest = drav1::NodeUnprepareResourcesRequest;
  using NodeUnprepareResourcesResponse = drav1::NodeUnprepareResourcesResponse;
};
struct FakeV1beta1 {
  using DRAPlugin = drav1beta1::DRAPlugin;
  using NodePrepareResourcesRequest = drav1beta1::NodePrepareResourcesRequest;
  using NodePrepareResourcesResponse = drav1beta1::NodePrepareResourcesResponse;
  using NodeUnprepareResourcesRequest =
      drav1beta1::NodeUnprepareResourcesRequest;
  using NodeUnprepareResourcesResponse =
      drav1beta1::NodeUnprepareResourcesResponse;
};

// State shared by the services of one fake driver.
struct FakeDriverState {
  std::mutex mu;
  std::string name;
  std::string endpoint;
  std::string type = "DRAPlugin";
  std::vector<std::string> versions = {"v1.DRAPlugin", "v1beta1.DRAPlugin"};
  // Recorded calls: claim UIDs of each call, in order; the API version.
  std::vector<std::vector<std::string>> prepare_calls;
  std::vector<std::vector<std::string>> unprepare_calls;
  std::vector<std::string> call_versions;
  std::optional<bool> registered;  // NotifyRegistrationStatus
  std::string registration_error;
  // Knobs.
  std::map<std::string, std::string> prepare_errors;  // uid → error
  std::map<std::string, std::string> unprepare_errors;
  std::set<std::string> omit;  // uids left out of responses
  std::chrono::milliseconds delay{0};
  // Called for each claim of a prepare call as it arrives, without `mu`.
  std::function<void(const std::string& uid)> on_prepare;
  // Devices per claim uid; default: one device "gpu-0" for all requests.
  std::map<std::string, std::vector<drav1::Device>> devices;
  // Claims currently prepared.
  std::set<std::string> prepared;
  // When set, a CDI spec per prepared claim is written there (default
  // devices only), except for the claims in skip_cdi.
  std::string cdi_dir;
  std::set<std::string> skip_cdi;
};

class FakeRegistration : public pluginregistration::Registration::Service {
 public:
  explicit FakeRegistration(FakeDriverState& state) : state_(state) {}
  grpc::Status GetInfo(grpc::ServerContext*,
                       const pluginregistration::InfoRequest*,
                       pluginregistration::PluginInfo* info) override {
    std::lock_guard lock(state_.mu);
    info->set_type(state_.type);
    info->set_name(state_.name);
    info->set_endpoint(state_.endpoint);
    for (const auto& v : state_.versions) info->add_supported_versions(v);
    return grpc::Status::OK;
  }
  grpc::Status NotifyRegistrationStatus(
      grpc::ServerContext*,
      const pluginregistration::RegistrationStatus* status,
      pluginregistration::RegistrationStatusResponse*) override {
    std::lock_guard lock(state_.mu);
    state_.registered = status->plugin_registered();
    state_.registration_error = status->error();
    return grpc::Status::OK;
  }

 private:
  FakeDriverState& state_;
};

template <typename Api>
class FakeDraService : public Api::DRAPlugin::Service {
 public:
  FakeDraService(FakeDriverState& state, std::string version)
      : state_(state), version_(std::move(version)) {}
  grpc::Status NodePrepareResources(
      grpc::ServerContext*,
      const typename Api::NodePrepareResourcesRequest* request,
      typename Api::NodePrepareResourcesResponse* response) override {
    std::chrono::milliseconds delay = Record(*request, state_.prepare_calls);
    if (state_.on_prepare) {
      for (const auto& claim : request->claims())
        state_.on_prepare(claim.uid());
    }
    std::this_thread::sleep_for(delay);
    std::lock_guard lock(state_.mu);
    for (const auto& claim : request->claims()) {
      if (state_.omit.count(claim.uid())) continue;
      auto& out = (*response->mutable_claims())[claim.uid()];
      if (auto e = state_.prepare_errors.find(claim.uid());
          e != state_.prepare_errors.end()) {
        out.set_error(e->second);
        continue;
      }
      state_.prepared.insert(claim.uid());
      WriteCdiSpec(claim.uid());
      for (const drav1::Device& d : DevicesFor(claim.uid())) {
        auto* device = out.add_devices();
        device->set_pool_name(d.pool_name());
        device->set_device_name(d.device_name());
        for (const auto& r : d.request_names()) device->add_request_names(r);
        for (const auto& c : d.cdi_device_ids()) device->add_cdi_device_ids(c);
        if constexpr (requires { device->set_share_id(""); }) {
          if (d.has_share_id()) device->set_share_id(d.share_id());
        }
      }
    }
    return grpc::Status::OK;
  }
  grpc::Status NodeUnprepareResources(
      grpc::ServerContext*,
      const typename Api::NodeUnprepareResourcesRequest* request,
      typename Api::NodeUnprepareResourcesResponse* response) override {
    std::chrono::milliseconds delay = Record(*request, state_.unprepare_calls);
    std::this_thread::sleep_for(delay);
    std::lock_guard lock(state_.mu);
    for (const auto& claim : request->claims()) {
      if (state_.omit.count(claim.uid())) continue;
      auto& out = (*response->mutable_claims())[claim.uid()];
      if (auto e = state_.unprepare_errors.find(claim.uid());
          e != state_.unprepare_errors.end()) {
        out.set_error(e->second);
        continue;
      }
      state_.prepared.erase(claim.uid());
      if (!state_.cdi_dir.empty())
        std::filesystem::remove(SpecPath(claim.uid()));
    }
    return grpc::Status::OK;
  }

 private:
  template <typename Request>
  std::chrono::milliseconds Record(
      const Request& request, std::vector<std::vector<std::string>>& calls) {
    std::lock_guard lock(state_.mu);
    std::vector<std::string> uids;
    for (const auto& claim : request.claims()) uids.push_back(claim.uid());
    calls.push_back(std::move(uids));
    state_.call_versions.push_back(version_);
    return state_.delay;
  }
  std::string SpecPath(const std::string& uid) {
    return state_.cdi_dir + "/k8s." + state_.name + "-gpu_" + uid + ".json";
  }
  void WriteCdiSpec(const std::string& uid) {
    if (state_.cdi_dir.empty() || state_.skip_cdi.count(uid)) return;
    std::filesystem::create_directories(state_.cdi_dir);
    std::ofstream(SpecPath(uid))
        << R"({"cdiVersion":"0.5.0","kind":"k8s.)" << state_.name
        << R"(/gpu","devices":[{"name":")" << uid
        << R"(-gpu-0","containerEdits":{"env":["GPU_DEVICE_0=gpu-0"]}}]})";
  }
  std::vector<drav1::Device> DevicesFor(const std::string& uid) {
    auto it = state_.devices.find(uid);
    if (it != state_.devices.end()) return it->second;
    drav1::Device device;
    device.set_pool_name("pool");
    device.set_device_name("gpu-0");
    device.add_cdi_device_ids("k8s." + state_.name + "/gpu=" + uid + "-gpu-0");
    return {device};
  }

  FakeDriverState& state_;
  const std::string version_;
};

class FakeDraDriver {
 public:
  // Serves the driver; the registration socket appears in `registry_dir`
  // (named `socket_name`, default "<name>-reg.sock") once Start() returns.
  FakeDraDriver(std::string name, std::string registry_dir,
                std::string plugins_dir, std::string socket_name = "")
      : registration_(state_), v1_(state_, "v1"), v1beta1_(state_, "v1beta1") {
    state_.name = std::move(name);
    std::filesystem::create_directories(plugins_dir + "/" + state_.name);
    std::filesystem::create_directories(registry_dir);
    if (socket_name.empty()) socket_name = state_.name + "-reg.sock";
    registration_socket_ = registry_dir + "/" + socket_name;
    state_.endpoint = plugins_dir + "/" + state_.name + "/dra-" + socket_name;
  }
  ~FakeDraDriver() { Stop(); }

  FakeDriverState& state() { return state_; }
  const std::string& registration_socket() const {
    return registration_socket_;
  }

  // Before Start(): serve DRA on the registration socket and report an
  // empty endpoint.
  void ServeDraOnRegistrationSocket() {
    single_socket_ = true;
    state_.endpoint.clear();
  }

  // Before Start(): another service served beside DRA, on its socket (a
  // health service). Not owned.
  void AddService(grpc::Service* service) {
    extra_services_.push_back(service);
  }

  // Serves DRA first, then registration, as real drivers do.
  bool Start() {
    if (single_socket_) {
      grpc::ServerBuilder both;
      both.AddListeningPort("unix://" + registration_socket_,
                            grpc::InsecureServerCredentials());
      both.RegisterService(&registration_);
      both.RegisterService(&v1_);
      both.RegisterService(&v1beta1_);
      for (grpc::Service* extra : extra_services_) both.RegisterService(extra);
      registration_server_ = both.BuildAndStart();
      return registration_server_ != nullptr;
    }
    grpc::ServerBuilder dra;
    dra.AddListeningPort("unix://" + state_.endpoint,
                         grpc::InsecureServerCredentials());
    dra.RegisterService(&v1_);
    dra.RegisterService(&v1beta1_);
    for (grpc::Service* extra : extra_services_) dra.RegisterService(extra);
    dra_server_ = dra.BuildAndStart();
    grpc::ServerBuilder reg;
    reg.AddListeningPort("unix://" + registration_socket_,
                         grpc::InsecureServerCredentials());
    reg.RegisterService(&registration_);
    registration_server_ = reg.BuildAndStart();
    return dra_server_ != nullptr && registration_server_ != nullptr;
  }
  // Stops serving and removes both sockets (a driver going away).
  void Stop() {
    if (registration_server_) {
      registration_server_->Shutdown(std::chrono::system_clock::now());
      registration_server_.reset();
      ::unlink(registration_socket_.c_str());
    }
    if (dra_server_) {
      dra_server_->Shutdown(std::chrono::system_clock::now());
      dra_server_.reset();
      ::unlink(state_.endpoint.c_str());
    }
  }

 private:
  FakeDriverState state_;
  FakeRegistration registration_;
  FakeDraService<FakeV1> v1_;
  FakeDraService<FakeV1beta1> v1beta1_;
  std::string registration_socket_;
  bool single_socket_ = false;
  std::vector<grpc::Service*> extra_services_;
  std::unique_ptr<grpc::Server> dra_server_;
  std::unique_ptr<grpc::Server> registration_server_;
};

}  // namespace dralloc::node::testing

#endif  // DRALLOC_NODE_FAKE_DRA_DRIVER_H_
