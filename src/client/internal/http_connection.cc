#include "client/internal/http_connection.h"

namespace dralloc::client::internal {
namespace {

Status BadUrl(const std::string& server, std::string_view why) {
  return InvalidArgumentError("server URL \"" + server +
                              "\": " + std::string(why));
}

}  // namespace

StatusOr<Endpoint> ParseServerUrl(const std::string& server) {
  Endpoint endpoint;
  std::string_view rest = server;
  if (rest.starts_with("https://")) {
    endpoint.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return BadUrl(server, "expected http:// or https://");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path =
      slash == std::string_view::npos ? "" : rest.substr(slash);
  while (path.ends_with('/')) path.remove_suffix(1);
  endpoint.authority = std::string(authority);
  endpoint.base_path = std::string(path);
  std::string_view port;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl(server, "bad IPv6 host");
    endpoint.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return BadUrl(server, "bad port");
    if (!after.empty()) port = after.substr(1);
  } else {
    const size_t colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) return BadUrl(server, "no host");
  endpoint.port =
      port.empty() ? (endpoint.tls ? "443" : "80") : std::string(port);
  return endpoint;
}

#ifdef DRALLOC_CLIENT_WITH_TLS
StatusOr<std::unique_ptr<TlsContext>> MakeTlsContext(const Kubeconfig& config) {
  try {
    auto context = std::make_unique<TlsContext>(TlsContext::tls_client);
    beast::error_code ec;
    if (config.insecure_skip_tls_verify) {
      context->set_verify_mode(net::ssl::verify_none, ec);
    } else if (!config.certificate_authority_data.empty()) {
      context->set_verify_mode(net::ssl::verify_peer, ec);
      if (!ec) {
        context->add_certificate_authority(
            net::buffer(config.certificate_authority_data), ec);
      }
    } else {
      context->set_verify_mode(net::ssl::verify_peer, ec);
      if (!ec) context->set_default_verify_paths(ec);
    }
    if (ec)
      return InvalidArgumentError("certificate authority: " + ec.message());
    if (!config.client_certificate_data.empty()) {
      context->use_certificate_chain(
          net::buffer(config.client_certificate_data), ec);
      if (ec)
        return InvalidArgumentError("client certificate: " + ec.message());
      context->use_private_key(net::buffer(config.client_key_data),
                               TlsContext::pem, ec);
      if (ec) return InvalidArgumentError("client key: " + ec.message());
    }
    return context;
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("TLS setup: ") + e.what());
  }
}
#else
StatusOr<std::unique_ptr<TlsContext>> MakeTlsContext(const Kubeconfig& config) {
  return UnimplementedError(
      "server " + config.server +
      ": https is not supported by this build (dralloc_client needs OpenSSL "
      "and DRALLOC_CLIENT_WITH_TLS)");
}
#endif

}  // namespace dralloc::client::internal
