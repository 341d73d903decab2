#include "client/kubeconfig.h"

#include <simdjson.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cel/lib/encoders_library.h"
#include "encoding/document_reader.h"

namespace dralloc::client {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Reads the parts of one kubeconfig document, with errors naming the file.
class KubeconfigReader {
 public:
  KubeconfigReader(const json& root, std::string_view source)
      : root_(root), source_(source) {}

  StatusOr<Kubeconfig> Read(const std::string& context_name) {
    std::string name = context_name;
    if (name.empty()) name = StringField(root_, "current-context");
    if (name.empty())
      return Error(StatusCode::kInvalidArgument,
                   "no context given and no current-context");
    ASSIGN_OR_RETURN(const json* context,
                     FindNamed("contexts", "context", name));
    Kubeconfig config;
    config.namespace_ = StringField(*context, "namespace");
    const std::string cluster_name = StringField(*context, "cluster");
    if (cluster_name.empty()) {
      return Error(StatusCode::kInvalidArgument,
                   "context \"" + name + "\" names no cluster");
    }
    ASSIGN_OR_RETURN(const json* cluster,
                     FindNamed("clusters", "cluster", cluster_name));
    RETURN_IF_ERROR(ReadCluster(*cluster, cluster_name, config));
    const std::string user_name = StringField(*context, "user");
    if (!user_name.empty()) {
      ASSIGN_OR_RETURN(const json* user, FindNamed("users", "user", user_name));
      RETURN_IF_ERROR(ReadUser(*user, config));
    }
    return config;
  }

 private:
  Status Error(StatusCode code, const std::string& what) const {
    return Status(code, "kubeconfig " + std::string(source_) + ": " + what);
  }

  static std::string StringField(const json& object, const char* key) {
    if (!object.is_object()) return "";
    auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return "";
    return it->get<std::string>();
  }

  // The `entry_key` object of the element of list `list_key` named `name`
  // (e.g. contexts[].context).
  StatusOr<const json*> FindNamed(const char* list_key, const char* entry_key,
                                  const std::string& name) const {
    auto list = root_.find(list_key);
    if (list != root_.end() && list->is_array()) {
      for (const json& item : *list) {
        if (StringField(item, "name") != name) continue;
        auto entry = item.find(entry_key);
        if (entry == item.end() || !entry->is_object()) {
          return Error(StatusCode::kInvalidArgument,
                       std::string(entry_key) + " \"" + name + "\" has no " +
                           entry_key + " settings");
        }
        return &*entry;
      }
    }
    return Error(StatusCode::kNotFound,
                 std::string(entry_key) + " \"" + name + "\" not found");
  }

  Status ReadCluster(const json& cluster, const std::string& name,
                     Kubeconfig& config) const {
    config.server = StringField(cluster, "server");
    if (config.server.empty()) {
      return Error(StatusCode::kInvalidArgument,
                   "cluster \"" + name + "\" has no server");
    }
    auto insecure = cluster.find("insecure-skip-tls-verify");
    config.insecure_skip_tls_verify = insecure != cluster.end() &&
                                      insecure->is_boolean() &&
                                      insecure->get<bool>();
    return ReadPem(cluster, "certificate-authority",
                   config.certificate_authority_data);
  }

  Status ReadUser(const json& user, Kubeconfig& config) const {
    config.token = StringField(user, "token");
    const std::string token_file = StringField(user, "tokenFile");
    if (config.token.empty() && !token_file.empty()) {
      ASSIGN_OR_RETURN(config.token, ReadFile("tokenFile", token_file));
      while (!config.token.empty() &&
             std::isspace(static_cast<unsigned char>(config.token.back()))) {
        config.token.pop_back();
      }
    }
    RETURN_IF_ERROR(
        ReadPem(user, "client-certificate", config.client_certificate_data));
    return ReadPem(user, "client-key", config.client_key_data);
  }

  // Fills `out` from `<key>-data` (base64) or else the file `<key>` names.
  Status ReadPem(const json& object, const std::string& key,
                 std::string& out) const {
    const std::string data = StringField(object, (key + "-data").c_str());
    if (!data.empty()) {
      std::optional<std::string> decoded = cel::Base64Decode(data);
      if (!decoded) {
        return Error(StatusCode::kInvalidArgument,
                     key + "-data is not valid base64");
      }
      out = std::move(*decoded);
      return OkStatus();
    }
    const std::string path = StringField(object, key.c_str());
    if (path.empty()) return OkStatus();
    ASSIGN_OR_RETURN(out, ReadFile(key, path));
    return OkStatus();
  }

  StatusOr<std::string> ReadFile(const std::string& field,
                                 const std::string& path) const {
    fs::path resolved(path);
    if (resolved.is_relative()) {
      resolved = fs::path(std::string(source_)).parent_path() / resolved;
    }
    std::ifstream in(resolved, std::ios::binary);
    if (!in) {
      return Error(StatusCode::kNotFound,
                   "cannot read " + field + " " + resolved.string());
    }
    std::ostringstream contents;
    contents << in.rdbuf();
    return contents.str();
  }

  const json& root_;
  std::string_view source_;
};

// The first document of `yaml_text` as JSON.
StatusOr<json> ParseFirstDocument(std::string_view yaml_text,
                                  std::string_view source) {
  std::optional<std::string> first;
  RETURN_IF_ERROR(encoding::VisitDocuments(
      yaml_text, source,
      [&first](const encoding::Document&, simdjson::dom::element root) {
        if (!first) first = simdjson::minify(root);
      }));
  const std::string prefix = "kubeconfig " + std::string(source) + ": ";
  if (!first) return InvalidArgumentError(prefix + "empty document");
  json root = json::parse(*first, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) {
    return InvalidArgumentError(prefix + "expected a mapping");
  }
  return root;
}

}  // namespace

StatusOr<Kubeconfig> ParseKubeconfig(std::string_view yaml_text,
                                     std::string_view source,
                                     const std::string& context) {
  ASSIGN_OR_RETURN(json root, ParseFirstDocument(yaml_text, source));
  return KubeconfigReader(root, source).Read(context);
}

StatusOr<Kubeconfig> LoadKubeconfig(const std::string& path,
                                    const std::string& context) {
  std::string resolved = path;
  if (resolved.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr) {
      std::string_view list(env);
      while (resolved.empty() && !list.empty()) {
        const size_t colon = list.find(':');
        resolved = std::string(list.substr(0, colon));
        list = colon == std::string_view::npos ? "" : list.substr(colon + 1);
      }
    }
  }
  if (resolved.empty()) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
      return FailedPreconditionError(
          "no kubeconfig: KUBECONFIG and HOME are unset");
    }
    resolved = std::string(home) + "/.kube/config";
  }
  std::ifstream in(resolved, std::ios::binary);
  if (!in) return NotFoundError("kubeconfig " + resolved + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseKubeconfig(text.str(), resolved, context);
}

}  // namespace dralloc::client
