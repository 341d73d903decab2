#include "kubeletplugin/internal/registration_service.h"

#include <utility>

#include "common/log.h"

namespace dralloc::kubeletplugin::internal {

// The plugin type the kubelet's DRA manager handles.
constexpr char kDraPluginType[] = "DRAPlugin";

RegistrationService::RegistrationService(
    PluginState* state, std::string driver_name, std::string endpoint,
    std::vector<std::string> supported_versions)
    : state_(state),
      driver_name_(std::move(driver_name)),
      endpoint_(std::move(endpoint)),
      supported_versions_(std::move(supported_versions)) {}

grpc::Status RegistrationService::GetInfo(
    grpc::ServerContext*, const ::pluginregistration::InfoRequest*,
    ::pluginregistration::PluginInfo* info) {
  info->set_type(kDraPluginType);
  info->set_name(driver_name_);
  info->set_endpoint(endpoint_);
  for (const auto& version : supported_versions_) {
    info->add_supported_versions(version);
  }
  return grpc::Status::OK;
}

grpc::Status RegistrationService::NotifyRegistrationStatus(
    grpc::ServerContext*,
    const ::pluginregistration::RegistrationStatus* status,
    ::pluginregistration::RegistrationStatusResponse*) {
  if (status->plugin_registered()) {
    log::Info("kubeletplugin", "driver {} registered with the kubelet",
              driver_name_);
  } else {
    log::Error("kubeletplugin", "driver {}: kubelet rejected registration: {}",
               driver_name_, status->error());
  }
  state_->SetRegistration(status->plugin_registered(), status->error());
  return grpc::Status::OK;
}

}  // namespace dralloc::kubeletplugin::internal
