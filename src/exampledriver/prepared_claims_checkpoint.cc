#include "exampledriver/prepared_claims_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dralloc::exampledriver {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int kVersion = 1;
constexpr std::uintmax_t kMaxFileBytes = 64 << 20;

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
  if (in.contains("shareId"))
    device.share_id = in["shareId"].get<std::string>();
  return device;
}

std::string ErrnoText() { return std::strerror(errno); }

// Writes `text` to `file` atomically: a temporary file beside it, fsync,
// rename over, fsync of the directory.
Status WriteFileAtomically(const fs::path& file, const std::string& text) {
  const fs::path temporary = file.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    return InternalError("checkpoint " + temporary.string() + ": " +
                         ErrnoText());
  }
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string error = ErrnoText();
      ::close(fd);
      return InternalError("checkpoint " + temporary.string() + ": " + error);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    return InternalError("checkpoint " + temporary.string() + ": " +
                         ErrnoText());
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    return InternalError("checkpoint " + file.string() + ": " + ErrnoText());
  }
  const int dir = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return OkStatus();
}

}  // namespace

StatusOr<PreparedClaimsCheckpoint> PreparedClaimsCheckpoint::Load(
    fs::path file) {
  PreparedClaimsCheckpoint checkpoint(file);
  std::error_code ec;
  if (!fs::exists(file, ec)) return checkpoint;
  if (fs::file_size(file, ec) > kMaxFileBytes) {
    return DataLossError("checkpoint " + file.string() + ": larger than " +
                         std::to_string(kMaxFileBytes) + " bytes");
  }
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  Json root = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return DataLossError("checkpoint " + file.string() + ": not a JSON object");
  }
  try {
    if (root.at("version").get<int>() != kVersion) {
      return DataLossError(
          "checkpoint " + file.string() +
          ": version: Unsupported value: " + root["version"].dump());
    }
    for (const auto& [uid, entry] : root.at("claims").items()) {
      PreparedClaim claim;
      claim.namespace_ = entry.at("namespace").get<std::string>();
      claim.name = entry.at("name").get<std::string>();
      for (const Json& device : entry.at("devices")) {
        claim.devices.push_back(DeviceFromJson(device));
      }
      checkpoint.claims_[uid] = std::move(claim);
    }
  } catch (const Json::exception& e) {
    return DataLossError("checkpoint " + file.string() + ": " + e.what());
  }
  return checkpoint;
}

const PreparedClaim* PreparedClaimsCheckpoint::Find(
    const std::string& uid) const {
  auto it = claims_.find(uid);
  return it == claims_.end() ? nullptr : &it->second;
}

Status PreparedClaimsCheckpoint::Put(const std::string& uid,
                                     PreparedClaim claim) {
  claims_[uid] = std::move(claim);
  return Save();
}

Status PreparedClaimsCheckpoint::Erase(const std::string& uid) {
  if (claims_.erase(uid) == 0) return OkStatus();
  return Save();
}

Status PreparedClaimsCheckpoint::Save() const {
  Json claims = Json::object();
  for (const auto& [uid, claim] : claims_) {
    Json devices = Json::array();
    for (const auto& device : claim.devices) {
      devices.push_back(DeviceToJson(device));
    }
    claims[uid] = {{"namespace", claim.namespace_},
                   {"name", claim.name},
                   {"devices", devices}};
  }
  const Json root = {{"version", kVersion}, {"claims", claims}};
  return WriteFileAtomically(file_, root.dump(2) + "\n");
}

}  // namespace dralloc::exampledriver
