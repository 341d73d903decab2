// Kubernetes' CEL IP and CIDR libraries (k8s.io/apiserver pkg/cel/library
// ip.go, cidr.go): the types net.IP and net.CIDR and
//
//   ip(string) -> net.IP       isIP(string) -> bool
//   ip.isCanonical(string) -> bool              string(net.IP) -> string
//   ip.family() -> int (4 or 6)
//   ip.isUnspecified() / isLoopback() / isLinkLocalMulticast() /
//     isLinkLocalUnicast() / isGlobalUnicast() -> bool
//   cidr(string) -> net.CIDR   isCIDR(string) -> bool   string(net.CIDR)
//   c.containsIP(net.IP | string) / c.containsCIDR(net.CIDR | string) -> bool
//   c.ip() -> net.IP   c.masked() -> net.CIDR   c.prefixLength() -> int
//
// Addresses are parsed with Go's net/netip rules (and error messages), then
// upstream's extra checks: no IPv6 zone, no IPv4-mapped IPv6 address. Like
// netip, IPv4 octets with leading zeros are rejected. As upstream (whose doc
// comment says otherwise), cidr() keeps host bits: cidr("192.168.0.1/24") is
// valid and c.masked() clears them.
#ifndef DRALLOC_CEL_LIB_NETWORK_LIBRARY_H_
#define DRALLOC_CEL_LIB_NETWORK_LIBRARY_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/status.h"

namespace dralloc::cel {

// An IPv4 or IPv6 address (no zone). IPv4 uses bytes[0..3].
struct IpAddress {
  bool is_v4 = true;
  std::array<uint8_t, 16> bytes{};

  int BitLen() const { return is_v4 ? 32 : 128; }
  // ::ffff:a.b.c.d
  bool Is4In6() const;
  bool IsUnspecified() const;
  bool IsLoopback() const;
  bool IsMulticast() const;
  bool IsLinkLocalMulticast() const;
  bool IsLinkLocalUnicast() const;
  bool IsGlobalUnicast() const;
  // The first `bits` bits kept, the rest zeroed.
  IpAddress Masked(int bits) const;
  // True when the first `bits` bits of both addresses (same family) agree.
  bool SharesPrefix(const IpAddress& other, int bits) const;
  // Canonical text as Go's netip.Addr.String(): dotted decimal, or RFC 5952
  // IPv6 (lower case, longest run of two or more zero groups as "::").
  std::string ToString() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// Go's netip.ParseAddr. On success `zone` receives an IPv6 zone ("" if none).
// Errors carry Go's message, e.g.
//   ParseAddr("1.2.3"): IPv4 address too short
StatusOr<IpAddress> GoParseAddr(std::string_view text, std::string* zone);

// The address parse behind ip(), isIP() and ip.isCanonical(): GoParseAddr
// plus the zone and IPv4-mapped checks, with upstream's messages.
StatusOr<IpAddress> ParseIpForCel(std::string_view text);

struct IpPrefix {
  IpAddress addr;  // host bits are kept as written
  int bits = 0;

  IpPrefix Masked() const { return {addr.Masked(bits), bits}; }
  // "192.168.0.0/16".
  std::string ToString() const;
  friend bool operator==(const IpPrefix&, const IpPrefix&) = default;
};

// The prefix parse behind cidr() and isCIDR() (netip.ParsePrefix plus the
// IPv4-mapped check), with upstream's messages.
StatusOr<IpPrefix> ParseCidrForCel(std::string_view text);

class IpValue final : public OpaqueValue {
 public:
  explicit IpValue(IpAddress addr) : addr_(addr) {}
  const IpAddress& address() const { return addr_; }
  std::string_view TypeName() const override { return kIpTypeName; }
  bool Equals(const OpaqueValue& other) const override;
  std::string DebugString() const override { return addr_.ToString(); }

 private:
  IpAddress addr_;
};

class CidrValue final : public OpaqueValue {
 public:
  explicit CidrValue(IpPrefix prefix) : prefix_(prefix) {}
  const IpPrefix& prefix() const { return prefix_; }
  std::string_view TypeName() const override { return kCidrTypeName; }
  // Address (as written, host bits included) and prefix length.
  bool Equals(const OpaqueValue& other) const override;
  std::string DebugString() const override { return prefix_.ToString(); }

 private:
  IpPrefix prefix_;
};

Type IpType();    // Type::Opaque("net.IP")
Type CidrType();  // Type::Opaque("net.CIDR")
const IpAddress* AsIp(const Value& v);
const IpPrefix* AsCidr(const Value& v);

// Registers both the IP and the CIDR library (they share net.IP).
void RegisterNetworkLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_NETWORK_LIBRARY_H_
