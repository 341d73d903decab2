#include "pki/openssl_handles.h"

#include <openssl/err.h>

namespace dralloc::pki {

BioPtr ReadOnlyBio(std::string_view data) {
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string BioContents(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  if (size <= 0 || data == nullptr) return {};
  return std::string(data, static_cast<size_t>(size));
}

std::string OpenSslError(std::string_view what) {
  std::string message(what);
  bool first = true;
  while (const unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof(buffer));
    message += first ? ": " : "; ";
    message += buffer;
    first = false;
  }
  return message;
}

}  // namespace dralloc::pki
