#include "api/kind_traits.h"

#include <algorithm>

namespace dralloc::api {
namespace {

constexpr std::array<const KindTraits*, kKindCount> kAllKinds = AllKindTraits();

}  // namespace

const KindTraits* FindKindTraits(std::string_view kind) {
  for (const KindTraits* traits : kAllKinds) {
    if (traits->kind == kind) return traits;
  }
  return nullptr;
}

const KindTraits* FindKindTraits(std::string_view api_version,
                                 std::string_view kind) {
  for (const KindTraits* traits : kAllKinds) {
    if (traits->kind != kind) continue;
    for (std::string_view served : traits->api_versions) {
      if (!served.empty() && served == api_version) return traits;
    }
  }
  return nullptr;
}

const KindTraits& TraitsOf(const Object& object) {
  return *kAllKinds[object.index()];
}

int CreationRank(std::string_view kind) {
  if (const KindTraits* traits = FindKindTraits(kind)) {
    return traits->creation_rank;
  }
  int last = 0;
  for (const KindTraits* traits : kAllKinds) {
    last = std::max(last, traits->creation_rank);
  }
  return last + 1;
}

}  // namespace dralloc::api
