// The dralloc subcommands. Each Register* adds a subcommand to `app` whose
// callback stores the process exit code in `exit_code`.
#ifndef DRALLOC_CLI_COMMANDS_H_
#define DRALLOC_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace dralloc::cli {

// Exit codes shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;   // invalid objects, or "does not fit"
inline constexpr int kExitBadInput = 2;  // unreadable or unparsable input

void RegisterValidateCommand(CLI::App& app, int& exit_code);
void RegisterConvertCommand(CLI::App& app, int& exit_code);
void RegisterCelCommand(CLI::App& app, int& exit_code);
void RegisterAllocateCommand(CLI::App& app, int& exit_code);
void RegisterApiServerCommand(CLI::App& app, int& exit_code);
void RegisterScheduleCommand(CLI::App& app, int& exit_code);
void RegisterServeCommand(CLI::App& app, int& exit_code);
void RegisterControlPlaneCommands(CLI::App& app, int& exit_code);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_COMMANDS_H_
