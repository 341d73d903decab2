// dralloc: Kubernetes Dynamic Resource Allocation tools. One binary, one
// subcommand per tool (see docs in README.md and `dralloc --help`).
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "dralloc: Kubernetes Dynamic Resource Allocation, fast, exact and "
      "explainable"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dralloc 0.1.0");
  int exit_code = dralloc::cli::kExitOk;
  dralloc::cli::RegisterValidateCommand(app, exit_code);
  dralloc::cli::RegisterConvertCommand(app, exit_code);
  dralloc::cli::RegisterCelCommand(app, exit_code);
  dralloc::cli::RegisterAllocateCommand(app, exit_code);
  dralloc::cli::RegisterApiServerCommand(app, exit_code);
  dralloc::cli::RegisterScheduleCommand(app, exit_code);
  dralloc::cli::RegisterSimulateCommand(app, exit_code);
  dralloc::cli::RegisterServeCommand(app, exit_code);
  dralloc::cli::RegisterControlPlaneCommands(app, exit_code);
  dralloc::cli::RegisterLocalClusterCommand(app, exit_code);
  dralloc::cli::RegisterDriverCommands(app, exit_code);
  dralloc::cli::RegisterPodResourcesCommand(app, exit_code);
  dralloc::cli::RegisterNodeCommand(app, exit_code);
  dralloc::cli::RegisterNodeCheckpointCommand(app, exit_code);
  dralloc::cli::RegisterMigrateCommand(app, exit_code);
  dralloc::cli::RegisterCertsCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : dralloc::cli::kExitBadInput;
  }
  return exit_code;
}
