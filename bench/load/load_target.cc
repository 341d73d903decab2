#include "load/load_target.h"

#include <fmt/format.h>

#include <charconv>

namespace dralloc::load {

std::string LoadTarget::HostHeader() const {
  return fmt::format("{}:{}", host, port);
}

StatusOr<LoadTarget> ParseLoadTarget(std::string_view url) {
  constexpr std::string_view kPlain = "http://";
  constexpr std::string_view kTls = "https://";
  const bool tls = url.starts_with(kTls);
  if (!tls && !url.starts_with(kPlain)) {
    return InvalidArgumentError(
        fmt::format("server URL {:?} must start with http:// or https:// (to "
                    "a loopback address)",
                    std::string(url)));
  }
  std::string_view rest = url.substr(tls ? kTls.size() : kPlain.size());
  if (const std::size_t slash = rest.find('/');
      slash != std::string_view::npos) {
    if (rest.substr(slash) != "/") {
      return InvalidArgumentError(fmt::format(
          "server URL {:?} must not have a path", std::string(url)));
    }
    rest = rest.substr(0, slash);
  }
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) {
    return InvalidArgumentError(
        fmt::format("server URL {:?} must name a port (http://127.0.0.1:PORT)",
                    std::string(url)));
  }
  const std::string_view host = rest.substr(0, colon);
  const std::string_view port_text = rest.substr(colon + 1);
  if (host != "127.0.0.1" && host != "localhost") {
    return InvalidArgumentError(fmt::format(
        "server host {:?} is not loopback: only 127.0.0.1 and localhost are "
        "allowed",
        std::string(host)));
  }
  unsigned port = 0;
  const auto [end, error] = std::from_chars(
      port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return InvalidArgumentError(
        fmt::format("server port {:?} is not a number in 1..65535",
                    std::string(port_text)));
  }
  return LoadTarget{.host = "127.0.0.1",
                    .port = static_cast<std::uint16_t>(port),
                    .tls = tls,
                    .server_name = std::string(host)};
}

}  // namespace dralloc::load
