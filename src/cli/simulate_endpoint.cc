#include "cli/simulate_endpoint.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <utility>

#include "apiserver/in_process_api_client.h"
#include "simulator/cluster_simulation.h"
#include "simulator/node_group.h"
#include "simulator/plan_output.h"
#include "simulator/scale_down_planner.h"
#include "simulator/scale_up_planner.h"

namespace dralloc::cli {
namespace {

using apiserver::ApiError;
using apiserver::ApiOr;
using apiserver::Json;

constexpr std::string_view kBodySource = "request body";

void SendDocument(apiserver::ResponseWriter& writer, int code,
                  const Json& document) {
  writer.Send(code, "application/json", document.dump());
}

void SendError(apiserver::ResponseWriter& writer, const ApiError& error) {
  SendDocument(writer, error.code, error.ToStatus());
}

// A JSON array of NodeGroups or a List of them becomes one document each;
// anything else (YAML or JSON documents) is read as it is.
std::string NodeGroupDocuments(const std::string& body) {
  Json parsed = Json::parse(body, nullptr, false);
  const Json* items = nullptr;
  if (parsed.is_array()) {
    items = &parsed;
  } else if (parsed.is_object() && parsed.contains("items") &&
             parsed["items"].is_array()) {
    items = &parsed["items"];
  }
  if (items == nullptr) return body;
  // A YAML stream of JSON documents (a leading "---" keeps the reader from
  // taking the text for a single JSON value).
  std::string documents;
  for (const Json& item : *items) documents += "---\n" + item.dump() + '\n';
  return documents;
}

ApiOr<simulator::ScaleUpOptions> ParseScaleUpOptions(
    const apiserver::HttpRequest& request) {
  simulator::ScaleUpOptions options;
  if (request.HasQuery("expander")) {
    auto expander = simulator::ParseExpander(request.Query("expander"));
    if (!expander.ok()) {
      // ParseExpander names the CLI flag; here the value is a parameter.
      std::string message(expander.status().message());
      if (message.starts_with("--expander")) message.replace(0, 10, "expander");
      return apiserver::BadRequest(std::move(message));
    }
    options.expander = *expander;
  }
  if (request.HasQuery("seed")) {
    const std::string seed = request.Query("seed");
    uint64_t value = 0;
    auto [end, error] =
        std::from_chars(seed.data(), seed.data() + seed.size(), value);
    if (error != std::errc() || end != seed.data() + seed.size() ||
        seed.empty()) {
      return apiserver::BadRequest(fmt::format(
          "seed: Invalid value: \"{}\": must be an unsigned integer", seed));
    }
    options.seed = value;
  }
  return options;
}

ApiOr<std::vector<simulator::NodeGroup>> ParseBodyNodeGroups(
    const std::string& body) {
  auto groups =
      simulator::ParseNodeGroups(NodeGroupDocuments(body), kBodySource);
  if (!groups.ok()) {
    return apiserver::BadRequest(std::string(groups.status().message()));
  }
  if (groups->empty()) {
    return apiserver::BadRequest(
        "request body: Required value: NodeGroup documents "
        "(apiVersion dralloc.io/v1alpha1, kind NodeGroup)");
  }
  return std::move(*groups);
}

ApiOr<std::unique_ptr<simulator::ClusterSimulation>> NewSimulation(
    std::vector<api::Object> objects) {
  auto simulation = simulator::ClusterSimulation::Create(std::move(objects));
  if (!simulation.ok()) {
    return ApiError{500, "InternalError",
                    fmt::format("loading the cluster state into the "
                                "simulation: {}",
                                simulation.status().message())};
  }
  return std::move(*simulation);
}

}  // namespace

void SimulateEndpoint::Handle(const apiserver::HttpRequest& request,
                              apiserver::ResponseWriter& writer) {
  const std::string_view operation =
      std::string_view(request.path).substr(kSimulatePrefix.size());
  const bool scale_up = operation == "scale-up";
  if (!scale_up && operation != "scale-down") {
    SendError(writer, apiserver::NotFoundPath(request.path));
    return;
  }
  const bool allowed =
      request.method == "POST" || (!scale_up && request.method == "GET");
  if (!allowed) {
    writer.AddHeader("Allow", scale_up ? "POST" : "GET, POST");
    SendError(writer, apiserver::MethodNotAllowed(fmt::format(
                          "{} is not supported on {}; use {}", request.method,
                          request.path, scale_up ? "POST" : "GET or POST")));
    return;
  }
  if (!running_.TryLock()) {
    writer.AddHeader("Retry-After", "1");
    SendError(writer, ApiError{429, "TooManyRequests",
                               "another simulation is running; retry later"});
    return;
  }
  ApiOr<Json> answer = scale_up ? ScaleUp(request) : ScaleDown();
  running_.Unlock();
  if (!answer.ok()) {
    SendError(writer, answer.error());
    return;
  }
  SendDocument(writer, 200, *answer);
}

ApiOr<Json> SimulateEndpoint::ScaleUp(const apiserver::HttpRequest& request) {
  ApiOr<simulator::ScaleUpOptions> options = ParseScaleUpOptions(request);
  if (!options.ok()) return options.error();
  ApiOr<std::vector<simulator::NodeGroup>> groups =
      ParseBodyNodeGroups(request.body);
  if (!groups.ok()) return groups.error();
  ApiOr<std::vector<api::Object>> objects = ListClusterObjects();
  if (!objects.ok()) return objects.error();
  auto simulation = NewSimulation(std::move(*objects));
  if (!simulation.ok()) return simulation.error();
  simulator::ScaleUpPlanner planner(**simulation, std::move(*groups), *options);
  return simulator::ScaleUpPlanJson(planner.Plan());
}

ApiOr<Json> SimulateEndpoint::ScaleDown() {
  ApiOr<std::vector<api::Object>> objects = ListClusterObjects();
  if (!objects.ok()) return objects.error();
  auto simulation = NewSimulation(std::move(*objects));
  if (!simulation.ok()) return simulation.error();
  simulator::ScaleDownPlanner planner(**simulation);
  return simulator::ScaleDownPlanJson(planner.Plan());
}

ApiOr<std::vector<api::Object>> SimulateEndpoint::ListClusterObjects() {
  std::vector<api::Object> objects;
  for (const api::ResourceInfo* resource :
       {&client::ResourceFor<api::Namespace>(), &client::NodesResource(),
        &client::DeviceClassesResource(), &client::ResourceSlicesResource(),
        &client::ResourceSlicePatchesResource(),
        &client::DeviceTaintRulesResource(),
        &client::ResourceClaimTemplatesResource(),
        &client::ResourceClaimsResource(), &client::PodsResource()}) {
    auto listed = api_.List(*resource);
    if (!listed.ok()) {
      return ApiError{
          500, "InternalError",
          fmt::format("listing {}: {}", resource->QualifiedResource(),
                      listed.status().message())};
    }
    for (const client::ObjectPtr& object : listed->items) {
      objects.push_back(*object);
    }
  }
  return objects;
}

void AddSimulateEndpoint(apiserver::ApiServer& server) {
  auto api = std::make_shared<apiserver::InProcessApiClient>(
      server.storage(), "dralloc-simulate");
  auto endpoint = std::make_shared<SimulateEndpoint>(*api);
  server.AddEndpoint(std::string(kSimulatePrefix),
                     [api, endpoint](const apiserver::HttpRequest& request,
                                     apiserver::ResponseWriter& writer) {
                       endpoint->Handle(request, writer);
                     });
}

}  // namespace dralloc::cli
