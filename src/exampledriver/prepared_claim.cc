#include "exampledriver/prepared_claim.h"

#include <cstdint>
#include <cstdio>
#include <utility>

namespace dralloc::exampledriver {
namespace {

using Json = nlohmann::json;

constexpr int kSnapshotVersion = 1;

Json DeviceToJson(const kubeletplugin::PreparedDevice& device) {
  Json out = {{"requestNames", device.request_names},
              {"poolName", device.pool_name},
              {"deviceName", device.device_name},
              {"cdiDeviceIds", device.cdi_device_ids}};
  if (device.share_id) out["shareId"] = *device.share_id;
  return out;
}

// Reads in[key] as T; a missing or mistyped field is kDataLoss naming
// `path`.key.
template <typename T>
Status ReadField(const Json& in, const char* key, const std::string& path,
                 T& out, bool optional = false) {
  const std::string field = path.empty() ? key : path + "." + key;
  if (!in.is_object() || !in.contains(key)) {
    if (optional && in.is_object()) return OkStatus();
    return DataLossError(field + ": Required value");
  }
  try {
    out = in.at(key).get<T>();
  } catch (const Json::exception&) {
    return DataLossError(field + ": Invalid value: " + in.at(key).dump());
  }
  return OkStatus();
}

StatusOr<kubeletplugin::PreparedDevice> DeviceFromJson(
    const Json& in, const std::string& path) {
  kubeletplugin::PreparedDevice device;
  RETURN_IF_ERROR(ReadField(in, "requestNames", path, device.request_names));
  RETURN_IF_ERROR(ReadField(in, "poolName", path, device.pool_name));
  RETURN_IF_ERROR(ReadField(in, "deviceName", path, device.device_name));
  RETURN_IF_ERROR(ReadField(in, "cdiDeviceIds", path, device.cdi_device_ids));
  std::string share_id;
  RETURN_IF_ERROR(ReadField(in, "shareId", path, share_id, true));
  if (in.contains("shareId")) device.share_id = share_id;
  return device;
}

// FNV-1a 64 as 16 lower-case hex digits.
std::string Checksum(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx",
                static_cast<unsigned long long>(hash));
  return out;
}

constexpr size_t kChecksumDigits = 16;

}  // namespace

Json PreparedClaimToJson(const PreparedClaim& claim) {
  Json devices = Json::array();
  for (const auto& device : claim.devices) {
    devices.push_back(DeviceToJson(device));
  }
  Json out = {{"namespace", claim.namespace_},
              {"name", claim.name},
              {"devices", std::move(devices)}};
  if (!claim.cdi_spec.empty()) out["cdiSpec"] = claim.cdi_spec;
  return out;
}

StatusOr<PreparedClaim> PreparedClaimFromJson(const Json& in,
                                              const std::string& path) {
  PreparedClaim claim;
  RETURN_IF_ERROR(ReadField(in, "namespace", path, claim.namespace_));
  RETURN_IF_ERROR(ReadField(in, "name", path, claim.name));
  std::vector<Json> devices;
  RETURN_IF_ERROR(ReadField(in, "devices", path, devices));
  for (size_t i = 0; i < devices.size(); ++i) {
    ASSIGN_OR_RETURN(kubeletplugin::PreparedDevice device,
                     DeviceFromJson(devices[i], path + ".devices[" +
                                                    std::to_string(i) + "]"));
    claim.devices.push_back(std::move(device));
  }
  RETURN_IF_ERROR(ReadField(in, "cdiSpec", path, claim.cdi_spec, true));
  return claim;
}

std::string EncodeSnapshot(const PreparedClaims& claims) {
  Json out = Json::object();
  for (const auto& [uid, claim] : claims) out[uid] = PreparedClaimToJson(claim);
  const Json root = {{"version", kSnapshotVersion}, {"claims", std::move(out)}};
  return root.dump() + "\n";
}

StatusOr<PreparedClaims> DecodeSnapshot(const std::string& text,
                                        const std::string& what) {
  const Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return DataLossError(what + ": not a JSON object");
  }
  if (!root.contains("version") || root.at("version") != kSnapshotVersion) {
    return DataLossError(
        what + ": version: Unsupported value: " +
        (root.contains("version") ? root.at("version").dump() : "none"));
  }
  if (!root.contains("claims") || !root.at("claims").is_object()) {
    return DataLossError(what + ": claims: Required value: an object");
  }
  PreparedClaims claims;
  for (const auto& [uid, entry] : root.at("claims").items()) {
    StatusOr<PreparedClaim> claim =
        PreparedClaimFromJson(entry, "claims[" + uid + "]");
    if (!claim.ok()) return claim.status().WithPrefix(what);
    claims[uid] = std::move(claim).value();
  }
  return claims;
}

std::string EncodeJournalRecord(const ClaimChange& change) {
  Json record = Json::object();
  if (change.claim) {
    record["put"] = change.uid;
    record["claim"] = PreparedClaimToJson(*change.claim);
  } else {
    record["erase"] = change.uid;
  }
  const std::string json = record.dump();
  return Checksum(json) + " " + json + "\n";
}

StatusOr<ClaimChange> DecodeJournalRecord(std::string_view line) {
  if (line.size() < kChecksumDigits + 2 || line[kChecksumDigits] != ' ') {
    return DataLossError("not a journal record");
  }
  const std::string_view json = line.substr(kChecksumDigits + 1);
  if (Checksum(json) != line.substr(0, kChecksumDigits)) {
    return DataLossError("checksum mismatch");
  }
  const Json record = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (record.is_discarded() || !record.is_object()) {
    return DataLossError("not a JSON object");
  }
  ClaimChange change;
  if (record.contains("put")) {
    RETURN_IF_ERROR(ReadField(record, "put", "", change.uid));
    if (!record.contains("claim")) {
      return DataLossError("claim: Required value");
    }
    ASSIGN_OR_RETURN(change.claim,
                     PreparedClaimFromJson(record.at("claim"), "claim"));
  } else {
    RETURN_IF_ERROR(ReadField(record, "erase", "", change.uid));
  }
  return change;
}

void ApplyChange(PreparedClaims& claims, ClaimChange change) {
  if (change.claim) {
    claims[change.uid] = std::move(*change.claim);
  } else {
    claims.erase(change.uid);
  }
}

}  // namespace dralloc::exampledriver
