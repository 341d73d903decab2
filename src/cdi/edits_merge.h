// Combining container edits the way a CDI-aware runtime applies them one
// after another to a container's OCI spec.
#ifndef DRALLOC_CDI_EDITS_MERGE_H_
#define DRALLOC_CDI_EDITS_MERGE_H_

#include "cdi/spec.h"

namespace dralloc::cdi {

// Appends `from` to `into`, so that `into` is what applying both in order
// gives (the CDI library's ContainerEdits.Apply through the OCI spec
// editor):
//  - env: an entry whose KEY is already present replaces that entry's value
//    in place (the later one wins); new keys are appended;
//  - deviceNodes with the same container path, mounts with the same
//    containerPath, netDevices with the same hostInterfaceName: the later
//    one replaces the earlier (device nodes and mounts move to the end, as
//    the editor removes and re-adds them);
//  - hooks are appended; additionalGids are appended without 0 and without
//    repeats; a later intelRdt replaces an earlier one.
void MergeEdits(ContainerEdits& into, const ContainerEdits& from);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_EDITS_MERGE_H_
