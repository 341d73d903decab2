#include "pki/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dralloc::pki {
namespace {

Status ErrnoError(std::string_view what, const std::string& path) {
  return Status(StatusCode::kFailedPrecondition,
                fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

Status WriteAll(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("writing", path);
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  return Status();
}

// Moves `temporary` to `path`; without `overwrite` through link(), which
// fails rather than replace a file created since the caller looked.
Status Publish(const std::string& temporary, const std::string& path,
               bool overwrite) {
  if (overwrite) {
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
      return ErrnoError("renaming to", path);
    }
    return Status();
  }
  if (::link(temporary.c_str(), path.c_str()) != 0) {
    if (errno == EEXIST) {
      return AlreadyExistsError(
          fmt::format("{} already exists (use --force to replace it)", path));
    }
    return ErrnoError("creating", path);
  }
  return Status();
}

}  // namespace

Status WriteOutputFile(const std::string& path, std::string_view content,
                       mode_t mode, bool overwrite) {
  struct stat existing;
  if (!overwrite && ::lstat(path.c_str(), &existing) == 0) {
    return AlreadyExistsError(
        fmt::format("{} already exists (use --force to replace it)", path));
  }
  const std::string temporary = path + ".tmp";
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("creating", temporary);
  Status status = WriteAll(fd, content, temporary);
  if (status.ok() && ::fchmod(fd, mode) != 0) {
    status = ErrnoError("setting the mode of", temporary);
  }
  if (status.ok() && ::fsync(fd) != 0)
    status = ErrnoError("syncing", temporary);
  ::close(fd);
  if (status.ok()) status = Publish(temporary, path, overwrite);
  ::unlink(temporary.c_str());
  return status;
}

StatusOr<std::string> ReadInputFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("cannot read {}", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace dralloc::pki
