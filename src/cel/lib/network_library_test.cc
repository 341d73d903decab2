// Tests of the Kubernetes ip and cidr libraries.
// Expression cases and error messages come from the upstream tests
// (k8s.io/apiserver pkg/cel/library/*_test.go).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/lib/kubernetes_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace k8s_lib_test;  // NOLINT: the shared test helpers

// ---------------------------------------------------------------- ip

TEST(KubernetesIpTest, UpstreamCases) {
  RunCases({
      {R"(ip("192.168.0.1"))", Ip("192.168.0.1")},
      {R"(ip("192.168.0.1.0"))",
       {},
       R"(IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long)"},
      {R"(isIP("192.168.0.1"))", B(true)},
      {R"(isIP("192.168.0.1.0"))", B(false)},
      {R"(ip.isCanonical("127.0.0.1"))", B(true)},
      {R"(ip.isCanonical("127.0.0.1.0"))",
       {},
       R"(IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long)"},
      {R"(ip("192.168.0.1").family())", I(4)},
      {R"(ip("0.0.0.0").isUnspecified())", B(true)},
      {R"(ip("127.0.0.1").isUnspecified())", B(false)},
      {R"(ip("127.0.0.1").isLoopback())", B(true)},
      {R"(ip("1.2.3.4").isLoopback())", B(false)},
      {R"(ip("224.0.0.1").isLinkLocalMulticast())", B(true)},
      {R"(ip("224.0.1.1").isLinkLocalMulticast())", B(false)},
      {R"(ip("169.254.169.254").isLinkLocalUnicast())", B(true)},
      {R"(ip("192.168.0.1").isLinkLocalUnicast())", B(false)},
      {R"(ip("192.168.0.1").isGlobalUnicast())", B(true)},
      {R"(ip("255.255.255.255").isGlobalUnicast())", B(false)},
      {R"(ip("2001:db8::68"))", Ip("2001:db8::68")},
      {R"(ip("2001:db8:::68"))",
       {},
       R"(IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68"))"},
      {R"(isIP("2001:db8::68"))", B(true)},
      {R"(isIP("2001:db8:::68"))", B(false)},
      {R"(ip.isCanonical("2001:db8::68"))", B(true)},
      {R"(ip.isCanonical("2001:DB8::68"))", B(false)},
      {R"(ip.isCanonical("2001:db8:::68"))",
       {},
       R"(IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68"))"},
      {R"(ip("2001:db8::68").family())", I(6)},
      {R"(ip("::").isUnspecified())", B(true)},
      {R"(ip("::1").isUnspecified())", B(false)},
      {R"(ip("::1").isLoopback())", B(true)},
      {R"(ip("2001:db8::abcd").isLoopback())", B(false)},
      {R"(ip("ff02::1").isLinkLocalMulticast())", B(true)},
      {R"(ip("fd00::1").isLinkLocalMulticast())", B(false)},
      {R"(ip("fe80::1").isLinkLocalUnicast())", B(true)},
      {R"(ip("fd80::1").isLinkLocalUnicast())", B(false)},
      {R"(ip("2001:db8::abcd").isGlobalUnicast())", B(true)},
      {R"(ip("ff00::1").isGlobalUnicast())", B(false)},
      {R"(string(ip("192.168.0.1")))", S("192.168.0.1")},
  });
  EXPECT_NE(Evaluate(R"(isIP(cidr("192.168.0.0/24")))").compile_error, "");
}

TEST(KubernetesIpTest, StrictnessAndCanonicalForm) {
  RunCases({
      {R"(ip("::ffff:1.2.3.4"))",
       {},
       R"(IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed)"},
      {R"(ip("fe80::1%eth0"))",
       {},
       R"(IP address "fe80::1%eth0" with zone value is not allowed)"},
      {R"(ip("127.0.0.01"))",
       {},
       R"(IP Address "127.0.0.01" parse error during conversion from string: ParseAddr("127.0.0.01"): IPv4 field has octet with leading zero)"},
      {R"(ip("127.0.0.256"))",
       {},
       R"(IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255)"},
      {R"(isIP(":::1"))", B(false)},
      {R"(isIP("::ffff:1.2.3.4"))", B(false)},
      {R"(isIP(""))", B(false)},
      {R"(ip.isCanonical("2001:db8::abcd"))", B(true)},
      {R"(ip.isCanonical("2001:DB8::ABCD"))", B(false)},
      {R"(ip.isCanonical("2001:db8::0:0:0:abcd"))", B(false)},
      {R"(string(ip("2001:0db8:0:0:0:0:0:0068")))", S("2001:db8::68")},
      {R"(string(ip("1:0:0:2:0:0:0:3")))", S("1:0:0:2::3")},
      {R"(string(ip("1:0:0:2:0:0:3:4")))", S("1::2:0:0:3:4")},
      {R"(string(ip("0:0:0:0:0:0:0:0")))", S("::")},
      {R"(string(ip("1:2:3:4:5:6:7:0")))", S("1:2:3:4:5:6:7:0")},
      {R"(string(ip("::1.2.3.4")))", S("::102:304")},
      {R"(ip("192.168.0.1") == ip("192.168.0.1"))", B(true)},
      {R"(ip("::1") == ip("0:0:0:0:0:0:0:1"))", B(true)},
      {R"(ip("192.168.0.1") == ip("192.168.0.2"))", B(false)},
      {R"(ip("100.64.0.1").isGlobalUnicast())", B(true)},
      {R"(ip("ff01::1").isLinkLocalMulticast())", B(false)},
      {R"(ip("febf::1").isLinkLocalUnicast())", B(true)},
      {R"(ip("fec0::1").isLinkLocalUnicast())", B(false)},
  });
}

TEST(KubernetesIpTest, GoParseAddrErrors) {
  struct ErrCase {
    const char* in;
    const char* message;
  };
  const ErrCase cases[] = {
      {"", R"(ParseAddr(""): unable to parse IP)"},
      {"%eth0", R"(ParseAddr("%eth0"): missing IPv6 address)"},
      {"1.2.3", R"(ParseAddr("1.2.3"): IPv4 address too short)"},
      {"1..2.3",
       R"(ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3"))"},
      {"1.2.3.4x", R"(ParseAddr("1.2.3.4x"): unexpected character (at "x"))"},
      {"fe80::1%", R"(ParseAddr("fe80::1%"): zone must be a non-empty string)"},
      {"12345::",
       R"(ParseAddr("12345::"): each group must have 4 or less digits (at "12345::"))"},
      {"1:2", R"(ParseAddr("1:2"): address string too short)"},
      {"1:2:3:4:5:6:7:8:9",
       R"(ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9"))"},
      {"1::2::3", R"(ParseAddr("1::2::3"): multiple :: in address (at ":3"))"},
      {"1:2:3:4:5:6:7::8",
       R"(ParseAddr("1:2:3:4:5:6:7::8"): the :: must expand to at least one field of zeros)"},
      {"1:",
       R"(ParseAddr("1:"): colon must be followed by more characters (at ":"))"},
      {"1:2:3:4:1.2.3.4",
       R"(ParseAddr("1:2:3:4:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4"))"},
      {"::1.2.3.04",
       R"(ParseAddr("::1.2.3.04"): IPv4 field has octet with leading zero)"},
      {"1:x",
       R"(ParseAddr("1:x"): each colon-separated field must have at least one digit (at "x"))"},
      {"1x::",
       R"(ParseAddr("1x::"): unexpected character, want colon (at "x::"))"},
  };
  for (const ErrCase& c : cases) {
    std::string zone;
    auto a = GoParseAddr(c.in, &zone);
    ASSERT_FALSE(a.ok()) << c.in;
    EXPECT_EQ(a.status().message(), c.message);
  }
  std::string zone;
  auto a = GoParseAddr("fe80::1%eth0", &zone);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(zone, "eth0");
  EXPECT_EQ(a->ToString(), "fe80::1");
}

// ---------------------------------------------------------------- cidr

TEST(KubernetesCidrTest, UpstreamCases) {
  RunCases({
      {R"(cidr("192.168.0.0/24"))", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.0/"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: "")"},
      {R"(cidr("192.168.0.0/24").containsIP(ip("192.168.0.1")))", B(true)},
      {R"(cidr("192.168.0.0/24").containsIP(ip("192.168.1.1")))", B(false)},
      {R"(cidr("192.168.0.0/24").containsIP("192.168.0.1"))", B(true)},
      {R"(cidr("192.168.0.0/24").containsIP("192.168.1.1"))", B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25")))",
       B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32")))",
       B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23")))",
       B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32")))",
       B(false)},
      {R"(cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25"))", B(true)},
      {R"(cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23"))", B(false)},
      {R"(cidr("192.168.0.0/24").ip())", Ip("192.168.0.0")},
      {R"(cidr("192.168.0.0/24").masked())", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.1/24").masked())", Cidr("192.168.0.0/24")},
      {R"(cidr("192.168.0.0/24").prefixLength())", I(24)},
      {R"(cidr("2001:db8::/32"))", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8::/"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: "")"},
      {R"(cidr("2001:db8::/32").containsIP(ip("2001:db8::1")))", B(true)},
      {R"(cidr("2001:db8::/32").containsIP(ip("2001:dc8::1")))", B(false)},
      {R"(cidr("2001:db8::/32").containsIP("2001:db8::1"))", B(true)},
      {R"(cidr("2001:db8::/32").containsIP("2001:dc8::1"))", B(false)},
      {R"(cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33")))", B(true)},
      {R"(cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31")))",
       B(false)},
      {R"(cidr("2001:db8::/32").containsCIDR("2001:db8::/33"))", B(true)},
      {R"(cidr("2001:db8::/32").containsCIDR("2001:db8::/31"))", B(false)},
      {R"(cidr("2001:db8::/32").ip())", Ip("2001:db8::")},
      {R"(cidr("2001:db8::/32").masked())", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8:1::/32").masked())", Cidr("2001:db8::/32")},
      {R"(cidr("2001:db8::/32").prefixLength())", I(32)},
      {R"(string(cidr("192.168.0.0/24")))", S("192.168.0.0/24")},
  });
}

TEST(KubernetesCidrTest, DocExamplesAndEdges) {
  RunCases({
      {R"(cidr("192.168.0.0/16").containsCIDR(cidr("192.168.10.0/24")))",
       B(true)},
      {R"(cidr("192.168.1.0/24").containsCIDR(cidr("192.168.2.0/24")))",
       B(false)},
      {R"(cidr("192.168.0.1/24").ip() == ip("192.168.0.1"))", B(true)},
      {R"(cidr("192.168.0.1/24").ip().family())", I(4)},
      {R"(cidr("::1/128").ip().family())", I(6)},
      {R"(cidr("192.168.0.0/24") == cidr("192.168.0.0/24").masked())", B(true)},
      {R"(cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked())",
       B(false)},
      {R"(cidr("::1/128").prefixLength())", I(128)},
      {R"(cidr("0.0.0.0/0").containsIP("255.255.255.255"))", B(true)},
      {R"(cidr("0.0.0.0/0").containsIP("::1"))", B(false)},
      {R"(cidr("::/0").containsCIDR("10.0.0.0/8"))", B(false)},
      {R"(cidr("10.0.0.0/8").containsIP("10.255.255.255"))", B(true)},
      {R"(cidr("10.0.0.0/7").containsIP("11.0.0.1"))", B(true)},
      {R"(cidr("10.0.0.0/8").containsIP("11.0.0.1"))", B(false)},
      {R"(string(cidr("2001:db8:0::/32")))", S("2001:db8::/32")},
      {R"(isCIDR("192.168.0.0/16"))", B(true)},
      {R"(isCIDR("::1/128"))", B(true)},
      {R"(isCIDR("192.168.0.0/33"))", B(false)},
      {R"(isCIDR("::1/129"))", B(false)},
      {R"(isCIDR("192.168.0.0/016"))", B(false)},
      {R"(isCIDR("192.168.0.0"))", B(false)},
      {R"(cidr("192.168.0.0/33"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range)"},
      {R"(cidr("::ffff:1.2.3.0/120"))",
       {},
       R"(network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.0/120" is not allowed)"},
      {R"(cidr("fe80::%eth0/64"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix)"},
      {R"(cidr("1.2.3.4"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3.4"): no '/')"},
      {R"(cidr("1.2.3/8"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3/8"): ParseAddr("1.2.3"): IPv4 address too short)"},
      // A bad string argument: upstream gives "no such overload" for
      // containsIP and the parse error for containsCIDR.
      {R"(cidr("10.0.0.0/8").containsIP("10.0.0"))", {}, "no such overload"},
      {R"(cidr("10.0.0.0/8").containsCIDR("10.0.0.0"))",
       {},
       R"(network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/')"},
  });
}

}  // namespace
}  // namespace dralloc::cel
