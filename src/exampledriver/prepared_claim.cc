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

kubeletplugin::PreparedDevice DeviceFromJson(const Json& in) {
  kubeletplugin::PreparedDevice device;
  device.request_names = in.at("requestNames").get<std::vector<std::string>>();
  device.pool_name = in.at("poolName").get<std::string>();
  device.device_name = in.at("deviceName").get<std::string>();
  device.cdi_device_ids = in.at("cdiDeviceIds").get<std::vector<std::string>>();
  if (in.contains("shareId")) {
    device.share_id = in.at("shareId").get<std::string>();
  }
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

PreparedClaim PreparedClaimFromJson(const Json& in) {
  PreparedClaim claim;
  claim.namespace_ = in.at("namespace").get<std::string>();
  claim.name = in.at("name").get<std::string>();
  for (const Json& device : in.at("devices")) {
    claim.devices.push_back(DeviceFromJson(device));
  }
  if (in.contains("cdiSpec")) {
    claim.cdi_spec = in.at("cdiSpec").get<std::string>();
  }
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
  PreparedClaims claims;
  try {
    if (root.at("version") != kSnapshotVersion) {
      return DataLossError(
          what + ": version: Unsupported value: " + root.at("version").dump());
    }
    for (const auto& [uid, entry] : root.at("claims").items()) {
      try {
        claims[uid] = PreparedClaimFromJson(entry);
      } catch (const Json::exception& e) {
        return DataLossError(what + ": claims[" + uid + "]: " + e.what());
      }
    }
  } catch (const Json::exception& e) {
    return DataLossError(what + ": " + e.what());
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
  try {
    ClaimChange change;
    if (record.contains("put")) {
      change.uid = record.at("put").get<std::string>();
      change.claim = PreparedClaimFromJson(record.at("claim"));
    } else {
      change.uid = record.at("erase").get<std::string>();
    }
    return change;
  } catch (const Json::exception& e) {
    return DataLossError(e.what());
  }
}

void ApplyChange(PreparedClaims& claims, ClaimChange change) {
  if (change.claim) {
    claims[change.uid] = std::move(*change.claim);
  } else {
    claims.erase(change.uid);
  }
}

}  // namespace dralloc::exampledriver
