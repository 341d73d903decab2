#include "scheduler/scheduling_framework.h"

namespace dralloc::scheduler {

std::vector<std::unique_ptr<NodePlugin>> DefaultProfile() {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  return profile;
}

}  // namespace dralloc::scheduler
