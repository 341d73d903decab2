// dralloc podresources list [--socket PATH] [-o text|json]
// dralloc podresources get --pod NAME [--namespace NS] [--socket PATH]
//                          [-o text|json]
//
// A client of the kubelet's PodResources v1 service (as served by the node
// agent): prints what List or Get return, either as a table (one row per
// prepared device) or in the protobuf JSON mapping. Exit 0 on success, 1
// when the socket is missing, nothing answers on it, or the pod is not
// there (the message names the socket), 2 for bad flags.
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "podresources/pod_resources_client.h"
#include "podresources/pod_resources_printer.h"
#include "podresources/pod_resources_source.h"

namespace dralloc::cli {
namespace {

struct PodResourcesOptions {
  std::string socket = podresources::kDefaultPodResourcesSocket;
  std::string output = "text";
  std::string pod;
  std::string namespace_ = "default";
  int timeout_seconds = 10;
};

int Fail(const Status& status) {
  std::cerr << "error: " << status.message() << '\n';
  return kExitInvalid;
}

StatusOr<podresources::PodResourcesClient> Connect(
    const PodResourcesOptions& o) {
  return podresources::PodResourcesClient::Connect(
      o.socket, std::chrono::seconds(o.timeout_seconds));
}

// Prints `response` as JSON, or `pods` as a table.
int Print(const PodResourcesOptions& o,
          const google::protobuf::Message& response,
          const std::vector<v1::PodResources>& pods) {
  if (o.output == "json") {
    StatusOr<std::string> json = podresources::ToJson(response);
    if (!json.ok()) return Fail(json.status());
    std::cout << *json;
  } else {
    std::cout << podresources::FormatTable(pods);
  }
  return kExitOk;
}

int RunList(const PodResourcesOptions& o) {
  StatusOr<podresources::PodResourcesClient> client = Connect(o);
  if (!client.ok()) return Fail(client.status());
  StatusOr<v1::ListPodResourcesResponse> list = client->List();
  if (!list.ok()) return Fail(list.status());
  const std::vector<v1::PodResources> pods(list->pod_resources().begin(),
                                           list->pod_resources().end());
  return Print(o, *list, pods);
}

int RunGet(const PodResourcesOptions& o) {
  StatusOr<podresources::PodResourcesClient> client = Connect(o);
  if (!client.ok()) return Fail(client.status());
  StatusOr<v1::GetPodResourcesResponse> got = client->Get(o.namespace_, o.pod);
  if (!got.ok()) return Fail(got.status());
  return Print(o, *got, {got->pod_resources()});
}

// The flags both subcommands share.
void AddCommonFlags(CLI::App& command, PodResourcesOptions& options) {
  command
      .add_option("--socket", options.socket,
                  "The PodResources socket of the node agent")
      ->capture_default_str();
  command.add_option("-o,--output", options.output, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command
      .add_option("--timeout", options.timeout_seconds,
                  "Seconds to wait for an answer")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
}

}  // namespace

void RegisterPodResourcesCommand(CLI::App& app, int& exit_code) {
  CLI::App* podresources = app.add_subcommand(
      "podresources",
      "Query a node's PodResources v1 service (the devices of DRA claims per "
      "container).");
  podresources->require_subcommand(1);

  auto [list, list_options] = AddCommand<PodResourcesOptions>(
      *podresources, "list", "List the resources of every pod on the node.",
      exit_code, RunList);
  AddCommonFlags(list, list_options);

  auto [get, get_options] = AddCommand<PodResourcesOptions>(
      *podresources, "get", "Get the resources of one pod.", exit_code, RunGet);
  AddCommonFlags(get, get_options);
  get.add_option("--pod", get_options.pod, "The pod's name")->required();
  get.add_option("-n,--namespace", get_options.namespace_,
                 "The pod's namespace")
      ->capture_default_str();
}

}  // namespace dralloc::cli
