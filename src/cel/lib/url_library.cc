#include "cel/lib/url_library.h"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/lib/kubernetes_library_util.h"

namespace dralloc::cel {
namespace {

using k8s_internal::ArgTraversalCost;
using k8s_internal::GoQuote;
using k8s_internal::kStringTraversalCostFactor;
using k8s_internal::MakeOverload;
using k8s_internal::ScaleEstimate;

// The URL parts Go escapes differently.
enum class Part {
  kPath,
  kPathSegment,
  kHost,
  kZone,
  kUserPassword,
  kQueryComponent,
  kFragment,
};

bool IsAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

unsigned char Unhex(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned char>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned char>(c - 'a' + 10);
  return static_cast<unsigned char>(c - 'A' + 10);
}

// Whether `c` is one of `set`.
bool In(std::string_view set, unsigned char c) {
  return c != 0 && set.find(static_cast<char>(c)) != std::string_view::npos;
}

// Go's shouldEscape: whether byte `c` must be %-escaped in `part`.
bool ShouldEscape(unsigned char c, Part part) {
  if (IsAlnum(c)) return false;
  // Hosts keep sub-delims, ':' (port), '[' ']' (IPv6) and '<' '>' '"'.
  if ((part == Part::kHost || part == Part::kZone) &&
      In("!$&'()*+,;=:[]<>\"", c)) {
    return false;
  }
  if (In("-_.~", c)) return false;  // unreserved
  if (In("$&+,/:;=?@", c)) {        // reserved
    switch (part) {
      case Part::kPath:
        return c == '?';
      case Part::kPathSegment:
        return In("/;,?", c);
      case Part::kUserPassword:
        return In("@/?:", c);
      case Part::kQueryComponent:
        return true;
      case Part::kFragment:
        return false;
      default:
        return true;
    }
  }
  if (part == Part::kFragment && In("!()*", c)) return false;
  return true;
}

Status EscapeError(std::string_view s) {
  return InvalidArgumentError("invalid URL escape " + GoQuote(s));
}

// Go's unescape.
StatusOr<std::string> Unescape(std::string_view s, Part part) {
  size_t n = 0;
  bool has_plus = false;
  for (size_t i = 0; i < s.size();) {
    switch (s[i]) {
      case '%': {
        ++n;
        if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
          return EscapeError(s.substr(i, 3));
        }
        const std::string_view escape = s.substr(i, 3);
        // In a host, %-escapes are only for non-ASCII bytes (and RFC 6874's
        // %25 in IPv6 zones).
        if (part == Part::kHost && Unhex(s[i + 1]) < 8 && escape != "%25") {
          return EscapeError(escape);
        }
        if (part == Part::kZone) {
          const unsigned char v = static_cast<unsigned char>(
              Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
          if (escape != "%25" && v != ' ' && ShouldEscape(v, Part::kHost)) {
            return EscapeError(escape);
          }
        }
        i += 3;
        break;
      }
      case '+':
        has_plus = part == Part::kQueryComponent;
        ++i;
        break;
      default: {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((part == Part::kHost || part == Part::kZone) && c < 0x80 &&
            ShouldEscape(c, part)) {
          return InvalidArgumentError(
              "invalid character " + GoQuote(s.substr(i, 1)) + " in host name");
        }
        ++i;
      }
    }
  }
  if (n == 0 && !has_plus) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out += static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+') {
      out += part == Part::kQueryComponent ? ' ' : '+';
    } else {
      out += s[i];
    }
  }
  return out;
}

// Go's escape.
std::string Escape(std::string_view s, Part part) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' && part == Part::kQueryComponent) {
      out += '+';
    } else if (ShouldEscape(c, part)) {
      out += '%';
      out += kUpperHex[c >> 4];
      out += kUpperHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

// Go's validEncoded: `s` needs no further escaping.
bool ValidEncoded(std::string_view s, Part part) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (In("!$&'()*+,;=:@[]%", c)) continue;
    if (ShouldEscape(c, part)) return false;
  }
  return true;
}

// "" or ":" followed by digits.
bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ValidUserinfo(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    // Every non-ASCII byte is invalid.
    if (!IsAlnum(c) && !In("-._:~!$&'()*+,;=%@", c)) return false;
  }
  return true;
}

bool ContainsCtlByte(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < ' ' || c == 0x7F) return true;
  }
  return false;
}

// Splits off a leading "scheme:" (scheme = [A-Za-z][A-Za-z0-9+-.]*).
Status GetScheme(std::string_view raw, std::string_view* scheme,
                 std::string_view* rest) {
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) return InvalidArgumentError("missing protocol scheme");
      *scheme = raw.substr(0, i);
      *rest = raw.substr(i + 1);
      return OkStatus();
    }
    break;  // not a scheme
  }
  *scheme = {};
  *rest = raw;
  return OkStatus();
}

StatusOr<std::string> ParseHost(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    // An IP-literal (RFC 3986, RFC 6874): "[fe80::1%25en0]:80".
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      return InvalidArgumentError("missing ']' in host");
    }
    const std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      return InvalidArgumentError("invalid port " + GoQuote(colon_port) +
                                  " after host");
    }
    const size_t zone = host.substr(0, close).find("%25");
    if (zone != std::string_view::npos) {
      StatusOr<std::string> h1 = Unescape(host.substr(0, zone), Part::kHost);
      if (!h1.ok()) return h1;
      StatusOr<std::string> h2 =
          Unescape(host.substr(zone, close - zone), Part::kZone);
      if (!h2.ok()) return h2;
      StatusOr<std::string> h3 = Unescape(host.substr(close), Part::kHost);
      if (!h3.ok()) return h3;
      return *h1 + *h2 + *h3;
    }
  } else if (const size_t colon = host.rfind(':');
             colon != std::string_view::npos) {
    const std::string_view colon_port = host.substr(colon);
    if (!ValidOptionalPort(colon_port)) {
      return InvalidArgumentError("invalid port " + GoQuote(colon_port) +
                                  " after host");
    }
  }
  return Unescape(host, Part::kHost);
}

Status ParseAuthority(std::string_view authority, GoUrl* url) {
  const size_t at = authority.rfind('@');
  StatusOr<std::string> host = ParseHost(
      at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (!host.ok()) return host.status();
  url->host = std::move(*host);
  if (at == std::string_view::npos) return OkStatus();
  const std::string_view userinfo = authority.substr(0, at);
  if (!ValidUserinfo(userinfo)) {
    return InvalidArgumentError("net/url: invalid userinfo");
  }
  url->has_user = true;
  const size_t colon = userinfo.find(':');
  StatusOr<std::string> user =
      Unescape(userinfo.substr(0, colon), Part::kUserPassword);
  if (!user.ok()) return user.status();
  url->username = std::move(*user);
  if (colon != std::string_view::npos) {
    StatusOr<std::string> pass =
        Unescape(userinfo.substr(colon + 1), Part::kUserPassword);
    if (!pass.ok()) return pass.status();
    url->password = std::move(*pass);
    url->password_set = true;
  }
  return OkStatus();
}

Status SetPath(std::string_view p, GoUrl* url) {
  StatusOr<std::string> path = Unescape(p, Part::kPath);
  if (!path.ok()) return path.status();
  url->path = std::move(*path);
  url->raw_path = Escape(url->path, Part::kPath) == p ? "" : std::string(p);
  return OkStatus();
}

Status SetFragment(std::string_view f, GoUrl* url) {
  StatusOr<std::string> frag = Unescape(f, Part::kFragment);
  if (!frag.ok()) return frag.status();
  url->fragment = std::move(*frag);
  url->raw_fragment =
      Escape(url->fragment, Part::kFragment) == f ? "" : std::string(f);
  return OkStatus();
}

// Go's parse(rawURL, viaRequest).
StatusOr<GoUrl> ParseInternal(std::string_view raw, bool via_request) {
  if (ContainsCtlByte(raw)) {
    return InvalidArgumentError("net/url: invalid control character in URL");
  }
  if (raw.empty() && via_request) return InvalidArgumentError("empty url");
  GoUrl url;
  if (raw == "*") {
    url.path = "*";
    return url;
  }
  std::string_view scheme;
  std::string_view rest;
  Status st = GetScheme(raw, &scheme, &rest);
  if (!st.ok()) return st;
  url.scheme = std::string(scheme);
  for (char& c : url.scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t question = rest.find('?');
  if (!rest.empty() && rest.back() == '?' && question == rest.size() - 1) {
    url.force_query = true;
    rest.remove_suffix(1);
  } else if (question != std::string_view::npos) {
    url.raw_query = std::string(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  if (rest.empty() || rest[0] != '/') {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);  // rootless paths are opaque
      return url;
    }
    if (via_request) return InvalidArgumentError("invalid URI for request");
    const std::string_view segment = rest.substr(0, rest.find('/'));
    if (segment.find(':') != std::string_view::npos) {
      return InvalidArgumentError(
          "first path segment in URL cannot contain colon");
    }
  }
  const bool has_authority =
      (!url.scheme.empty() || (!via_request && !rest.starts_with("///"))) &&
      rest.starts_with("//");
  if (has_authority) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t slash = authority.find('/');
        slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    st = ParseAuthority(authority, &url);
    if (!st.ok()) return st;
  } else if (!url.scheme.empty() && rest.starts_with("/")) {
    url.omit_host = true;
  }
  st = SetPath(rest, &url);
  if (!st.ok()) return st;
  return url;
}

Status UrlError(std::string_view raw, const Status& cause) {
  return InvalidArgumentError("parse " + GoQuote(raw) + ": " + cause.message());
}

std::string UserinfoString(const GoUrl& u) {
  std::string s = Escape(u.username, Part::kUserPassword);
  if (u.password_set) s += ":" + Escape(u.password, Part::kUserPassword);
  return s;
}

std::pair<std::string_view, std::string_view> SplitHostPort(
    std::string_view host_port) {
  std::string_view host = host_port;
  std::string_view port;
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos &&
      ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, port};
}

// ---- costs ----

uint64_t ParseCost(std::span<const Value> args, const Value&) {
  return ArgTraversalCost(args, 0);
}
CostEstimate ParseEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], kStringTraversalCostFactor);
}
SizeEstimate ParseSize(std::span<const SizeEstimate> args) { return args[0]; }

// ---- implementations ----

Value StringToUrl(const CallContext&, std::span<const Value> args) {
  StatusOr<GoUrl> url = ParseUrlForCel(args[0].string_view());
  if (!url.ok()) return Value::Error(url.status().message());
  return Value::Opaque(new UrlValue(std::move(*url)));
}

Value IsUrl(const CallContext&, std::span<const Value> args) {
  return Value::Bool(GoUrl::ParseRequestUri(args[0].string_view()).ok());
}

template <typename Fn>
Value Getter(std::span<const Value> args, std::string_view function, Fn fn) {
  const GoUrl* url = AsUrl(args[0]);
  if (url == nullptr) return NoMatchingOverload(function);
  return Value::String(fn(*url));
}

Value GetScheme(const CallContext&, std::span<const Value> args) {
  return Getter(args, "getScheme", [](const GoUrl& u) { return u.scheme; });
}
Value GetHost(const CallContext&, std::span<const Value> args) {
  return Getter(args, "getHost", [](const GoUrl& u) { return u.host; });
}
Value GetHostname(const CallContext&, std::span<const Value> args) {
  return Getter(args, "getHostname",
                [](const GoUrl& u) { return u.Hostname(); });
}
Value GetPort(const CallContext&, std::span<const Value> args) {
  return Getter(args, "getPort", [](const GoUrl& u) { return u.Port(); });
}
Value GetEscapedPath(const CallContext&, std::span<const Value> args) {
  return Getter(args, "getEscapedPath",
                [](const GoUrl& u) { return u.EscapedPath(); });
}

Value GetQuery(const CallContext&, std::span<const Value> args) {
  const GoUrl* url = AsUrl(args[0]);
  if (url == nullptr) return NoMatchingOverload("getQuery");
  auto* map = new EntryMap();
  Value result = Value::Map(map);
  for (auto& [key, values] : url->Query()) {
    std::vector<Value> items;
    items.reserve(values.size());
    for (std::string& v : values) items.push_back(Value::String(std::move(v)));
    map->Insert(Value::String(key),
                Value::List(new VectorList(std::move(items))));
  }
  return result;
}

}  // namespace

// ---- GoUrl ----

StatusOr<GoUrl> GoUrl::ParseRequestUri(std::string_view raw) {
  StatusOr<GoUrl> url = ParseInternal(raw, /*via_request=*/true);
  if (!url.ok()) return UrlError(raw, url.status());
  return url;
}

StatusOr<GoUrl> GoUrl::Parse(std::string_view raw) {
  const size_t hash = raw.find('#');
  const std::string_view before = raw.substr(0, hash);
  StatusOr<GoUrl> url = ParseInternal(before, /*via_request=*/false);
  if (!url.ok()) return UrlError(before, url.status());
  if (hash == std::string_view::npos || hash + 1 == raw.size()) return url;
  Status st = SetFragment(raw.substr(hash + 1), &*url);
  if (!st.ok()) return UrlError(raw, st);
  return url;
}

std::string GoUrl::EscapedPath() const {
  if (!raw_path.empty() && ValidEncoded(raw_path, Part::kPath)) {
    StatusOr<std::string> p = Unescape(raw_path, Part::kPath);
    if (p.ok() && *p == path) return raw_path;
  }
  if (path == "*") return "*";
  return Escape(path, Part::kPath);
}

std::string GoUrl::ToString() const {
  std::string buf;
  if (!scheme.empty()) {
    buf += scheme;
    buf += ':';
  }
  if (!opaque.empty()) {
    buf += opaque;
  } else {
    if (!scheme.empty() || !host.empty() || has_user) {
      if (!(omit_host && host.empty() && !has_user)) {
        if (!host.empty() || !path.empty() || has_user) buf += "//";
        if (has_user) {
          buf += UserinfoString(*this);
          buf += '@';
        }
        if (!host.empty()) buf += Escape(host, Part::kHost);
      }
    }
    const std::string p = EscapedPath();
    if (!p.empty() && p[0] != '/' && !host.empty()) buf += '/';
    if (buf.empty()) {
      // A first segment with a colon would read as a scheme.
      const std::string_view segment =
          std::string_view(p).substr(0, p.find('/'));
      if (segment.find(':') != std::string_view::npos) buf += "./";
    }
    buf += p;
  }
  if (force_query || !raw_query.empty()) {
    buf += '?';
    buf += raw_query;
  }
  if (!fragment.empty()) {
    buf += '#';
    if (!raw_fragment.empty() && ValidEncoded(raw_fragment, Part::kFragment)) {
      StatusOr<std::string> f = Unescape(raw_fragment, Part::kFragment);
      if (f.ok() && *f == fragment) {
        buf += raw_fragment;
        return buf;
      }
    }
    buf += Escape(fragment, Part::kFragment);
  }
  return buf;
}

std::string GoUrl::Hostname() const {
  return std::string(SplitHostPort(host).first);
}

std::string GoUrl::Port() const {
  return std::string(SplitHostPort(host).second);
}

std::vector<std::pair<std::string, std::vector<std::string>>> GoUrl::Query()
    const {
  std::vector<std::pair<std::string, std::vector<std::string>>> result;
  std::string_view query = raw_query;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos) continue;  // invalid
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    StatusOr<std::string> key =
        Unescape(pair.substr(0, eq), Part::kQueryComponent);
    if (!key.ok()) continue;
    StatusOr<std::string> value = Unescape(
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
        Part::kQueryComponent);
    if (!value.ok()) continue;
    auto it = result.begin();
    while (it != result.end() && it->first != *key) ++it;
    if (it == result.end()) {
      result.emplace_back(std::move(*key), std::vector<std::string>{});
      it = result.end() - 1;
    }
    it->second.push_back(std::move(*value));
  }
  return result;
}

StatusOr<GoUrl> ParseUrlForCel(std::string_view text) {
  static constexpr std::string_view kPrefix =
      "URL parse error during conversion from string: ";
  // ParseRequestURI decides validity; Parse then splits off the fragment,
  // which ParseRequestURI would leave in the path or query.
  StatusOr<GoUrl> check = GoUrl::ParseRequestUri(text);
  if (!check.ok()) {
    return InvalidArgumentError(std::string(kPrefix) +
                                check.status().message());
  }
  StatusOr<GoUrl> url = GoUrl::Parse(text);
  if (!url.ok()) {
    return InvalidArgumentError(std::string(kPrefix) + url.status().message());
  }
  return url;
}

bool UrlValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kUrlTypeName) return false;
  return url_.ToString() == static_cast<const UrlValue&>(other).url_.ToString();
}

Type UrlType() { return Type::Opaque(kUrlTypeName); }

const GoUrl* AsUrl(const Value& v) {
  const OpaqueValue* o = k8s_internal::OpaqueOf(v, kUrlTypeName);
  if (o == nullptr) return nullptr;
  return &static_cast<const UrlValue*>(o)->url();
}

void RegisterUrlLibrary(FunctionRegistry& registry) {
  const Type u = UrlType();
  const Type s = Type::String();

  Overload parse = MakeOverload("string_to_url", "url", false, {s}, u,
                                &StringToUrl, &ParseCost, &ParseEstimate);
  parse.estimate_size = &ParseSize;
  registry.Add(std::move(parse));
  // Upstream's cost estimator has no case for isURL: it costs 1.
  registry.Add(
      MakeOverload("is_url_string", "isURL", false, {s}, Type::Bool(), &IsUrl));
  registry.Add(
      MakeOverload("url_get_scheme", "getScheme", true, {u}, s, &GetScheme));
  registry.Add(MakeOverload("url_get_host", "getHost", true, {u}, s, &GetHost));
  registry.Add(MakeOverload("url_get_hostname", "getHostname", true, {u}, s,
                            &GetHostname));
  registry.Add(MakeOverload("url_get_port", "getPort", true, {u}, s, &GetPort));
  registry.Add(MakeOverload("url_get_escaped_path", "getEscapedPath", true, {u},
                            s, &GetEscapedPath));
  registry.Add(MakeOverload("url_get_query", "getQuery", true, {u},
                            Type::Map(s, Type::List(s)), &GetQuery));
}

}  // namespace dralloc::cel
