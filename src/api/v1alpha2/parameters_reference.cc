#include "api/v1alpha2/parameters_reference.h"

namespace dralloc::api::v1alpha2 {
namespace {

constexpr std::string_view kGroup = "resource.k8s.io";

}  // namespace

bool IsDirect(const ResourceClassParametersReference& ref) {
  return ref.api_group == kGroup && ref.kind == "ResourceClassParameters";
}

bool IsDirect(const ResourceClaimParametersReference& ref) {
  return ref.api_group == kGroup && ref.kind == "ResourceClaimParameters";
}

bool IsGeneratedFrom(const ResourceClassParameters& parameters,
                     const ResourceClassParametersReference& ref) {
  const auto& from = parameters.generated_from;
  return from && parameters.metadata.namespace_ == ref.namespace_ &&
         from->api_group == ref.api_group && from->kind == ref.kind &&
         from->name == ref.name && from->namespace_ == ref.namespace_;
}

bool IsGeneratedFrom(const ResourceClaimParameters& parameters,
                     const ResourceClaimParametersReference& ref,
                     std::string_view ns) {
  const auto& from = parameters.generated_from;
  return from && parameters.metadata.namespace_ == ns &&
         from->api_group == ref.api_group && from->kind == ref.kind &&
         from->name == ref.name;
}

}  // namespace dralloc::api::v1alpha2
