#include "load/tls_client_context.h"

#include <fmt/format.h>

#include <boost/asio/buffer.hpp>
#include <exception>
#include <string_view>

namespace dralloc::load {
namespace {

namespace ssl = boost::asio::ssl;

Status Rejected(std::string_view what, const boost::system::error_code& error) {
  return InvalidArgumentError(fmt::format("{}: {}", what, error.message()));
}

Status ConfigureServerVerification(const TlsClientCredentials& credentials,
                                   ssl::context& context) {
  boost::system::error_code error;
  if (credentials.insecure_skip_verify) {
    context.set_verify_mode(ssl::verify_none, error);
    return error ? Rejected("verify mode", error) : OkStatus();
  }
  if (credentials.certificate_authority_pem.empty()) {
    return InvalidArgumentError(
        "an https:// server needs a CA to verify it (--ca, or "
        "certificate-authority-data in --kubeconfig)");
  }
  context.set_verify_mode(ssl::verify_peer, error);
  if (error) return Rejected("verify mode", error);
  context.add_certificate_authority(
      boost::asio::buffer(credentials.certificate_authority_pem), error);
  return error ? Rejected("certificate authority", error) : OkStatus();
}

Status ConfigureClientCertificate(const TlsClientCredentials& credentials,
                                  ssl::context& context) {
  const bool has_certificate = !credentials.client_certificate_pem.empty();
  const bool has_key = !credentials.client_key_pem.empty();
  if (has_certificate != has_key) {
    return InvalidArgumentError(
        "a client certificate needs its key and a key its certificate "
        "(--cert with --key)");
  }
  if (!has_certificate) return OkStatus();
  boost::system::error_code error;
  context.use_certificate_chain(
      boost::asio::buffer(credentials.client_certificate_pem), error);
  if (error) return Rejected("client certificate", error);
  context.use_private_key(boost::asio::buffer(credentials.client_key_pem),
                          ssl::context::pem, error);
  return error ? Rejected("client key", error) : OkStatus();
}

}  // namespace

StatusOr<std::shared_ptr<ssl::context>> MakeTlsClientContext(
    const TlsClientCredentials& credentials) {
  std::shared_ptr<ssl::context> context;
  try {
    context = std::make_shared<ssl::context>(ssl::context::tls_client);
  } catch (const std::exception& error) {
    return InternalError(fmt::format("TLS client context: {}", error.what()));
  }
  context->set_options(ssl::context::default_workarounds |
                       ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  RETURN_IF_ERROR(ConfigureServerVerification(credentials, *context));
  RETURN_IF_ERROR(ConfigureClientCertificate(credentials, *context));
  return context;
}

}  // namespace dralloc::load
