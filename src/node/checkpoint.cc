#include "node/checkpoint.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dralloc::node {
namespace {

using nlohmann::json;
constexpr char kVersion[] = "dralloc.node/v1";
// A checkpoint larger than this is not ours.
constexpr std::uintmax_t kMaxCheckpointBytes = 256u << 20;

std::string Checksum(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("{:016x}", hash);
}

json DeviceToJson(const PreparedDevice& device) {
  json out = {{"pool", device.pool},
              {"device", device.device},
              {"requestNames", device.request_names},
              {"cdiDeviceIDs", device.cdi_device_ids}};
  if (device.share_id) out["shareID"] = *device.share_id;
  return out;
}

json ClaimToJson(const ClaimInfo& claim) {
  json drivers = json::object();
  for (const auto& [name, state] : claim.drivers) {
    json devices = json::array();
    for (const auto& device : state.devices) {
      devices.push_back(DeviceToJson(device));
    }
    drivers[name] = {{"state", state.prepared ? "prepared" : "preparing"},
                     {"devices", devices}};
  }
  return {{"uid", claim.uid},
          {"namespace", claim.namespace_},
          {"name", claim.name},
          {"drivers", drivers},
          {"podUIDs", claim.pod_uids}};
}

PreparedDevice DeviceFromJson(const json& in) {
  PreparedDevice device;
  device.pool = in.at("pool").get<std::string>();
  device.device = in.at("device").get<std::string>();
  device.request_names = in.at("requestNames").get<std::vector<std::string>>();
  device.cdi_device_ids = in.at("cdiDeviceIDs").get<std::vector<std::string>>();
  if (in.contains("shareID"))
    device.share_id = in["shareID"].get<std::string>();
  return device;
}

ClaimInfo ClaimFromJson(const json& in) {
  ClaimInfo claim;
  claim.uid = in.at("uid").get<std::string>();
  claim.namespace_ = in.at("namespace").get<std::string>();
  claim.name = in.at("name").get<std::string>();
  for (const auto& [name, state] : in.at("drivers").items()) {
    DriverClaimState& out = claim.drivers[name];
    const std::string word = state.at("state").get<std::string>();
    if (word != "prepared" && word != "preparing") {
      throw std::invalid_argument("drivers." + name + ".state: \"" + word +
                                  "\" is neither prepared nor preparing");
    }
    out.prepared = word == "prepared";
    for (const auto& device : state.at("devices")) {
      out.devices.push_back(DeviceFromJson(device));
    }
  }
  claim.pod_uids = in.at("podUIDs").get<std::set<std::string>>();
  return claim;
}

Status Errno(const std::string& what, const std::string& path) {
  return InternalError("checkpoint " + path + ": " + what + ": " +
                       std::strerror(errno));
}

Status SyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("open", path);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Errno("fsync", path);
  return OkStatus();
}

Status WriteFileDurably(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("open", path);
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return Errno("write", path);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return Errno("fsync", path);
  }
  ::close(fd);
  return OkStatus();
}

}  // namespace

Checkpoint::Checkpoint(std::string state_dir)
    : dir_(std::move(state_dir)), path_(dir_ + "/" + kCheckpointFileName) {}

std::string Checkpoint::Encode(const std::vector<ClaimInfo>& claims) {
  json list = json::array();
  for (const ClaimInfo& claim : claims) list.push_back(ClaimToJson(claim));
  const std::string claims_text = list.dump();
  // Keys in this order on purpose: the checksum covers the claims text.
  return fmt::format(R"({{"version":"{}","claims":{},"checksum":"{}"}})",
                     kVersion, claims_text, Checksum(claims_text)) +
         "\n";
}

StatusOr<std::vector<ClaimInfo>> Checkpoint::Decode(const std::string& text,
                                                    const std::string& source) {
  auto corrupt = [&](const std::string& why) {
    return DataLossError("checkpoint " + source + " is corrupt: " + why +
                         " (refusing to start: claims recorded there may be "
                         "prepared; repair or remove it after unpreparing "
                         "them by hand)");
  };
  try {
    json document = json::parse(text);
    if (!document.is_object()) return corrupt("not a JSON object");
    if (document.value("version", "") != kVersion) {
      return corrupt("version: Unsupported value: " +
                     document.value("version", json("")).dump());
    }
    const json& claims = document.at("claims");
    if (!claims.is_array()) return corrupt("claims: must be a list");
    const std::string want = document.at("checksum").get<std::string>();
    if (Checksum(claims.dump()) != want) {
      return corrupt("checksum does not match its contents");
    }
    std::vector<ClaimInfo> out;
    for (size_t i = 0; i < claims.size(); ++i) {
      try {
        out.push_back(ClaimFromJson(claims[i]));
      } catch (const std::exception& e) {
        return corrupt("claims[" + std::to_string(i) + "]: " + e.what());
      }
    }
    return out;
  } catch (const std::exception& e) {
    return corrupt(e.what());
  }
}

StatusOr<std::vector<ClaimInfo>> Checkpoint::Load() const {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return std::vector<ClaimInfo>{};
  const auto size = std::filesystem::file_size(path_, ec);
  if (ec) return InternalError("checkpoint " + path_ + ": " + ec.message());
  if (size > kMaxCheckpointBytes) {
    return DataLossError("checkpoint " + path_ + " is corrupt: " +
                         std::to_string(size) + " bytes is more than the " +
                         std::to_string(kMaxCheckpointBytes) + " allowed");
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) return InternalError("checkpoint " + path_ + ": cannot read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return Decode(buffer.str(), path_);
}

Status Checkpoint::Save(const std::vector<ClaimInfo>& claims) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return InternalError("state dir " + dir_ + ": " + ec.message());
  const std::string temp = path_ + ".tmp";
  RETURN_IF_ERROR(WriteFileDurably(temp, Encode(claims)));
  if (::rename(temp.c_str(), path_.c_str()) != 0) return Errno("rename", temp);
  return SyncPath(dir_, O_RDONLY | O_DIRECTORY);
}

}  // namespace dralloc::node
