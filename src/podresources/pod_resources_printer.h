// How `dralloc podresources` prints PodResources answers: as protobuf JSON
// (the proto3 JSON mapping, lowerCamelCase names) or as a table with one
// row per prepared device.
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_PRINTER_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_PRINTER_H_

#include <google/protobuf/message.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.pb.h"

namespace dralloc::podresources {

// `message` in the proto3 JSON mapping, indented, ending in a newline.
StatusOr<std::string> ToJson(const google::protobuf::Message& message);

// Columns POD NAMESPACE CONTAINER CLAIM DRIVER POOL DEVICE CDI IDS, aligned
// with three spaces between columns as kubectl does, one row per device;
// a container without claims, or a claim without devices, gets one row
// with <none> in the columns it has no value for. CDI IDs are joined with
// ",". Ends in a newline; "No resources found.\n" when `pods` is empty.
std::string FormatTable(const std::vector<v1::PodResources>& pods);

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_PRINTER_H_
