#include "apiserver/pod_log_proxy.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <limits>

#include "common/log.h"

namespace dralloc::apiserver {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The query parameters relayed to the kubelet.
constexpr const char* kRelayedParameters[] = {"follow",     "previous",
                                              "tailLines",  "timestamps",
                                              "limitBytes", "sinceSeconds"};

std::string Escape(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string Names(const Json& containers) {
  std::string out;
  if (!containers.is_array()) return out;
  for (const Json& c : containers) {
    if (!out.empty()) out += " ";
    out += c.value("name", "");
  }
  return out;
}

bool HasContainer(const Json& spec, const std::string& name) {
  for (const char* field :
       {"containers", "initContainers", "ephemeralContainers"}) {
    if (!spec.contains(field) || !spec[field].is_array()) continue;
    for (const Json& c : spec[field]) {
      if (c.value("name", "") == name) return true;
    }
  }
  return false;
}

// The container a request names, checked against the pod as upstream's
// LogLocation does.
ApiOr<std::string> ContainerOf(const HttpRequest& request, const Json& pod) {
  const std::string name = pod["metadata"].value("name", "");
  const Json& spec = pod["spec"];
  std::string container = request.Query("container");
  if (!container.empty()) {
    if (!HasContainer(spec, container)) {
      return BadRequest(
          fmt::format("container {} is not valid for pod {}", container, name));
    }
    return container;
  }
  const Json containers = spec.value("containers", Json::array());
  if (containers.size() == 1) return containers[0].value("name", "");
  if (containers.empty()) {
    return BadRequest(
        fmt::format("a container name must be specified for pod {}", name));
  }
  std::string message = fmt::format(
      "a container name must be specified for pod {}, choose one "
      "of: [{}]",
      name, Names(containers));
  const std::string init = Names(spec.value("initContainers", Json::array()));
  if (!init.empty()) {
    message += fmt::format(" or one of the init containers: [{}]", init);
  }
  return BadRequest(std::move(message));
}

ApiError NoKubelet(const std::string& node, const std::string& why) {
  return {503, "ServiceUnavailable",
          fmt::format("cannot reach the kubelet of node {}: {}", node, why),
          nullptr};
}

// The kubelet's response, relayed: a non-200 answer becomes an API error
// with the kubelet's text; a 200 streams as it arrives. `ec` on failure to
// reach the kubelet.
void Relay(const KubeletLogLocation& where, ResponseWriter& writer,
           const std::function<void(const ApiError&)>& fail);

}  // namespace

ApiOr<KubeletLogLocation> PodLogLocation(const HttpRequest& request,
                                         const std::string& pod_json,
                                         const std::string& node_json) {
  const Json pod = Json::parse(pod_json, nullptr, false);
  const Json node = Json::parse(node_json, nullptr, false);
  if (!pod.is_object() || !node.is_object()) {
    return ApiError{500, "InternalError", "stored pod or node is not JSON",
                    nullptr};
  }
  ApiOr<std::string> container = ContainerOf(request, pod);
  if (!container.ok()) return container.error();
  const std::string node_name = node["metadata"].value("name", "");
  const Json status = node.value("status", Json::object());
  std::string host;
  for (const char* type : {"InternalIP", "Hostname"}) {
    for (const Json& address : status.value("addresses", Json::array())) {
      if (host.empty() && address.value("type", "") == type) {
        host = address.value("address", "");
      }
    }
  }
  int64_t port = 0;
  const Json endpoints = status.value("daemonEndpoints", Json::object());
  if (endpoints.contains("kubeletEndpoint") &&
      endpoints["kubeletEndpoint"].contains("Port") &&
      endpoints["kubeletEndpoint"]["Port"].is_number_integer()) {
    port = endpoints["kubeletEndpoint"]["Port"].get<int64_t>();
  }
  if (port <= 0 || port > 65535) {
    return NoKubelet(
        node_name,
        "the node reports no kubelet endpoint "
        "(status.daemonEndpoints.kubeletEndpoint.Port is not set)");
  }
  if (host.empty()) {
    return NoKubelet(node_name,
                     "the node reports no InternalIP or Hostname address "
                     "(status.addresses)");
  }
  KubeletLogLocation out{host, static_cast<uint16_t>(port), ""};
  out.target = fmt::format(
      "/containerLogs/{}/{}/{}", Escape(pod["metadata"].value("namespace", "")),
      Escape(pod["metadata"].value("name", "")), Escape(*container));
  char separator = '?';
  for (const char* name : kRelayedParameters) {
    if (!request.HasQuery(name)) continue;
    out.target +=
        fmt::format("{}{}={}", separator, name, Escape(request.Query(name)));
    separator = '&';
  }
  return out;
}

void ServePodLog(ResourceStorage& storage, const RequestScope& scope,
                 const HttpRequest& request, ResponseWriter& writer) {
  auto fail = [&writer](const ApiError& error) {
    writer.Send(error.code, "application/json", error.ToStatus().dump());
  };
  if (request.method != "GET") {
    return fail(MethodNotAllowed(fmt::format("method {} is not allowed on {}",
                                             request.method, request.path)));
  }
  RequestScope pod_scope = scope;
  pod_scope.subresource.clear();
  pod_scope.version = "v1";
  ApiOr<std::string> pod = storage.Get(pod_scope, 0);
  if (!pod.ok()) return fail(pod.error());
  const Json parsed = Json::parse(*pod, nullptr, false);
  const std::string node_name =
      parsed.is_object() ? parsed["spec"].value("nodeName", "") : "";
  if (node_name.empty()) {
    return fail(BadRequest(
        fmt::format("pod {} does not have a host assigned", scope.name)));
  }
  RequestScope node_scope{api::FindResourceByKind("Node"), "v1", "", node_name,
                          ""};
  ApiOr<std::string> node = storage.Get(node_scope, 0);
  if (!node.ok()) return fail(node.error());
  ApiOr<KubeletLogLocation> where = PodLogLocation(request, *pod, *node);
  if (!where.ok()) return fail(where.error());
  Relay(*where, writer, fail);
}

namespace {

ApiError KubeletError(int code, std::string body) {
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) {
    body.pop_back();
  }
  std::string reason = code == 404   ? "NotFound"
                       : code == 400 ? "BadRequest"
                                     : "InternalError";
  return {code, reason, std::move(body), nullptr};
}

void Relay(const KubeletLogLocation& where, ResponseWriter& writer,
           const std::function<void(const ApiError&)>& fail) {
  asio::io_context io;
  tcp::socket socket(io);
  beast::error_code ec;
  tcp::resolver resolver(io);
  auto endpoints = resolver.resolve(where.host, std::to_string(where.port), ec);
  if (!ec) asio::connect(socket, endpoints, ec);
  if (ec) {
    return fail({503, "ServiceUnavailable",
                 fmt::format("cannot reach the kubelet at {}:{}: {}",
                             where.host, where.port, ec.message()),
                 nullptr});
  }
  http::request<http::empty_body> get(http::verb::get, where.target, 11);
  get.set(http::field::host, where.host);
  get.set(http::field::connection, "close");
  http::write(socket, get, ec);
  // Reads wake every second, so that a silent follow notices a client that
  // went away.
  timeval timeout{1, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
               sizeof timeout);
  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  // Not boost::none: Boost 1.74 then rejects every Content-Length body.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  for (int waited = 0; !ec && !parser.is_header_done(); ++waited) {
    http::read_header(socket, buffer, parser, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      if (waited < 30) ec = {};
    }
  }
  if (ec) {
    return fail({503, "ServiceUnavailable",
                 fmt::format("kubelet at {}:{}: {}", where.host, where.port,
                             ec.message()),
                 nullptr});
  }
  const int code = parser.get().result_int();
  std::string error_text;
  bool streaming = false;
  char chunk[16384];
  while (!parser.is_done()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    // read_some: returns with what has arrived, so follow streams.
    http::read_some(socket, buffer, parser, ec);
    if (ec == http::error::need_buffer) ec = {};
    const size_t n = sizeof chunk - parser.get().body().size;
    if (n > 0 && code != 200) {
      if (error_text.size() < 65536) error_text.append(chunk, n);
    } else if (n > 0) {
      if (!streaming) streaming = writer.StartStream("text/plain");
      if (!streaming || !writer.WriteChunk(std::string_view(chunk, n))) return;
    }
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      ec = {};
      if (writer.ClientGone()) return;
    }
    if (ec) break;
  }
  if (code != 200) return fail(KubeletError(code, error_text));
  if (!streaming) writer.Send(200, "text/plain", "");
}

}  // namespace
}  // namespace dralloc::apiserver
