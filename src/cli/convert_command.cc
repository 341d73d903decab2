// dralloc convert --to GROUP/VERSION -f PATH…: rewrite objects in another
// served version. Objects whose kind that version does not serve are
// reported on stderr (exit 1); unreadable input exits 2.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/resource_registry.h"
#include "api/v1alpha2/slice_conversion.h"
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
           "DeviceClasses";
  }
  if (kind == "ResourceClaimTemplate") {
    return "spec.spec.resourceClassName: a classic claim names a "
           "ResourceClass and opaque parameters, a structured claim requests "
           "devices of DeviceClasses";
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
         "or class that uses them, which dralloc convert does not do";
}

// `object` in `to`: the codec's encoding, or for a v1alpha2 ResourceSlice
// the v1 slice it converts to (api/v1alpha2/slice_conversion.h).
StatusOr<api::Json> Convert(const api::Object& object, std::string_view to) {
  const api::ResourceInfo& info = api::ResourceInfoOf(object);
  if (!info.IsClassic() || api::IsServed(to, object)) {
    return api::EncodeObject(object, to);
  }
  const std::string name = api::DisplayName(object);
  const auto* slice = std::get_if<api::v1alpha2::ResourceSlice>(&object);
  if (slice == nullptr || !api::IsServed(to, "ResourceSlice")) {
    return InvalidArgumentError(fmt::format(
        "{} is a resource.k8s.io/v1alpha2 (classic DRA) object with no {} "
        "form: {}",
        name, to, NoStructuredForm(info.kind)));
  }
  StatusOr<api::ResourceSlice> converted =
      api::v1alpha2::ToV1ResourceSlice(*slice);
  if (!converted.ok()) {
    return InvalidArgumentError(
        fmt::format("{}: {}", name, converted.status().message()));
  }
  return api::EncodeObject(api::Object(*std::move(converted)), to);
}

int RunConvert(const ConvertOptions& options) {
  LoadResult loaded =
      LoadObjects(options.paths, api::DecodeOptions{.strict = options.strict});
  int exit_code =
      ReportLoadFailures(loaded, std::cerr) ? kExitBadInput : kExitOk;
  std::vector<api::Json> converted;
  for (const LoadedObject& object : loaded.objects) {
    const api::DecodeResult& result = object.result;
    if (!result.errors.empty()) {
      std::cerr << fmt::format("error: {}: cannot decode\n", object.Location());
      PrintFieldErrors(result.errors, "", std::cerr);
      exit_code = kExitBadInput;
      continue;
    }
    StatusOr<api::Json> json = Convert(*result.object, options.to);
    if (!json.ok()) {
      std::cerr << fmt::format("error: {}: {}\n", object.Location(),
                               json.status().message());
      if (exit_code == kExitOk) exit_code = kExitInvalid;
      continue;
    }
    converted.push_back(*std::move(json));
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
      "the structured versions, other classic DRA objects have no "
      "structured form).",
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
