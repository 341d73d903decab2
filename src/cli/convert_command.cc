// dralloc convert --to GROUP/VERSION -f PATH…: rewrite objects in another
// served version. Objects whose kind that version does not serve are
// reported on stderr (exit 1); unreadable input exits 2.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "api/codec.h"
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
    StatusOr<api::Json> json = api::EncodeObject(*result.object, options.to);
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
      "v1alpha3 are served where Kubernetes serves them).",
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
