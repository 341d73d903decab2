// TempDir for the cdi tests: a fresh directory under the system temp dir,
// removed with everything in it when the object goes away.
#ifndef DRALLOC_CDI_TEMP_DIR_TEST_UTIL_H_
#define DRALLOC_CDI_TEMP_DIR_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace dralloc::cdi {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "dralloc-cdi-XXXXXX")
            .string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_TEMP_DIR_TEST_UTIL_H_
