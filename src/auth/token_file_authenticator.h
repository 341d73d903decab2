// TokenFileAuthenticator: static bearer tokens from a --token-auth-file
// (upstream's tokenfile authenticator wrapped in its bearertoken one).
#ifndef DRALLOC_AUTH_TOKEN_FILE_AUTHENTICATOR_H_
#define DRALLOC_AUTH_TOKEN_FILE_AUTHENTICATOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/authenticator.h"
#include "common/status.h"

namespace dralloc::auth {

// The file is CSV as Go's encoding/csv reads it with no header line:
// `token,user,uid[,"group1,group2"]`, further columns ignored. Fields may be
// quoted ("" is a quote inside quotes, quoted fields may span lines);
// empty lines are skipped; a bare quote inside an unquoted field, text
// after a closing quote and an unterminated quote are errors; so is a
// record of fewer than 3 columns. A record with an empty token is skipped
// with a warning; a token listed twice keeps its last record, with a
// warning. The groups column is split at every comma as upstream does
// (an empty column is one group named ""). Errors name `file:line`.
class TokenFileAuthenticator : public Authenticator {
 public:
  static StatusOr<std::unique_ptr<TokenFileAuthenticator>> FromFile(
      const std::string& path);
  // `source` names the text in errors and warnings.
  static StatusOr<std::unique_ptr<TokenFileAuthenticator>> FromCsv(
      std::string_view text, std::string_view source);

  // No bearer token: kNoCredentials. A token in the file: its user. Any
  // other token: kRejected "invalid bearer token" (upstream turns a token
  // nobody knows into that error). Tokens compare byte for byte.
  AuthenticationResult Authenticate(
      const Credentials& credentials) const override;

  // What the file had that upstream warns about (empty and duplicate
  // tokens), `file:line: ...`, for the caller to log.
  const std::vector<std::string>& warnings() const { return warnings_; }
  size_t size() const { return users_.size(); }

 private:
  TokenFileAuthenticator() = default;

  std::unordered_map<std::string, UserInfo> users_;
  std::vector<std::string> warnings_;
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_TOKEN_FILE_AUTHENTICATOR_H_
