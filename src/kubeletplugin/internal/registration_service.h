// RegistrationService: the kubelet plugin registration service
// (`pluginregistration.Registration`) for one DRA driver.
#ifndef DRALLOC_KUBELETPLUGIN_INTERNAL_REGISTRATION_SERVICE_H_
#define DRALLOC_KUBELETPLUGIN_INTERNAL_REGISTRATION_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.grpc.pb.h"
#include "kubeletplugin/internal/plugin_state.h"

namespace dralloc::kubeletplugin::internal {

class RegistrationService final
    : public ::pluginregistration::Registration::Service {
 public:
  RegistrationService(PluginState* state, std::string driver_name,
                      std::string endpoint,
                      std::vector<std::string> supported_versions);

  grpc::Status GetInfo(grpc::ServerContext*,
                       const ::pluginregistration::InfoRequest*,
                       ::pluginregistration::PluginInfo* info) override;

  grpc::Status NotifyRegistrationStatus(
      grpc::ServerContext*, const ::pluginregistration::RegistrationStatus*,
      ::pluginregistration::RegistrationStatusResponse*) override;

 private:
  PluginState* const state_;
  const std::string driver_name_;
  const std::string endpoint_;
  const std::vector<std::string> supported_versions_;
};

}  // namespace dralloc::kubeletplugin::internal

#endif  // DRALLOC_KUBELETPLUGIN_INTERNAL_REGISTRATION_SERVICE_H_
