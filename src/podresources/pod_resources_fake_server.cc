// Test helper: serves SamplePods() (pod_resources_test_util.h) on the socket
// given as the only argument, prints "ready" once serving, and stops (the
// socket removed) when stdin closes. Used by podresources_cli_test.sh.
#include <iostream>
#include <string>

#include "podresources/pod_resources_server.h"
#include "podresources/pod_resources_test_util.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " SOCKET\n";
    return 2;
  }
  dralloc::podresources::FakeSource source(dralloc::podresources::SamplePods());
  dralloc::podresources::PodResourcesServer server(source);
  dralloc::Status started = server.Start(argv[1]);
  if (!started.ok()) {
    std::cerr << "error: " << started.message() << '\n';
    return 1;
  }
  std::cout << "ready" << std::endl;
  std::string ignored;
  while (std::getline(std::cin, ignored)) {
  }
  server.Stop();
  return 0;
}
