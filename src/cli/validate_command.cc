// dralloc validate -f PATH…: decode and validate every object.
// Exit 0 when all are valid, 1 when any is invalid, 2 when any input could
// not be read, parsed or decoded.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "api/validation/validation.h"
#include "cli/commands.h"
#include "cli/object_loader.h"

namespace dralloc::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> paths;
  bool strict = true;
};

int RunValidate(const ValidateOptions& options) {
  LoadResult loaded =
      LoadObjects(options.paths, api::DecodeOptions{.strict = options.strict});
  PutInNamespace(loaded, "default");
  int exit_code =
      ReportLoadFailures(loaded, std::cerr) ? kExitBadInput : kExitOk;
  for (const LoadedObject& object : loaded.objects) {
    const api::DecodeResult& result = object.result;
    if (!result.errors.empty()) {
      std::cout << fmt::format("{}: cannot decode ({}:{})\n",
                               result.DisplayName(), object.source,
                               object.line);
      PrintFieldErrors(result.errors, "", std::cout);
      exit_code = kExitBadInput;
      continue;
    }
    const api::ErrorList errors = api::ValidateDefaulted(*result.object);
    if (errors.empty()) {
      std::cout << result.DisplayName() << ": valid\n";
    } else {
      std::cout << fmt::format("{}: invalid ({}:{})\n", result.DisplayName(),
                               object.source, object.line);
      PrintFieldErrors(errors, "", std::cout);
      if (exit_code == kExitOk) exit_code = kExitInvalid;
    }
    PrintFieldErrors(result.warnings, "warning: ", std::cout);
  }
  return exit_code;
}

}  // namespace

void RegisterValidateCommand(CLI::App& app, int& exit_code) {
  auto [command, options] = AddCommand<ValidateOptions>(
      app, "validate",
      "Validate manifests against the Kubernetes rules. Exit 0: all valid; 1: "
      "some object is "
      "invalid; 2: some input is unreadable or cannot be decoded.",
      exit_code, RunValidate);
  AddFilenameOption(command, options.paths);
  command.add_flag("--strict,!--no-strict", options.strict,
                   "Reject unknown and duplicate fields (default); with "
                   "--no-strict they are "
                   "warnings and dropped");
}

}  // namespace dralloc::cli
