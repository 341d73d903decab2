// dralloc convert --to GROUP/VERSION -f PATH…: rewrite objects in another
// served version. Objects whose kind that version does not serve are
// reported on stderr (exit 1); unreadable input exits 2.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/resource_registry.h"
#include "api/v1alpha2/claim_conversion.h"
#include "api/v1alpha2/parameters_reference.h"
#include "api/v1alpha2/slice_conversion.h"
#include "api/validation/validation.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "encoding/yaml_writer.h"

namespace dralloc::cli {
namespace {

struct ConvertOptions {
  std::vector<std::string> paths;
  std::string to;
  std::string output = "yaml";
  bool strict = true;
};

void PrintObjects(const std::vector<api::Json>& objects,
                  const std::string& output) {
  if (output == "json") {
    if (objects.size() == 1) {
      std::cout << objects[0].dump(4, ' ', false,
                                   api::Json::error_handler_t::replace)
                << '\n';
      return;
    }
    api::Json list = {
        {"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}};
    std::cout << list.dump(4, ' ', false, api::Json::error_handler_t::replace)
              << '\n';
    return;
  }
  std::cout << encoding::ToYamlStream(objects);
}

// Why a resource.k8s.io/v1alpha2 (classic DRA) object of `kind` has no
// structured form, naming the field that cannot be expressed
// (docs/classic-dra.md, section 4).
std::string_view NoStructuredForm(std::string_view kind) {
  if (kind == "ResourceClaim") {
    return "spec.resourceClassName: a classic claim names a ResourceClass "
           "and opaque parameters, a structured claim requests devices of "
           "DeviceClasses (a claim of a class with structuredParameters "
           "converts when the class is in the input)";
  }
  if (kind == "ResourceClaimTemplate") {
    return "spec.spec.resourceClassName: a classic claim names a "
           "ResourceClass and opaque parameters, a structured claim requests "
           "devices of DeviceClasses (a claim of a class with "
           "structuredParameters converts when the class is in the input)";
  }
  if (kind == "ResourceClass") {
    return "driverName: a classic class hands its claims to a control-plane "
           "driver; a DeviceClass selects devices";
  }
  if (kind == "PodSchedulingContext") {
    return "the negotiation with control-plane drivers has no structured "
           "counterpart";
  }
  return "1.30's structured parameters convert only together with the claim "
         "or class that uses them (give those in the same input)";
}

// The v1alpha2 objects of the input that others refer to: classes by name,
// parameters by "<namespace>/<name>", and the parameters some converted
// object used (those convert with it, not on their own).
struct ClassicInputs {
  std::map<std::string, const api::v1alpha2::ResourceClass*> classes;
  std::map<std::string, const api::v1alpha2::ResourceClassParameters*>
      class_parameters;
  std::map<std::string, const api::v1alpha2::ResourceClaimParameters*>
      claim_parameters;
  std::set<std::string> used;

  void Add(const api::Object& object) {
    const api::ObjectMeta& meta = api::MetaOf(object);
    const std::string key = meta.namespace_ + "/" + meta.name;
    if (const auto* c = std::get_if<api::v1alpha2::ResourceClass>(&object)) {
      classes[meta.name] = c;
    } else if (const auto* p =
                   std::get_if<api::v1alpha2::ResourceClassParameters>(
                       &object)) {
      class_parameters[key] = p;
    } else if (const auto* p =
                   std::get_if<api::v1alpha2::ResourceClaimParameters>(
                       &object)) {
      claim_parameters[key] = p;
    }
  }
};

// A structured class's parameters from the input (direct reference, or
// the parameters generatedFrom names); null without parametersRef.
StatusOr<const api::v1alpha2::ResourceClassParameters*> ClassParametersOf(
    const api::v1alpha2::ResourceClass& resource_class, ClassicInputs& inputs) {
  if (!resource_class.parameters_ref) return nullptr;
  const auto& ref = *resource_class.parameters_ref;
  for (const auto& [key, parameters] : inputs.class_parameters) {
    const bool direct =
        api::v1alpha2::IsDirect(ref) && key == ref.namespace_ + "/" + ref.name;
    if (direct || api::v1alpha2::IsGeneratedFrom(*parameters, ref)) {
      inputs.used.insert(key);
      return parameters;
    }
  }
  return InvalidArgumentError(fmt::format(
      "parametersRef: the class parameters {}/{} are not in the input",
      ref.namespace_, ref.name));
}

StatusOr<const api::v1alpha2::ResourceClaimParameters*> ClaimParametersOf(
    const std::string& ns,
    const std::optional<api::v1alpha2::ResourceClaimParametersReference>& ref,
    std::string_view field, ClassicInputs& inputs) {
  if (!ref) return nullptr;
  for (const auto& [key, parameters] : inputs.claim_parameters) {
    const bool direct =
        api::v1alpha2::IsDirect(*ref) && key == ns + "/" + ref->name;
    if (direct || api::v1alpha2::IsGeneratedFrom(*parameters, *ref, ns)) {
      inputs.used.insert(key);
      return parameters;
    }
  }
  return InvalidArgumentError(
      fmt::format("{}: the claim parameters {}/{} are not in the input", field,
                  ns, ref->name));
}

// The structured class a claim names, from the input; null when the class
// is a control-plane driver's or not in the input (no structured form).
const api::v1alpha2::ResourceClass* StructuredClassOf(
    const std::string& class_name, const ClassicInputs& inputs) {
  // Without its class in the input, a claim has no structured form either
  // (NoStructuredForm says how to give it one).
  auto found = inputs.classes.find(class_name);
  if (found == inputs.classes.end() ||
      !found->second->structured_parameters.value_or(false)) {
    return nullptr;
  }
  return found->second;
}

// A classic object with 1.30's structured parameters in v1, or nullopt when
// it has no such form.
StatusOr<std::optional<api::Object>> ConvertStructured(
    const api::Object& object, ClassicInputs& inputs,
    std::vector<std::string>& lost) {
  namespace v1alpha2 = api::v1alpha2;
  if (const auto* c = std::get_if<v1alpha2::ResourceClass>(&object)) {
    if (!c->structured_parameters.value_or(false))
      return std::optional<api::Object>();
    ASSIGN_OR_RETURN(const v1alpha2::ResourceClassParameters* parameters,
                     ClassParametersOf(*c, inputs));
    ASSIGN_OR_RETURN(api::DeviceClass converted,
                     v1alpha2::ToV1DeviceClass(*c, parameters));
    return std::optional<api::Object>(std::move(converted));
  }
  if (const auto* claim = std::get_if<v1alpha2::ResourceClaim>(&object)) {
    const v1alpha2::ResourceClass* klass =
        StructuredClassOf(claim->spec.resource_class_name, inputs);
    if (klass == nullptr) return std::optional<api::Object>();
    ASSIGN_OR_RETURN(const v1alpha2::ResourceClaimParameters* parameters,
                     ClaimParametersOf(claim->metadata.namespace_,
                                       claim->spec.parameters_ref,
                                       "spec.parametersRef", inputs));
    api::ResourceClaim converted;
    converted.metadata = claim->metadata;
    ASSIGN_OR_RETURN(converted.spec,
                     v1alpha2::ToV1ClaimSpec(*klass, parameters, lost));
    return std::optional<api::Object>(std::move(converted));
  }
  if (const auto* t = std::get_if<v1alpha2::ResourceClaimTemplate>(&object)) {
    const v1alpha2::ResourceClass* klass =
        StructuredClassOf(t->spec.spec.resource_class_name, inputs);
    if (klass == nullptr) return std::optional<api::Object>();
    ASSIGN_OR_RETURN(
        const v1alpha2::ResourceClaimParameters* parameters,
        ClaimParametersOf(t->metadata.namespace_, t->spec.spec.parameters_ref,
                          "spec.spec.parametersRef", inputs));
    api::ResourceClaimTemplate converted;
    converted.metadata = t->metadata;
    converted.spec.metadata = t->spec.metadata;
    // Each pod gets a claim of its own: sharing does not arise.
    std::vector<std::string> per_pod;
    ASSIGN_OR_RETURN(converted.spec.spec,
                     v1alpha2::ToV1ClaimSpec(*klass, parameters, per_pod));
    return std::optional<api::Object>(std::move(converted));
  }
  return std::optional<api::Object>();
}

StatusOr<std::optional<api::Json>> Present(StatusOr<api::Json> json) {
  if (!json.ok()) return json.status();
  return std::optional<api::Json>(*std::move(json));
}

// `object` in `to`: the codec's encoding; for a v1alpha2 ResourceSlice the
// v1 slice it converts to (api/v1alpha2/slice_conversion.h); for a class,
// claim or template of 1.30's structured parameters their v1 form
// (api/v1alpha2/claim_conversion.h). nullopt: parameters that converted
// with the object using them.
StatusOr<std::optional<api::Json>> Convert(const api::Object& object,
                                           std::string_view to,
                                           ClassicInputs& inputs,
                                           std::vector<std::string>& lost) {
  const api::ResourceInfo& info = api::ResourceInfoOf(object);
  if (!info.IsClassic() || api::IsServed(to, object)) {
    return Present(api::EncodeObject(object, to));
  }
  if (api::IsServed(to, "DeviceClass")) {
    StatusOr<std::optional<api::Object>> structured =
        ConvertStructured(object, inputs, lost);
    if (!structured.ok()) return structured.status();
    if (*structured) {
      return Present(api::EncodeObject(**structured, to));
    }
    const api::ObjectMeta& meta = api::MetaOf(object);
    if (inputs.used.contains(meta.namespace_ + "/" + meta.name) &&
        (std::holds_alternative<api::v1alpha2::ResourceClaimParameters>(
             object) ||
         std::holds_alternative<api::v1alpha2::ResourceClassParameters>(
             object))) {
      return std::optional<api::Json>();
    }
  }
  const auto* slice = std::get_if<api::v1alpha2::ResourceSlice>(&object);
  if (slice == nullptr || !api::IsServed(to, "ResourceSlice")) {
    return InvalidArgumentError(fmt::format(
        "a resource.k8s.io/v1alpha2 (classic DRA) {} has no {} form: {}",
        info.kind, to, NoStructuredForm(info.kind)));
  }
  ASSIGN_OR_RETURN(api::ResourceSlice converted,
                   api::v1alpha2::ToV1ResourceSlice(*slice));
  return Present(api::EncodeObject(api::Object(std::move(converted)), to));
}

// An invalid object is refused with its field errors, as the API server
// would, rather than converted: a conversion may drop what made it invalid
// (a duplicate attribute). Validated as it would be stored, in "default"
// when namespaced without a namespace; printed as it was given.
bool Valid(const LoadedObject& object) {
  api::Object stored = *object.result.object;
  api::ObjectMeta& meta = api::MetaOf(stored);
  if (api::ResourceInfoOf(stored).namespaced && meta.namespace_.empty()) {
    meta.namespace_ = "default";
  }
  const api::ErrorList errors = api::ValidateDefaulted(stored);
  if (errors.empty()) return true;
  std::cerr << fmt::format("error: {}: invalid\n", object.Location());
  PrintFieldErrors(errors, "", std::cerr);
  return false;
}

int RunConvert(const ConvertOptions& options) {
  LoadResult loaded =
      LoadObjects(options.paths, api::DecodeOptions{.strict = options.strict});
  int exit_code =
      ReportLoadFailures(loaded, std::cerr) ? kExitBadInput : kExitOk;
  ClassicInputs inputs;
  for (const LoadedObject& object : loaded.objects) {
    if (object.result.errors.empty()) inputs.Add(*object.result.object);
  }
  // Parameters convert with the objects that use them: those first.
  std::vector<const LoadedObject*> ordered;
  for (const LoadedObject& object : loaded.objects) ordered.push_back(&object);
  std::stable_partition(ordered.begin(), ordered.end(), [](const auto* o) {
    return !o->result.errors.empty() ||
           !(std::holds_alternative<api::v1alpha2::ResourceClaimParameters>(
                 *o->result.object) ||
             std::holds_alternative<api::v1alpha2::ResourceClassParameters>(
                 *o->result.object));
  });
  std::vector<api::Json> converted;
  for (const LoadedObject* loaded_object : ordered) {
    const LoadedObject& object = *loaded_object;
    const api::DecodeResult& result = object.result;
    if (!result.errors.empty()) {
      std::cerr << fmt::format("error: {}: cannot decode\n", object.Location());
      PrintFieldErrors(result.errors, "", std::cerr);
      exit_code = kExitBadInput;
      continue;
    }
    if (!Valid(object)) {
      if (exit_code == kExitOk) exit_code = kExitInvalid;
      continue;
    }
    std::vector<std::string> lost;
    StatusOr<std::optional<api::Json>> json =
        Convert(*result.object, options.to, inputs, lost);
    if (!json.ok()) {
      std::cerr << fmt::format("error: {}: {}\n", object.Location(),
                               json.status().message());
      if (exit_code == kExitOk) exit_code = kExitInvalid;
      continue;
    }
    for (const std::string& what : lost) {
      std::cerr << fmt::format(
          "warning: {}: {} has no {} form (v1 claims can always be "
          "shared)\n",
          object.Location(), what, options.to);
    }
    if (*json) converted.push_back(**std::move(json));
  }
  if (!converted.empty()) PrintObjects(converted, options.output);
  return exit_code;
}

}  // namespace

void RegisterConvertCommand(CLI::App& app, int& exit_code) {
  auto [command, options] = AddCommand<ConvertOptions>(
      app, "convert",
      "Convert manifests to another API version (v1 is the "
      "hub; v1beta1, v1beta2 and "
      "v1alpha3 are served where Kubernetes serves them; a "
      "resource.k8s.io/v1alpha2 namedResources ResourceSlice converts to "
      "the structured versions, and so do the classes, claims and templates "
      "of 1.30's structured parameters given with their parameters; "
      "control-plane drivers' objects have no structured form). Invalid "
      "objects are reported with their field errors and not converted.",
      exit_code, RunConvert);
  command
      .add_option("--to", options.to,
                  "Target GROUP/VERSION, e.g. resource.k8s.io/v1beta1")
      ->required();
  AddFilenameOption(command, options.paths);
  command.add_option("-o,--output", options.output, "Output format")
      ->check(CLI::IsMember({"yaml", "json"}));
  command.add_flag("--strict,!--no-strict", options.strict,
                   "Reject unknown and duplicate fields (default)");
}

}  // namespace dralloc::cli
