// Finds the parts of a CEL constraint that can be checked on a partial
// device set: conjuncts that, once false for some devices, stay false however
// many devices are appended ("prefix-closed"). The search then rejects a
// device as soon as such a conjunct fails instead of enumerating complete
// sets.
#ifndef DRALLOC_ALLOCATOR_PREFIX_CLOSED_CONJUNCTS_H_
#define DRALLOC_ALLOCATOR_PREFIX_CLOSED_CONJUNCTS_H_

#include <string>
#include <string_view>
#include <vector>

namespace dralloc::allocator {

// Returns the source text of each top-level `&&` operand of `expression`
// over the variable `devices` that is prefix-closed:
//   - it does not mention `devices`;
//   - `devices.all(x, P)` where P uses `devices` only as `devices[<int>]`
//     or as the range of a nested all() of the same form (pairwise checks);
//   - `size(devices) <= c`, `size(devices) < c` (or mirrored), c constant;
//   - a conjunction of these.
// Returns an empty list when nothing qualifies or the text does not parse.
std::vector<std::string> PrefixClosedConjuncts(std::string_view expression);

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_PREFIX_CLOSED_CONJUNCTS_H_
