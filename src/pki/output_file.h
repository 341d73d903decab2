// WriteOutputFile: writes one generated file (a key, a certificate, a
// kubeconfig) with the permissions it needs, never clobbering a file the
// user did not ask to replace.
#ifndef DRALLOC_PKI_OUTPUT_FILE_H_
#define DRALLOC_PKI_OUTPUT_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::pki {

inline constexpr mode_t kSecretFileMode = 0600;  // keys, kubeconfigs
inline constexpr mode_t kPublicFileMode = 0644;  // certificates, public keys

// Writes `content` to `path` with `mode` (also when replacing a file of
// another mode). Without `overwrite` an existing `path` is kAlreadyExists
// naming it. The content goes to a temporary file beside `path` that is
// renamed over it, so a reader never sees half a key.
Status WriteOutputFile(const std::string& path, std::string_view content,
                       mode_t mode, bool overwrite);

// The whole content of `path`; kNotFound naming it.
StatusOr<std::string> ReadInputFile(const std::string& path);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_OUTPUT_FILE_H_
