#include "api/v1alpha2/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation/names.h"
#include "cel/dra/named_resources_environment.h"
#include "common/semver.h"

namespace dralloc::api::v1alpha2 {
namespace {

constexpr size_t kDriverNameMaxLength = 63;
constexpr std::string_view kImmutable = "field is immutable";
constexpr std::string_view kOneModel =
    "exactly one structured model field must be set";

// corevalidation.ValidateCSIDriverName: Required when empty, TooLong over
// 63, and the subdomain rule on the lowercase name.
void ValidateDriverName(std::string_view name, const FieldPath& path,
                        ErrorList& errors) {
  if (name.empty()) errors.push_back(Required(path));
  if (name.size() > kDriverNameMaxLength) {
    errors.push_back(
        {FieldErrorType::kTooLong, path.ToString(), QuoteValue(name),
         fmt::format("must have at most {} bytes", kDriverNameMaxLength)});
  }
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (std::string& message : Dns1123SubdomainErrors(lower)) {
    errors.push_back(InvalidString(path, name, std::move(message)));
  }
}

void ValidateNodeName(std::string_view name, const FieldPath& path,
                      ErrorList& errors) {
  for (std::string& message : Dns1123SubdomainErrors(name)) {
    errors.push_back(InvalidString(path, name, std::move(message)));
  }
}

// field.TooLongMaxLength of 1.30 (lists and handle data alike).
FieldError TooLongList(const FieldPath& path, size_t size, size_t max) {
  return {FieldErrorType::kTooLong, path.ToString(), std::to_string(size),
          fmt::format("may not be longer than {}", max)};
}

// validateSliceIsASet with the node name rule: duplicates, bad names, and
// the list's length.
void ValidateNodeNameSet(const std::vector<std::string>& names, size_t max,
                         const FieldPath& path, ErrorList& errors) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    const FieldPath item = path.Index(static_cast<int64_t>(i));
    if (!seen.insert(names[i]).second) {
      errors.push_back(Duplicate(item, QuoteValue(names[i])));
      continue;
    }
    ValidateNodeName(names[i], item, errors);
  }
  if (names.size() > max)
    errors.push_back(TooLongList(path, names.size(), max));
}

void ValidateClaimParametersRef(const ResourceClaimParametersReference& ref,
                                const FieldPath& path, ErrorList& errors) {
  if (ref.kind.empty()) errors.push_back(Required(path.Child("kind")));
  if (ref.name.empty()) errors.push_back(Required(path.Child("name")));
}

void ValidateClassParametersRef(const ResourceClassParametersReference& ref,
                                const FieldPath& path, ErrorList& errors) {
  if (ref.kind.empty()) errors.push_back(Required(path.Child("kind")));
  if (ref.name.empty()) errors.push_back(Required(path.Child("name")));
  if (!ref.namespace_.empty()) {
    ValidateDns1123Label(ref.namespace_, path.Child("namespace"), errors);
  }
}

// Name, namespace and uid may not change (ValidateObjectMetaUpdate).
void ValidateMetaUpdate(const ObjectMeta& next, const ObjectMeta& old,
                        ErrorList& errors) {
  const FieldPath meta("metadata");
  if (next.name != old.name) {
    errors.push_back(
        InvalidString(meta.Child("name"), next.name, std::string(kImmutable)));
  }
  if (next.namespace_ != old.namespace_) {
    errors.push_back(InvalidString(meta.Child("namespace"), next.namespace_,
                                   std::string(kImmutable)));
  }
  if (next.uid != old.uid) {
    errors.push_back(
        InvalidString(meta.Child("uid"), next.uid, std::string(kImmutable)));
  }
}

// The metadata update rule, then the create checks of `next`: the update
// validation of every kind whose update adds nothing else (or adds after).
template <typename T>
ErrorList UpdateErrors(const T& next, const T& old,
                       ErrorList (*validate)(const T&)) {
  ErrorList errors;
  ValidateMetaUpdate(next.metadata, old.metadata, errors);
  for (FieldError& e : validate(next)) errors.push_back(std::move(e));
  return errors;
}

void ValidateClaimSpec(const ResourceClaimSpec& spec, const FieldPath& path,
                       ErrorList& errors) {
  ValidateDns1123Subdomain(spec.resource_class_name,
                           path.Child("resourceClassName"), errors);
  if (spec.parameters_ref) {
    ValidateClaimParametersRef(*spec.parameters_ref,
                               path.Child("parametersRef"), errors);
  }
  if (spec.allocation_mode != kAllocationModeImmediate &&
      spec.allocation_mode != kAllocationModeWaitForFirstConsumer) {
    errors.push_back(NotSupported(
        path.Child("allocationMode"), spec.allocation_mode,
        {kAllocationModeImmediate, kAllocationModeWaitForFirstConsumer}));
  }
}

// validateFieldAllowList(ObjectMeta, {Labels, Annotations}): every other
// field set is Forbidden at its Go name with a lowercase first letter.
void ValidateTemplateMeta(const ObjectMeta& meta, const FieldPath& path,
                          ErrorList& errors) {
  ValidateAnnotations(meta.annotations, path.Child("annotations"), errors);
  ValidateLabels(meta.labels, path.Child("labels"), errors);
  const std::pair<std::string_view, bool> fields[] = {
      {"name", !meta.name.empty()},
      {"generateName", !meta.generate_name.empty()},
      {"namespace", !meta.namespace_.empty()},
      {"selfLink", !meta.self_link.empty()},
      {"uID", !meta.uid.empty()},
      {"resourceVersion", !meta.resource_version.empty()},
      {"generation", meta.generation != 0},
      {"creationTimestamp", meta.creation_timestamp.has_value()},
      {"deletionTimestamp", meta.deletion_timestamp.has_value()},
      {"deletionGracePeriodSeconds",
       meta.deletion_grace_period_seconds.has_value()},
      {"ownerReferences", !meta.owner_references.empty()},
      {"finalizers", !meta.finalizers.empty()},
      {"managedFields", !meta.managed_fields.empty()},
  };
  for (const auto& [name, set] : fields) {
    if (set) errors.push_back(Forbidden(path.Child(name), "cannot be set"));
  }
}

// A namedResources selector: required, and compiled as 1.30 compiled it.
void ValidateSelector(const std::string& selector, const FieldPath& path,
                      ErrorList& errors) {
  if (selector.empty()) {
    errors.push_back(Required(path));
    return;
  }
  const Status compiled = cel::CheckNamedResourcesSelector(selector);
  if (compiled.ok()) return;
  const std::string message(compiled.message());
  errors.push_back(
      InvalidString(path, selector,
                    message.find("must evaluate to bool") != std::string::npos
                        ? std::string("must evaluate to bool")
                        : "compilation failed: " + message));
}

// An attribute holds exactly one value; a version is strict semver.
void ValidateAttributeValue(const NamedResourcesAttribute& attribute,
                            const FieldPath& path, ErrorList& errors) {
  std::vector<std::string> set;
  if (attribute.bool_value) set.push_back("bool");
  if (attribute.int_value) set.push_back("int");
  if (attribute.int_slice) set.push_back("intSlice");
  if (attribute.quantity) set.push_back("quantity");
  if (attribute.string_value) set.push_back("string");
  if (attribute.string_slice) set.push_back("stringSlice");
  if (attribute.version) set.push_back("version");
  if (set.empty()) {
    errors.push_back(Required(path, "exactly one value must be set"));
  } else if (set.size() > 1) {
    std::string names = "[]string{";
    for (size_t i = 0; i < set.size(); ++i) {
      names += (i > 0 ? ", " : "") + QuoteValue(set[i]);
    }
    errors.push_back(Invalid(path, names + "}",
                             "exactly one field must be set, not several"));
  }
  if (attribute.version && !SemVer::IsStrict(*attribute.version)) {
    errors.push_back(
        InvalidString(path.Child("version"), *attribute.version,
                      "must be a string compatible with semver.org spec "
                      "2.0.0"));
  }
}

void ValidateInstances(const NamedResourcesResources& resources,
                       const FieldPath& path, ErrorList& errors) {
  const FieldPath instances_path = path.Child("instances");
  std::set<std::string_view> instance_names;
  for (size_t i = 0; i < resources.instances.size(); ++i) {
    const NamedResourcesInstance& instance = resources.instances[i];
    const FieldPath item = instances_path.Index(static_cast<int64_t>(i));
    const FieldPath name_path = item.Child("name");
    ValidateDns1123Subdomain(instance.name, name_path, errors);
    if (!instance_names.insert(instance.name).second) {
      errors.push_back(Duplicate(name_path, QuoteValue(instance.name)));
    }
    std::set<std::string_view> attribute_names;
    const FieldPath attributes_path = item.Child("attributes");
    for (size_t j = 0; j < instance.attributes.size(); ++j) {
      const NamedResourcesAttribute& attribute = instance.attributes[j];
      const FieldPath attribute_path =
          attributes_path.Index(static_cast<int64_t>(j));
      const FieldPath attribute_name = attribute_path.Child("name");
      ValidateDns1123Subdomain(attribute.name, attribute_name, errors);
      if (!attribute_names.insert(attribute.name).second) {
        errors.push_back(Duplicate(attribute_name, QuoteValue(attribute.name)));
      }
      ValidateAttributeValue(attribute, attribute_path, errors);
    }
  }
}

void ValidateHandle(const ResourceHandle& handle, const FieldPath& path,
                    ErrorList& errors) {
  ValidateDriverName(handle.driver_name, path.Child("driverName"), errors);
  if (handle.data.size() > kResourceHandleDataMaxSize) {
    errors.push_back(TooLongList(path.Child("data"), handle.data.size(),
                                 kResourceHandleDataMaxSize));
  }
  if (handle.structured_data) {
    const StructuredResourceHandle& structured = *handle.structured_data;
    const FieldPath structured_path = path.Child("structuredData");
    if (!structured.node_name.empty()) {
      ValidateNodeName(structured.node_name, structured_path.Child("nodeName"),
                       errors);
    }
    const FieldPath results_path = structured_path.Child("results");
    for (size_t j = 0; j < structured.results.size(); ++j) {
      const DriverAllocationResult& result = structured.results[j];
      const FieldPath result_path = results_path.Index(static_cast<int64_t>(j));
      if (!result.named_resources) {
        errors.push_back(Required(result_path, std::string(kOneModel)));
        continue;
      }
      ValidateDns1123Subdomain(
          result.named_resources->name,
          result_path.Child("namedResources").Child("name"), errors);
    }
  }
  if (!handle.data.empty() && handle.structured_data) {
    errors.push_back(
        Invalid(path, "nil", "data and structuredData are mutually exclusive"));
  }
}

void ValidateAllocation(const AllocationResult& allocation,
                        const FieldPath& path, ErrorList& errors) {
  const FieldPath handles_path = path.Child("resourceHandles");
  for (size_t i = 0; i < allocation.resource_handles.size(); ++i) {
    ValidateHandle(allocation.resource_handles[i],
                   handles_path.Index(static_cast<int64_t>(i)), errors);
  }
  if (allocation.resource_handles.size() >
      kAllocationResultResourceHandlesMaxSize) {
    errors.push_back(TooLongList(handles_path,
                                 allocation.resource_handles.size(),
                                 kAllocationResultResourceHandlesMaxSize));
  }
  if (allocation.available_on_nodes) {
    ValidateNodeSelector(*allocation.available_on_nodes,
                         path.Child("availableOnNodes"), errors);
  }
}

void ValidateReservedFor(
    const std::vector<ResourceClaimConsumerReference>& refs,
    const FieldPath& path, ErrorList& errors) {
  std::set<std::string_view> uids;
  for (size_t i = 0; i < refs.size(); ++i) {
    const ResourceClaimConsumerReference& ref = refs[i];
    const FieldPath item = path.Index(static_cast<int64_t>(i));
    if (!uids.insert(ref.uid).second) {
      errors.push_back(Duplicate(item.Child("uid"), QuoteValue(ref.uid)));
      continue;
    }
    if (ref.resource.empty())
      errors.push_back(Required(item.Child("resource")));
    if (ref.name.empty()) errors.push_back(Required(item.Child("name")));
    if (ref.uid.empty()) errors.push_back(Required(item.Child("uid")));
  }
  if (refs.size() > kResourceClaimReservedForMaxSize) {
    errors.push_back(
        TooLongList(path, refs.size(), kResourceClaimReservedForMaxSize));
  }
}

// Whether `next` holds a consumer `old` does not (whole entries compared).
bool AddsConsumers(const std::vector<ResourceClaimConsumerReference>& next,
                   const std::vector<ResourceClaimConsumerReference>& old) {
  return std::any_of(next.begin(), next.end(), [&](const auto& ref) {
    return std::find(old.begin(), old.end(), ref) == old.end();
  });
}

// The driver entries of a parameters object: valid names, each driver once.
template <typename Entry>
void ValidateDriverEntries(const std::vector<Entry>& entries,
                           const FieldPath& path, ErrorList& errors,
                           void (*each)(const Entry&, const FieldPath&,
                                        ErrorList&)) {
  std::set<std::string_view> drivers;
  for (size_t i = 0; i < entries.size(); ++i) {
    const FieldPath item = path.Index(static_cast<int64_t>(i));
    const FieldPath driver = item.Child("driverName");
    ValidateDriverName(entries[i].driver_name, driver, errors);
    if (!drivers.insert(entries[i].driver_name).second) {
      errors.push_back(Duplicate(driver, QuoteValue(entries[i].driver_name)));
    }
    if (each != nullptr) each(entries[i], item, errors);
  }
}

void ValidateDriverRequests(const DriverRequests& entry, const FieldPath& path,
                            ErrorList& errors) {
  const FieldPath requests_path = path.Child("requests");
  for (size_t k = 0; k < entry.requests.size(); ++k) {
    const FieldPath item = requests_path.Index(static_cast<int64_t>(k));
    if (!entry.requests[k].named_resources) {
      errors.push_back(Required(item, std::string(kOneModel)));
      continue;
    }
    ValidateSelector(entry.requests[k].named_resources->selector,
                     item.Child("namedResources").Child("selector"), errors);
  }
  if (entry.requests.empty()) {
    errors.push_back(Required(
        requests_path, "empty entries with no requests are not allowed"));
  }
}

void ValidateFilter(const ResourceFilter& filter, const FieldPath& path,
                    ErrorList& errors) {
  if (!filter.named_resources) {
    errors.push_back(Required(path, std::string(kOneModel)));
    return;
  }
  ValidateSelector(filter.named_resources->selector,
                   path.Child("namedResources").Child("selector"), errors);
}

}  // namespace

// ---- ResourceClass ----

ErrorList ValidateResourceClass(const ResourceClass& resource_class) {
  ErrorList errors =
      ObjectMetaErrors(resource_class.metadata, /*namespaced=*/false);
  ValidateDriverName(resource_class.driver_name, FieldPath("driverName"),
                     errors);
  if (resource_class.parameters_ref) {
    ValidateClassParametersRef(*resource_class.parameters_ref,
                               FieldPath("parametersRef"), errors);
  }
  if (resource_class.suitable_nodes) {
    ValidateNodeSelector(*resource_class.suitable_nodes,
                         FieldPath("suitableNodes"), errors);
  }
  return errors;
}

ErrorList ValidateResourceClassUpdate(const ResourceClass& next,
                                      const ResourceClass& old) {
  return UpdateErrors(next, old, &ValidateResourceClass);
}

// ---- ResourceClaim ----

ErrorList ValidateResourceClaim(const ResourceClaim& claim) {
  ErrorList errors = ObjectMetaErrors(claim.metadata, /*namespaced=*/true);
  ValidateClaimSpec(claim.spec, FieldPath("spec"), errors);
  return errors;
}

ErrorList ValidateResourceClaimUpdate(const ResourceClaim& next,
                                      const ResourceClaim& old) {
  ErrorList errors;
  ValidateMetaUpdate(next.metadata, old.metadata, errors);
  if (next.spec != old.spec) {
    errors.push_back(Invalid(FieldPath("spec"), "", std::string(kImmutable)));
  }
  for (FieldError& e : ValidateResourceClaim(next)) errors.push_back(e);
  return errors;
}

ErrorList ValidateResourceClaimStatusUpdate(const ResourceClaim& next,
                                            const ResourceClaim& old) {
  ErrorList errors;
  ValidateMetaUpdate(next.metadata, old.metadata, errors);
  const ResourceClaimStatus& status = next.status;
  const FieldPath path("status");
  if (!status.driver_name.empty()) {
    ValidateDriverName(status.driver_name, path.Child("driverName"), errors);
  } else if (status.allocation) {
    errors.push_back(Required(path.Child("driverName"),
                              "must be specified when `allocation` is set"));
  }
  if (status.allocation) {
    ValidateAllocation(*status.allocation, path.Child("allocation"), errors);
  }
  const FieldPath reserved_path = path.Child("reservedFor");
  ValidateReservedFor(status.reserved_for, reserved_path, errors);
  if (!status.reserved_for.empty()) {
    if (!status.allocation) {
      errors.push_back(Forbidden(
          reserved_path, "may not be specified when `allocated` is not set"));
    } else {
      if (!status.allocation->shareable && status.reserved_for.size() > 1) {
        errors.push_back(
            Forbidden(reserved_path, "may not be reserved more than once"));
      }
      if ((next.metadata.deletion_timestamp || status.deallocation_requested) &&
          AddsConsumers(status.reserved_for, old.status.reserved_for)) {
        errors.push_back(Forbidden(
            reserved_path,
            "new entries may not be added while `deallocationRequested` or "
            "`deletionTimestamp` are set"));
      }
    }
  }
  if (old.status.allocation && status.allocation &&
      *old.status.allocation != *status.allocation) {
    errors.push_back(
        Invalid(path.Child("allocation"), "", std::string(kImmutable)));
  }
  const FieldPath deallocation_path = path.Child("deallocationRequested");
  if (!old.status.deallocation_requested && status.deallocation_requested &&
      !status.reserved_for.empty()) {
    errors.push_back(Forbidden(
        deallocation_path,
        "deallocation cannot be requested while `reservedFor` is set"));
  }
  if (!status.allocation && status.deallocation_requested) {
    errors.push_back(Forbidden(
        path, "`allocation` must be set when `deallocationRequested` is set"));
  }
  if (old.status.deallocation_requested && !status.deallocation_requested &&
      status.allocation) {
    errors.push_back(Forbidden(deallocation_path,
                               "may not be cleared when `allocation` is set"));
  }
  return errors;
}

// ---- ResourceClaimTemplate ----

ErrorList ValidateResourceClaimTemplate(const ResourceClaimTemplate& tmpl) {
  ErrorList errors = ObjectMetaErrors(tmpl.metadata, /*namespaced=*/true);
  const FieldPath spec("spec");
  ValidateTemplateMeta(tmpl.spec.metadata, spec.Child("metadata"), errors);
  ValidateClaimSpec(tmpl.spec.spec, spec.Child("spec"), errors);
  return errors;
}

ErrorList ValidateResourceClaimTemplateUpdate(
    const ResourceClaimTemplate& next, const ResourceClaimTemplate& old) {
  ErrorList errors;
  ValidateMetaUpdate(next.metadata, old.metadata, errors);
  if (next.spec != old.spec) {
    errors.push_back(Invalid(FieldPath("spec"), "", std::string(kImmutable)));
  }
  for (FieldError& e : ValidateResourceClaimTemplate(next)) errors.push_back(e);
  return errors;
}

// ---- PodSchedulingContext ----

ErrorList ValidatePodSchedulingContext(const PodSchedulingContext& context) {
  ErrorList errors = ObjectMetaErrors(context.metadata, /*namespaced=*/true);
  ValidateNodeNameSet(context.spec.potential_nodes,
                      kPodSchedulingNodeListMaxSize,
                      FieldPath("spec").Child("potentialNodes"), errors);
  return errors;
}

ErrorList ValidatePodSchedulingContextUpdate(const PodSchedulingContext& next,
                                             const PodSchedulingContext& old) {
  return UpdateErrors(next, old, &ValidatePodSchedulingContext);
}

ErrorList ValidatePodSchedulingContextStatusUpdate(
    const PodSchedulingContext& next, const PodSchedulingContext& old) {
  ErrorList errors;
  ValidateMetaUpdate(next.metadata, old.metadata, errors);
  const FieldPath status_path("status");
  const FieldPath claims_path = status_path.Child("claims");
  std::set<std::string_view> names;
  const auto& claims = next.status.resource_claims;
  for (size_t i = 0; i < claims.size(); ++i) {
    const FieldPath item = claims_path.Index(static_cast<int64_t>(i));
    ValidateNodeNameSet(claims[i].unsuitable_nodes,
                        kPodSchedulingNodeListMaxSize,
                        item.Child("unsuitableNodes"), errors);
    if (!names.insert(claims[i].name).second) {
      errors.push_back(Duplicate(item, QuoteValue(claims[i].name)));
    }
  }
  return errors;
}

// ---- ResourceSlice ----

ErrorList ValidateResourceSlice(const ResourceSlice& slice) {
  ErrorList errors = ObjectMetaErrors(slice.metadata, /*namespaced=*/false);
  if (!slice.node_name.empty()) {
    ValidateNodeName(slice.node_name, FieldPath("nodeName"), errors);
  }
  ValidateDriverName(slice.driver_name, FieldPath("driverName"), errors);
  if (!slice.named_resources) {
    errors.push_back(Required(FieldPath(), std::string(kOneModel)));
  } else {
    ValidateInstances(*slice.named_resources, FieldPath("namedResources"),
                      errors);
  }
  return errors;
}

ErrorList ValidateResourceSliceUpdate(const ResourceSlice& next,
                                      const ResourceSlice& old) {
  ErrorList errors = UpdateErrors(next, old, &ValidateResourceSlice);
  if (next.node_name != old.node_name) {
    errors.push_back(InvalidString(FieldPath("nodeName"), next.node_name,
                                   std::string(kImmutable)));
  }
  if (next.driver_name != old.driver_name) {
    errors.push_back(InvalidString(FieldPath("driverName"), next.driver_name,
                                   std::string(kImmutable)));
  }
  return errors;
}

// ---- ResourceClaimParameters and ResourceClassParameters ----

ErrorList ValidateResourceClaimParameters(
    const ResourceClaimParameters& parameters) {
  ErrorList errors = ObjectMetaErrors(parameters.metadata, /*namespaced=*/true);
  if (parameters.generated_from) {
    ValidateClaimParametersRef(*parameters.generated_from,
                               FieldPath("generatedFrom"), errors);
  }
  ValidateDriverEntries<DriverRequests>(parameters.driver_requests,
                                        FieldPath("driverRequests"), errors,
                                        &ValidateDriverRequests);
  return errors;
}

ErrorList ValidateResourceClaimParametersUpdate(
    const ResourceClaimParameters& next, const ResourceClaimParameters& old) {
  return UpdateErrors(next, old, &ValidateResourceClaimParameters);
}

ErrorList ValidateResourceClassParameters(
    const ResourceClassParameters& parameters) {
  ErrorList errors = ObjectMetaErrors(parameters.metadata, /*namespaced=*/true);
  if (parameters.generated_from) {
    ValidateClassParametersRef(*parameters.generated_from,
                               FieldPath("generatedFrom"), errors);
  }
  ValidateDriverEntries<ResourceFilter>(
      parameters.filters, FieldPath("filters"), errors, &ValidateFilter);
  ValidateDriverEntries<VendorParameters>(parameters.vendor_parameters,
                                          FieldPath("vendorParameters"), errors,
                                          nullptr);
  return errors;
}

ErrorList ValidateResourceClassParametersUpdate(
    const ResourceClassParameters& next, const ResourceClassParameters& old) {
  return UpdateErrors(next, old, &ValidateResourceClassParameters);
}

// ---- Defaults ----

void SetDefaults(ResourceClaim& claim) {
  if (claim.spec.allocation_mode.empty()) {
    claim.spec.allocation_mode = kAllocationModeWaitForFirstConsumer;
  }
}

void SetDefaults(ResourceClaimTemplate& tmpl) {
  if (tmpl.spec.spec.allocation_mode.empty()) {
    tmpl.spec.spec.allocation_mode = kAllocationModeWaitForFirstConsumer;
  }
}

}  // namespace dralloc::api::v1alpha2
