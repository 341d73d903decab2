// Arithmetic on resource lists (name → quantity), as upstream's
// k8s.io/apiserver/pkg/quota/v1 resources.go: what quota admission and the
// quota controller compute usage and limits with.
#ifndef DRALLOC_QUOTA_USAGE_MATH_H_
#define DRALLOC_QUOTA_USAGE_MATH_H_

#include <string>
#include <vector>

#include "api/types/resource_quota.h"

namespace dralloc::quota {

using api::ResourceList;

// a + b, per name (names of either).
ResourceList Add(const ResourceList& a, const ResourceList& b);
// a - b per name of a, never below zero.
ResourceList SubtractNonNegative(const ResourceList& a, const ResourceList& b);
// The entries of `list` whose names are in `names`.
ResourceList Mask(const ResourceList& list,
                  const std::vector<std::string>& names);
// The names of `list`, sorted.
std::vector<std::string> ResourceNames(const ResourceList& list);
// `list` without its zero quantities.
ResourceList RemoveZeros(const ResourceList& list);
// The names of `a` whose quantity exceeds `b`'s (names `b` lacks never
// exceed), sorted; empty when a ≤ b.
std::vector<std::string> Exceeded(const ResourceList& a, const ResourceList& b);
// Whether both have the same names with equal quantities (1000m == 1).
bool Equals(const ResourceList& a, const ResourceList& b);
// "a=1,b=2": names sorted, as upstream's quota messages print lists.
std::string PrettyPrint(const ResourceList& list);
// "a,b": sorted and comma-joined.
std::string PrettyPrintNames(std::vector<std::string> names);

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_USAGE_MATH_H_
