// Tests of the Kubernetes url library (apiextensions-apiserver CEL validation
// cases and the library docs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/kubernetes_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

// ---------------------------------------------------------------- url

TEST(KubernetesUrlTest, ApiExtensionsCases) {
  RunCases({
      {"url('/path').getScheme() == ''", B(true)},
      {"url('https://example.com/').getScheme() == 'https'", B(true)},
      {"url('https://example.com:80/').getHost() == 'example.com:80'", B(true)},
      {"url('https://example.com/').getHost() == 'example.com'", B(true)},
      {"url('https://[::1]:80/').getHost() == '[::1]:80'", B(true)},
      {"url('https://[::1]/').getHost() == '[::1]'", B(true)},
      {"url('/path').getHost() == ''", B(true)},
      {"url('https://example.com:80/').getHostname() == 'example.com'",
       B(true)},
      {"url('https://127.0.0.1/').getHostname() == '127.0.0.1'", B(true)},
      {"url('https://[::1]/').getHostname() == '::1'", B(true)},
      {"url('/path').getHostname() == ''", B(true)},
      {"url('https://example.com:80/').getPort() == '80'", B(true)},
      {"url('https://example.com/').getPort() == ''", B(true)},
      {"url('/path').getPort() == ''", B(true)},
      {"url('https://example.com/path').getEscapedPath() == '/path'", B(true)},
      {"url('https://example.com/with space/').getEscapedPath() == "
       "'/with%20space/'",
       B(true)},
      {"url('https://example.com').getEscapedPath() == ''", B(true)},
      {"url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': "
       "['a'], 'k2': ['b', 'c']}",
       B(true)},
      {"url('https://example.com/path?key with spaces=value with "
       "spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
       B(true)},
      {"url('https://example.com/path?').getQuery() == {}", B(true)},
      {"url('https://example.com/path').getQuery() == {}", B(true)},
      {"isURL('https://user:pass@example.com:80/path?query=val#fragment')",
       B(true)},
      {"isURL('/path') == true", B(true)},
      {"isURL('https://a:b:c/') == false", B(true)},
      {"isURL('../relative-path') == false", B(true)},
  });
  const std::string u =
      "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c"
      "#anchor')";
  RunCases({
      {u + ".getScheme()", S("https")},
      {u + ".getHost()", S("kubernetes.io:80")},
      {u + ".getHostname()", S("kubernetes.io")},
      {u + ".getPort()", S("80")},
      {u + ".getEscapedPath()", S("/docs/home")},
      {u + ".getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}", B(true)},
  });
}

TEST(KubernetesUrlTest, ErrorsAndEquality) {
  RunCases({
      {"url('https://a:b:c/')",
       {},
       R"(URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host)"},
      {"url('../relative-path')",
       {},
       R"(URL parse error during conversion from string: parse "../relative-path": invalid URI for request)"},
      {"url('')",
       {},
       R"(URL parse error during conversion from string: parse "": empty url)"},
      {"url('://x')",
       {},
       R"(URL parse error during conversion from string: parse "://x": missing protocol scheme)"},
      {"url('http://[::1/')",
       {},
       R"(URL parse error during conversion from string: parse "http://[::1/": missing ']' in host)"},
      {"url('http://a b/')",
       {},
       R"(URL parse error during conversion from string: parse "http://a b/": invalid character " " in host name)"},
      {"url('/a%zz')",
       {},
       R"(URL parse error during conversion from string: parse "/a%zz": invalid URL escape "%zz")"},
      {"url('http://x/\\x01')",
       {},
       R"(URL parse error during conversion from string: parse "http://x/\x01": net/url: invalid control character in URL)"},
      {"url('https://example.com/a b') == url('https://example.com/a%20b')",
       B(true)},
      {"url('https://example.com/') == url('https://example.com')", B(false)},
      {"url('https://example.com/#x') == url('https://example.com/#y')",
       B(false)},
      {"url('HTTPS://example.com/').getScheme()", S("https")},
      {"url('https:://kubernetes.io/').getHostname()", S("")},
      {"url('https://example.com/a%2Fb').getEscapedPath()", S("/a%2Fb")},
      {"isURL('mailto:someone@example.com')", B(true)},
      {"url('*').getEscapedPath()", S("*")},
  });
  EvalRun run = Evaluate(
      "url('https://example.com/p?a=1;b=2&c=%zz&d=%41&e').getQuery() == "
      "{'d': ['A'], 'e': ['']}");
  ASSERT_EQ(run.compile_error, "");
  EXPECT_TRUE(run.value.IsTrue()) << Describe(run.value);
}

TEST(KubernetesUrlTest, GoUrlRoundTrip) {
  struct RoundTrip {
    const char* in;
    const char* out;
  };
  const RoundTrip cases[] = {
      {"https://user:pass@example.com:80/path?query=val#fragment",
       "https://user:pass@example.com:80/path?query=val#fragment"},
      {"http://example.com/a b", "http://example.com/a%20b"},
      {"http://example.com/a%2fb", "http://example.com/a%2fb"},
      {"mailto:x@example.com", "mailto:x@example.com"},
      {"file:///etc/hosts", "file:///etc/hosts"},
      {"https:/path", "https:/path"},
      {"//host/path", "//host/path"},
      {"/a:b", "/a:b"},
      {"http://[fe80::1%25en0]:8080/", "http://[fe80::1%25en0]:8080/"},
      {"http://x/?", "http://x/?"},
      {"http://x/#a b", "http://x/#a%20b"},
  };
  for (const RoundTrip& c : cases) {
    auto url = GoUrl::Parse(c.in);
    ASSERT_TRUE(url.ok()) << c.in << ": " << url.status().message();
    EXPECT_EQ(url->ToString(), c.out);
  }
  auto u = GoUrl::Parse("http://[fe80::1%25en0]:8080/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "[fe80::1%en0]:8080");
  EXPECT_EQ(u->Hostname(), "fe80::1%en0");
  EXPECT_EQ(u->Port(), "8080");
  // A leading "//" is a path for ParseRequestURI but an authority for Parse.
  auto r = GoUrl::ParseRequestUri("//host/path");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->path, "//host/path");
  EXPECT_EQ(r->host, "");
  auto p = GoUrl::Parse("//host/path");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->host, "host");
  EXPECT_EQ(p->path, "/path");
}

}  // namespace
}  // namespace dralloc::cel
