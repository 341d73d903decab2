#include "exampledriver/claim_spec_files.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "cdi/spec_validator.h"
#include "cdi/spec_writer.h"
#include "common/log.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;

constexpr char kComponent[] = "exampledriver";

// The file's text, or empty when it cannot be read.
std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ClaimSpecFiles::ClaimSpecFiles(fs::path cdi_dir, std::string kind)
    : cdi_dir_(std::move(cdi_dir)),
      file_prefix_(cdi::TransientSpecFileName(kind, "").substr(
          0, cdi::TransientSpecFileName(kind, "").size() - 5)) {}

fs::path ClaimSpecFiles::PathOf(const std::string& claim_uid) const {
  std::string id = claim_uid;
  std::ranges::replace(id, '/', '_');
  return cdi_dir_ / (file_prefix_ + id + ".json");
}

fs::path ClaimSpecFiles::CommonPath() const { return PathOf("common"); }

StatusOr<std::string> ClaimSpecFiles::Render(
    const cdi::Spec& spec, const std::string& claim_uid) const {
  cdi::Spec versioned = spec;
  if (versioned.cdi_version.empty()) {
    versioned.cdi_version = cdi::MinimumRequiredVersion(versioned);
  }
  if (Status valid = cdi::ValidateSpec(versioned); !valid.ok()) {
    return InvalidArgumentError("cdi spec " + PathOf(claim_uid).string() +
                                ": " + valid.message());
  }
  return cdi::FormatSpecJson(versioned) + "\n";
}

Status ClaimSpecFiles::Write(const std::string& claim_uid,
                             const std::string& text) const {
  const fs::path file = PathOf(claim_uid);
  // A leading '.' and a suffix other than .json keep CDI scanners away.
  std::string temporary =
      (cdi_dir_ / ("." + file.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  auto fail = [&](const char* step) {
    const std::string error = std::strerror(errno);
    return InternalError("cdi spec " + file.string() + ": " + step + ": " +
                         error);
  };
  if (fd < 0) return fail("create temporary file");
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status failed = fail("write");
      ::close(fd);
      ::unlink(temporary.c_str());
      return failed;
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0 ||
      ::rename(temporary.c_str(), file.c_str()) != 0) {
    Status failed = fail("write");
    ::unlink(temporary.c_str());
    return failed;
  }
  return OkStatus();
}

Status ClaimSpecFiles::Remove(const std::string& claim_uid) const {
  const fs::path file = PathOf(claim_uid);
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    return InternalError("removing CDI spec " + file.string() + ": " +
                         std::strerror(errno));
  }
  return OkStatus();
}

Status ClaimSpecFiles::Reconcile(const PreparedClaims& claims) const {
  std::set<std::string> owned = {CommonPath().filename().string()};
  for (const auto& [uid, claim] : claims) {
    const fs::path file = PathOf(uid);
    owned.insert(file.filename().string());
    if (claim.cdi_spec.empty()) {
      if (!fs::exists(file)) {
        log::Warn(kComponent,
                  "cdi spec {} of prepared claim {}/{} is missing "
                  "and was not recorded (an older checkpoint)",
                  file.string(), claim.namespace_, claim.name);
      }
      continue;
    }
    if (ReadText(file) == claim.cdi_spec) continue;
    log::Info(kComponent, "restoring cdi spec {}", file.string());
    RETURN_IF_ERROR(Write(uid, claim.cdi_spec));
  }
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(cdi_dir_)) {
      const std::string name = entry.path().filename().string();
      const bool ours = name.starts_with(file_prefix_) ||
                        name.starts_with("." + file_prefix_);
      if (!ours || owned.contains(name)) continue;
      log::Info(kComponent, "removing cdi spec {}: no prepared claim owns it",
                entry.path().string());
      std::error_code ignored;  // gone already, or retried next start
      fs::remove(entry.path(), ignored);
    }
  } catch (const fs::filesystem_error& e) {
    return InternalError("cdi dir " + cdi_dir_.string() + ": " +
                         e.code().message());
  }
  return OkStatus();
}

}  // namespace dralloc::exampledriver
