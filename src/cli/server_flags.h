// Flags and process plumbing shared by the long-running commands
// (`dralloc apiserver`, `dralloc serve`).
#ifndef DRALLOC_CLI_SERVER_FLAGS_H_
#define DRALLOC_CLI_SERVER_FLAGS_H_

#include <signal.h>

#include <cstdint>
#include <string>

namespace dralloc::cli {

// "host:port" (or "[v6]:port") → parts; false when malformed.
bool SplitListen(const std::string& listen, std::string& host, uint16_t& port);

// Blocks SIGINT and SIGTERM in this thread (and every thread started after
// it) so WaitForTermination can take them; ignores SIGPIPE.
sigset_t BlockTerminationSignals();
// Waits for SIGINT or SIGTERM; returns the signal.
int WaitForTermination(const sigset_t& signals);

// Applies --log-level; false (with a message on stderr) when unknown.
bool ApplyLogLevel(const std::string& level);

}  // namespace dralloc::cli

#endif  // DRALLOC_CLI_SERVER_FLAGS_H_
