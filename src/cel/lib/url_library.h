// Kubernetes' CEL URLs library (k8s.io/apiserver pkg/cel/library urls.go):
// the type kubernetes.URL and
//
//   url(string) -> URL        isURL(string) -> bool
//   u.getScheme() / getHost() / getHostname() / getPort() /
//     getEscapedPath() -> string
//   u.getQuery() -> map(string, list(string))
//
// A string is a URL when Go's url.ParseRequestURI accepts it (an absolute URI
// or an absolute path); the value is then what url.Parse makes of it. GoUrl
// reimplements the parts of Go's net/url these need, with Go's error texts.
#ifndef DRALLOC_CEL_LIB_URL_LIBRARY_H_
#define DRALLOC_CEL_LIB_URL_LIBRARY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/status.h"

namespace dralloc::cel {

// The fields of Go's url.URL.
struct GoUrl {
  std::string scheme;  // lower case
  std::string opaque;
  bool has_user = false;
  std::string username;
  std::string password;
  bool password_set = false;
  std::string host;  // host or host:port, unescaped
  std::string path;  // unescaped
  std::string raw_path;
  bool omit_host = false;
  bool force_query = false;
  std::string raw_query;
  std::string fragment;
  std::string raw_fragment;

  // url.ParseRequestURI: no fragment handling; relative references other
  // than absolute paths are errors.
  static StatusOr<GoUrl> ParseRequestUri(std::string_view raw);
  // url.Parse: splits off "#fragment" first; relative references allowed.
  static StatusOr<GoUrl> Parse(std::string_view raw);

  std::string ToString() const;     // URL.String()
  std::string EscapedPath() const;  // URL.EscapedPath()
  std::string Hostname() const;     // URL.Hostname()
  std::string Port() const;         // URL.Port()
  // url.ParseQuery(raw_query), dropping malformed pairs as URL.Query() does;
  // keys in order of first appearance.
  std::vector<std::pair<std::string, std::vector<std::string>>> Query() const;
};

// The parse behind url(): errors read
//   URL parse error during conversion from string: parse "x": <reason>
StatusOr<GoUrl> ParseUrlForCel(std::string_view text);

class UrlValue final : public OpaqueValue {
 public:
  explicit UrlValue(GoUrl url) : url_(std::move(url)) {}
  const GoUrl& url() const { return url_; }
  std::string_view TypeName() const override { return kUrlTypeName; }
  // Upstream compares URL.String() of both sides.
  bool Equals(const OpaqueValue& other) const override;
  std::string DebugString() const override { return url_.ToString(); }

 private:
  GoUrl url_;
};

Type UrlType();  // Type::Opaque("kubernetes.URL")
const GoUrl* AsUrl(const Value& v);

void RegisterUrlLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_URL_LIBRARY_H_
