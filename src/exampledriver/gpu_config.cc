#include "exampledriver/gpu_config.h"

#include <nlohmann/json.hpp>
#include <set>

namespace dralloc::exampledriver {
namespace {

using Json = nlohmann::json;

Status FieldError(std::string_view path, std::string_view field,
                  std::string_view detail) {
  return InvalidArgumentError(std::string(path) + "." + std::string(field) +
                              ": " + std::string(detail));
}

// Rejects members of `object` not in `allowed`.
Status CheckFields(const Json& object, std::string_view path,
                   const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (!allowed.contains(key)) {
      return FieldError(path, key,
                        "Unsupported field: unknown field \"" + key + "\"");
    }
  }
  return OkStatus();
}

StatusOr<std::string> StringField(const Json& object, std::string_view path,
                                  const std::string& field) {
  const Json& value = object.at(field);
  if (!value.is_string()) {
    return FieldError(path, field, "Invalid value: must be a string");
  }
  return value.get<std::string>();
}

Status ParseTimeSlicing(const Json& sharing, const std::string& path,
                        GpuConfig& config) {
  config.time_slice_interval = "Default";
  if (sharing.contains("spacePartitioningConfig")) {
    return FieldError(path, "spacePartitioningConfig",
                      "Forbidden: only with strategy SpacePartitioning");
  }
  if (!sharing.contains("timeSlicingConfig")) return OkStatus();
  const Json& ts = sharing["timeSlicingConfig"];
  const std::string ts_path = path + ".timeSlicingConfig";
  if (!ts.is_object()) {
    return InvalidArgumentError(ts_path + ": Invalid value: must be an object");
  }
  RETURN_IF_ERROR(CheckFields(ts, ts_path, {"interval"}));
  if (ts.contains("interval")) {
    ASSIGN_OR_RETURN(config.time_slice_interval,
                     StringField(ts, ts_path, "interval"));
  }
  static const std::set<std::string> kIntervals = {"Default", "Short", "Medium",
                                                   "Long"};
  if (!kIntervals.contains(config.time_slice_interval)) {
    return FieldError(ts_path, "interval",
                      "Unsupported value: \"" + config.time_slice_interval +
                          "\": supported values: \"Default\", \"Short\", "
                          "\"Medium\", \"Long\"");
  }
  return OkStatus();
}

Status ParseSpacePartitioning(const Json& sharing, const std::string& path,
                              GpuConfig& config) {
  const std::string sp_path = path + ".spacePartitioningConfig";
  if (!sharing.contains("spacePartitioningConfig")) {
    return InvalidArgumentError(sp_path + ": Required value");
  }
  const Json& sp = sharing["spacePartitioningConfig"];
  if (!sp.is_object()) {
    return InvalidArgumentError(sp_path + ": Invalid value: must be an object");
  }
  RETURN_IF_ERROR(CheckFields(sp, sp_path, {"partitionCount"}));
  const Json count = sp.value("partitionCount", Json());
  if (!count.is_number_integer() || count.get<int64_t>() < 1 ||
      count.get<int64_t>() > 1024) {
    return FieldError(sp_path, "partitionCount",
                      "Invalid value: must be an integer from 1 to 1024");
  }
  config.partition_count = count.get<int>();
  if (sharing.contains("timeSlicingConfig")) {
    return FieldError(path, "timeSlicingConfig",
                      "Forbidden: only with strategy TimeSlicing");
  }
  return OkStatus();
}

Status ParseSharing(const Json& sharing, const std::string& path,
                    GpuConfig& config) {
  if (!sharing.is_object()) {
    return InvalidArgumentError(path + ": Invalid value: must be an object");
  }
  RETURN_IF_ERROR(CheckFields(
      sharing, path,
      {"strategy", "timeSlicingConfig", "spacePartitioningConfig"}));
  if (!sharing.contains("strategy")) {
    return FieldError(path, "strategy", "Required value");
  }
  ASSIGN_OR_RETURN(config.strategy, StringField(sharing, path, "strategy"));
  if (config.strategy == "TimeSlicing") {
    return ParseTimeSlicing(sharing, path, config);
  }
  if (config.strategy == "SpacePartitioning") {
    return ParseSpacePartitioning(sharing, path, config);
  }
  return FieldError(path, "strategy",
                    "Unsupported value: \"" + config.strategy +
                        "\": supported values: \"TimeSlicing\", "
                        "\"SpacePartitioning\"");
}

}  // namespace

StatusOr<GpuConfig> GpuConfig::Parse(std::string_view json,
                                     std::string_view path) {
  Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return InvalidArgumentError(std::string(path) +
                                ": Invalid value: must be a JSON object");
  }
  RETURN_IF_ERROR(CheckFields(root, path, {"apiVersion", "kind", "sharing"}));
  if (root.contains("kind")) {
    ASSIGN_OR_RETURN(std::string kind, StringField(root, path, "kind"));
    if (kind != "GpuConfig") {
      return FieldError(path, "kind",
                        "Unsupported value: \"" + kind +
                            "\": supported values: \"GpuConfig\"");
    }
  }
  GpuConfig config;
  if (root.contains("sharing")) {
    RETURN_IF_ERROR(
        ParseSharing(root["sharing"], std::string(path) + ".sharing", config));
  }
  return config;
}

std::vector<std::string> GpuConfig::Env(const std::string& prefix) const {
  std::vector<std::string> env;
  if (strategy.empty()) return env;
  env.push_back(prefix + "_SHARING_STRATEGY=" + strategy);
  if (!time_slice_interval.empty()) {
    env.push_back(prefix + "_TIMESLICE_INTERVAL=" + time_slice_interval);
  }
  if (partition_count) {
    env.push_back(prefix +
                  "_PARTITION_COUNT=" + std::to_string(*partition_count));
  }
  return env;
}

}  // namespace dralloc::exampledriver
