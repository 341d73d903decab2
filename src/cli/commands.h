// The dralloc subcommands. Each Register* adds a subcommand to `app` whose
// callback stores the process exit code in `exit_code`.
#ifndef DRALLOC_CLI_COMMANDS_H_
#define DRALLOC_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>

namespace dralloc::cli {

// Exit codes shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;   // invalid objects, or "does not fit"
inline constexpr int kExitBadInput = 2;  // unreadable or unparsable input

// Adds subcommand `name` to `parent` with default-constructed Options that
// live as long as its callback; when the subcommand runs, `exit_code` becomes
// run(options). Returns the subcommand and the options its flags bind to.
template <typename Options, typename Run>
std::pair<CLI::App&, Options&> AddCommand(CLI::App& parent, std::string name,
                                          std::string description,
                                          int& exit_code, Run run) {
  auto options = std::make_shared<Options>();
  CLI::App* command =
      parent.add_subcommand(std::move(name), std::move(description));
  command->callback([options, run, &exit_code] { exit_code = run(*options); });
  return {*command, *options};
}

void RegisterValidateCommand(CLI::App& app, int& exit_code);
void RegisterConvertCommand(CLI::App& app, int& exit_code);
void RegisterCelCommand(CLI::App& app, int& exit_code);
void RegisterAllocateCommand(CLI::App& app, int& exit_code);
void RegisterApiServerCommand(CLI::App& app, int& exit_code);
void RegisterScheduleCommand(CLI::App& app, int& exit_code);
void RegisterSimulateCommand(CLI::App& app, int& exit_code);
void RegisterServeCommand(CLI::App& app, int& exit_code);
void RegisterControlPlaneCommands(CLI::App& app, int& exit_code);
void RegisterLocalClusterCommand(CLI::App& app, int& exit_code);
void RegisterDriverCommands(CLI::App& app, int& exit_code);
// `driver classic-example` (classic_driver_command.cc), under `driver`.
void AddClassicDriverCommand(CLI::App& driver, int& exit_code);
void RegisterPodResourcesCommand(CLI::App& app, int& exit_code);
void RegisterNodeCommand(CLI::App& app, int& exit_code);
void RegisterNodeCheckpointCommand(CLI::App& app, int& exit_code);
void RegisterMigrateCommand(CLI::App& app, int& exit_code);
void RegisterCertsCommand(CLI::App& app, int& exit_code);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_COMMANDS_H_
