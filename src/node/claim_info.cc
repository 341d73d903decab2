#include "node/claim_info.h"

namespace dralloc::node {

bool ClaimInfo::prepared() const {
  for (const auto& [driver, state] : drivers) {
    if (!state.prepared) return false;
  }
  return true;
}

}  // namespace dralloc::node
