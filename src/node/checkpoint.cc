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

#include "api/well_known.h"

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
    // Written only when set, so checkpoints without skips read as before.
    json skipped = json::array();
    if (state.skip_prepare) skipped.push_back(api::kSkipNodePrepare);
    if (state.skip_unprepare) skipped.push_back(api::kSkipNodeUnprepare);
    if (!skipped.empty()) drivers[name]["skip"] = std::move(skipped);
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
    // Older checkpoints have no "skip": nothing skipped. Unknown words are
    // ignored, as the kubelet ignores operations it does not know.
    for (const auto& word : state.value("skip", json::array())) {
      if (word == api::kSkipNodePrepare) out.skip_prepare = true;
      if (word == api::kSkipNodeUnprepare) out.skip_unprepare = true;
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

namespace {

// The text of `path`; "" when it does not exist. Larger than the limit is
// kDataLoss: such a file is not ours.
StatusOr<std::string> ReadStateFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::string();
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return InternalError("checkpoint " + path + ": " + ec.message());
  if (size > kMaxCheckpointBytes) {
    return DataLossError("checkpoint " + path + " is corrupt: " +
                         std::to_string(size) + " bytes is more than the " +
                         std::to_string(kMaxCheckpointBytes) + " allowed");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InternalError("checkpoint " + path + ": cannot read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string JournalLine(const std::string& record) {
  return Checksum(record) + " " + record + "\n";
}

// Applies one journal record (its JSON text); false when it does not parse.
bool ApplyRecord(const std::string& record,
                 std::map<std::string, ClaimInfo>& claims) {
  try {
    json parsed = json::parse(record);
    if (parsed.contains("put")) {
      ClaimInfo claim = ClaimFromJson(parsed.at("put"));
      std::string uid = claim.uid;
      claims[uid] = std::move(claim);
      return true;
    }
    if (parsed.contains("delete")) {
      claims.erase(parsed.at("delete").get<std::string>());
      return true;
    }
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace

std::string Checkpoint::EncodePut(const ClaimInfo& claim) {
  return JournalLine(json{{"put", ClaimToJson(claim)}}.dump());
}

std::string Checkpoint::EncodeDelete(const std::string& uid) {
  return JournalLine(json{{"delete", uid}}.dump());
}

Status Checkpoint::Replay(const std::string& text, const std::string& source,
                          std::map<std::string, ClaimInfo>& claims) {
  size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    const size_t end = text.find('\n', start);
    const bool last = end == std::string::npos || end + 1 == text.size();
    const std::string entry = text.substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    const size_t space = entry.find(' ');
    const bool intact = end != std::string::npos && space == 16 &&
                        Checksum(entry.substr(17)) == entry.substr(0, 16);
    if (intact && ApplyRecord(entry.substr(17), claims)) continue;
    // A crash while appending leaves at most the last line torn.
    if (last && !intact) return OkStatus();
    return DataLossError(
        "checkpoint journal " + source + " is corrupt: line " +
        std::to_string(line) +
        (intact ? ": not a put or delete record"
                : ": checksum does not match") +
        " (refusing to start: claims recorded there may be prepared; repair "
        "or remove it after unpreparing them by hand)");
  }
  return OkStatus();
}

StatusOr<std::vector<ClaimInfo>> Checkpoint::Load() const {
  ASSIGN_OR_RETURN(std::string snapshot, ReadStateFile(path_));
  std::map<std::string, ClaimInfo> by_uid;
  if (!snapshot.empty()) {
    ASSIGN_OR_RETURN(std::vector<ClaimInfo> claims, Decode(snapshot, path_));
    for (ClaimInfo& claim : claims) {
      std::string uid = claim.uid;
      by_uid[uid] = std::move(claim);
    }
  }
  const std::string journal = journal_path();
  ASSIGN_OR_RETURN(std::string changes, ReadStateFile(journal));
  RETURN_IF_ERROR(Replay(changes, journal, by_uid));
  std::vector<ClaimInfo> out;
  out.reserve(by_uid.size());
  for (auto& [uid, claim] : by_uid) out.push_back(std::move(claim));
  return out;
}

Status Checkpoint::CreateDir() const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return InternalError("state dir " + dir_ + ": " + ec.message());
  return OkStatus();
}

StatusOr<size_t> Checkpoint::Save(const std::vector<ClaimInfo>& claims) const {
  RETURN_IF_ERROR(CreateDir());
  const std::string temp = path_ + ".tmp";
  const std::string text = Encode(claims);
  RETURN_IF_ERROR(WriteFileDurably(temp, text));
  if (::rename(temp.c_str(), path_.c_str()) != 0) return Errno("rename", temp);
  RETURN_IF_ERROR(SyncPath(dir_, O_RDONLY | O_DIRECTORY));
  return text.size();
}

}  // namespace dralloc::node
