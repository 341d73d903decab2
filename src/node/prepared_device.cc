#include "node/prepared_device.h"

namespace dralloc::node {

bool ServesRequest(const PreparedDevice& device, const std::string& request) {
  if (request.empty() || device.request_names.empty()) return true;
  for (const std::string& name : device.request_names) {
    if (name == request) return true;
    if (name.size() > request.size() && name.starts_with(request) &&
        name[request.size()] == '/') {
      return true;
    }
  }
  return false;
}

}  // namespace dralloc::node
