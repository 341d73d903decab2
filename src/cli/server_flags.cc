#include "cli/server_flags.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/log.h"

namespace dralloc::cli {

bool SplitListen(const std::string& listen, std::string& host, uint16_t& port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port_text = listen.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5) return false;
  for (char c : port_text) {
    if (c < '0' || c > '9') return false;
  }
  const int value = std::stoi(port_text);
  if (value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return !host.empty();
}

sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

int WaitForTermination(const sigset_t& signals) {
  int received = 0;
  sigwait(&signals, &received);
  return received;
}

bool ApplyLogLevel(const std::string& level) {
  log::Level parsed;
  if (!log::ParseLevel(level, parsed)) {
    fmt::print(stderr, "--log-level: expected debug, info, warn or error\n");
    return false;
  }
  log::SetLevel(parsed);
  return true;
}

}  // namespace dralloc::cli
