#include "pki/kubeconfig_writer.h"

#include <fmt/format.h>

#include "common/base64.h"
#include "common/text_escape.h"

namespace dralloc::pki {
namespace {

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

std::string Encoded(std::string_view pem) {
  return Base64Encode(pem, Base64Alphabet::kStandard, /*pad=*/true);
}

}  // namespace

std::string RenderKubeconfig(const ClientKubeconfig& config) {
  const std::string context = config.user_name + "@" + config.cluster_name;
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: {cluster}\n"
      "  cluster:\n"
      "    server: {server}\n"
      "    certificate-authority-data: {ca}\n"
      "users:\n"
      "- name: {user}\n"
      "  user:\n"
      "    client-certificate-data: {cert}\n"
      "    client-key-data: {key}\n"
      "contexts:\n"
      "- name: {context}\n"
      "  context:\n"
      "    cluster: {cluster}\n"
      "    user: {user}\n"
      "current-context: {context}\n"
      "preferences: {{}}\n",
      fmt::arg("cluster", Quoted(config.cluster_name)),
      fmt::arg("server", Quoted(config.server)),
      fmt::arg("ca", Encoded(config.ca_pem)),
      fmt::arg("user", Quoted(config.user_name)),
      fmt::arg("cert", Encoded(config.client_certificate_pem)),
      fmt::arg("key", Encoded(config.client_key_pem)),
      fmt::arg("context", Quoted(context)));
}

}  // namespace dralloc::pki
