#include "auth/token_file_authenticator.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "auth/csv_reader.h"

namespace dralloc::auth {
namespace {

// strings.Split(text, ","): every comma splits, "" is one empty part.
std::vector<std::string> SplitGroups(const std::string& text) {
  std::vector<std::string> groups;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    if (comma == std::string::npos) {
      groups.push_back(text.substr(start));
      return groups;
    }
    groups.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

StatusOr<std::unique_ptr<TokenFileAuthenticator>>
TokenFileAuthenticator::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError(
        fmt::format("--token-auth-file: cannot read {}", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return FromCsv(text.str(), path);
}

StatusOr<std::unique_ptr<TokenFileAuthenticator>>
TokenFileAuthenticator::FromCsv(std::string_view text,
                                std::string_view source) {
  std::unique_ptr<TokenFileAuthenticator> result(new TokenFileAuthenticator);
  CsvReader reader(text, source);
  while (true) {
    ASSIGN_OR_RETURN(std::optional<CsvRecord> record, reader.Next());
    if (!record) break;
    const std::vector<std::string>& fields = record->fields;
    if (fields.size() < 3) {
      return InvalidArgumentError(fmt::format(
          "{}:{}: token file must have at least 3 columns (token, user "
          "name, user uid), found {}",
          source, record->line, fields.size()));
    }
    if (fields[0].empty()) {
      result->warnings_.push_back(fmt::format(
          "{}:{}: empty token, record skipped", source, record->line));
      continue;
    }
    UserInfo user{
        .name = fields[1], .uid = fields[2], .groups = {}, .extra = {}};
    if (fields.size() >= 4) user.groups = SplitGroups(fields[3]);
    const bool duplicate =
        !result->users_.insert_or_assign(fields[0], std::move(user)).second;
    if (duplicate) {
      result->warnings_.push_back(
          fmt::format("{}:{}: duplicate token, this record replaces the "
                      "earlier one",
                      source, record->line));
    }
  }
  return result;
}

AuthenticationResult TokenFileAuthenticator::Authenticate(
    const Credentials& credentials) const {
  if (credentials.bearer_token.empty()) return AuthenticationResult();
  const auto it = users_.find(credentials.bearer_token);
  if (it == users_.end()) {
    return AuthenticationResult::Rejected("invalid bearer token");
  }
  return AuthenticationResult::Authenticated(it->second);
}

}  // namespace dralloc::auth
