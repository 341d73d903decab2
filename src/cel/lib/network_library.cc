#include "cel/lib/network_library.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cel/lib/kubernetes_library_util.h"

namespace dralloc::cel {
namespace {

using k8s_internal::ArgTraversalCost;
using k8s_internal::GoQuote;
using k8s_internal::kStringTraversalCostFactor;
using k8s_internal::MakeOverload;
using k8s_internal::ScaleEstimate;
using k8s_internal::UnitSize;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's parseAddrError text.
Status AddrError(std::string_view in, std::string_view msg,
                 std::string_view at = {}) {
  std::string text = "ParseAddr(" + GoQuote(in) + "): " + std::string(msg);
  if (!at.empty()) text += " (at " + GoQuote(at) + ")";
  return InvalidArgumentError(std::move(text));
}

// Parses the dotted quad in[off, end) into fields[0..3]. Errors name `in`.
Status ParseV4Fields(std::string_view in, size_t off, size_t end,
                     uint8_t* fields) {
  const std::string_view s = in.substr(off, end - off);
  int val = 0;
  int pos = 0;
  int digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (IsDigit(c)) {
      if (digits == 1 && val == 0) {
        return AddrError(in, "IPv4 field has octet with leading zero");
      }
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return AddrError(in, "IPv4 field has value >255");
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        return AddrError(in, "IPv4 field must have at least one digit",
                         s.substr(i));
      }
      if (pos == 3) return AddrError(in, "IPv4 address too long");
      fields[pos++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      return AddrError(in, "unexpected character", s.substr(i));
    }
  }
  if (pos < 3) return AddrError(in, "IPv4 address too short");
  fields[3] = static_cast<uint8_t>(val);
  return OkStatus();
}

StatusOr<IpAddress> ParseV6(std::string_view in, std::string* zone) {
  std::string_view s = in;
  zone->clear();
  if (const size_t pct = s.find('%'); pct != std::string_view::npos) {
    *zone = std::string(s.substr(pct + 1));
    s = s.substr(0, pct);
    if (zone->empty()) return AddrError(in, "zone must be a non-empty string");
  }
  IpAddress addr;
  addr.is_v4 = false;
  std::array<uint8_t, 16>& ip = addr.bytes;
  int ellipsis = -1;  // byte position of "::"
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return addr;  // "::"
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int d = HexValue(s[off]);
      if (d < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(d);
      if (off > 3) {
        return AddrError(in, "each group must have 4 or less digits", s);
      }
      if (acc > 0xFFFF) return AddrError(in, "IPv6 field has value >=2^16", s);
    }
    if (off == 0) {
      return AddrError(
          in, "each colon-separated field must have at least one digit", s);
    }
    if (off < s.size() && s[off] == '.') {  // trailing dotted quad
      if (ellipsis < 0 && i != 12) {
        return AddrError(in,
                         "embedded IPv4 address must replace the final 2 "
                         "fields of the address",
                         s);
      }
      if (i + 4 > 16) {
        return AddrError(in,
                         "too many hex fields to fit an embedded IPv4 at the "
                         "end of the address",
                         s);
      }
      size_t end = in.size();
      if (!zone->empty()) end -= zone->size() + 1;
      Status st = ParseV4Fields(in, end - s.size(), end, &ip[i]);
      if (!st.ok()) return st;
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(acc >> 8);
    ip[i + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s = s.substr(off);
    if (s.empty()) break;
    if (s[0] != ':') {
      return AddrError(in, "unexpected character, want colon", s);
    }
    if (s.size() == 1) {
      return AddrError(in, "colon must be followed by more characters", s);
    }
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return AddrError(in, "multiple :: in address", s);
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return AddrError(in, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return AddrError(in, "address string too short");
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    for (int j = ellipsis; j < ellipsis + n; ++j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return AddrError(in, "the :: must expand to at least one field of zeros");
  }
  return addr;
}

// The IPv4 address an IPv4-mapped IPv6 address wraps; others unchanged.
IpAddress Unmap(const IpAddress& a) {
  if (!a.Is4In6()) return a;
  IpAddress v4;
  v4.is_v4 = true;
  for (int k = 0; k < 4; ++k) v4.bytes[k] = a.bytes[12 + k];
  return v4;
}

uint16_t Group(const IpAddress& a, int g) {
  return static_cast<uint16_t>((a.bytes[2 * g] << 8) | a.bytes[2 * g + 1]);
}

void AppendV4(std::string& out, const uint8_t* b) {
  for (int k = 0; k < 4; ++k) {
    if (k > 0) out += '.';
    out += std::to_string(b[k]);
  }
}

Status PrefixError(std::string_view in, std::string_view msg) {
  return InvalidArgumentError("netip.ParsePrefix(" + GoQuote(in) +
                              "): " + std::string(msg));
}

// Go's netip.ParsePrefix.
StatusOr<IpPrefix> GoParsePrefix(std::string_view s) {
  const size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) return PrefixError(s, "no '/'");
  std::string zone;
  StatusOr<IpAddress> addr = GoParseAddr(s.substr(0, slash), &zone);
  if (!addr.ok()) return PrefixError(s, addr.status().message());
  if (!addr->is_v4 && !zone.empty()) {
    return PrefixError(s, "IPv6 zones cannot be present in a prefix");
  }
  const std::string_view bits_text = s.substr(slash + 1);
  const Status bad_bits =
      PrefixError(s, "bad bits after slash: " + GoQuote(bits_text));
  // strconv.Atoi accepts a sign and leading zeros; netip does not.
  if (bits_text.empty() ||
      (bits_text.size() > 1 && (bits_text[0] < '1' || bits_text[0] > '9'))) {
    return bad_bits;
  }
  int64_t bits = 0;
  for (char c : bits_text) {
    if (!IsDigit(c)) return bad_bits;
    if (bits > (INT64_MAX - (c - '0')) / 10) return bad_bits;  // Atoi range
    bits = bits * 10 + (c - '0');
  }
  if (bits > addr->BitLen())
    return PrefixError(s, "prefix length out of range");
  return IpPrefix{*addr, static_cast<int>(bits)};
}

// ---- costs ----

uint64_t ParseCost(std::span<const Value> args, const Value&) {
  return ArgTraversalCost(args, 0);
}
CostEstimate ParseEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], kStringTraversalCostFactor);
}

// ip.isCanonical parses and then compares: twice the traversal.
uint64_t IsCanonicalCost(std::span<const Value> args, const Value&) {
  return CeilCost(SaturatingMul(ActualSize(args[0]), 2),
                  kStringTraversalCostFactor);
}
CostEstimate IsCanonicalEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], 2 * kStringTraversalCostFactor);
}

// Upstream's CIDR "size": the prefix length in bytes, rounded up.
uint64_t CidrSize(const Value& v) {
  const IpPrefix* p = AsCidr(v);
  return p == nullptr ? 1 : static_cast<uint64_t>((p->bits + 7) / 8);
}

uint64_t ContainsIpCost(std::span<const Value> args, const Value&) {
  const uint64_t size = CidrSize(args[0]);
  uint64_t cost = CeilCost(size + size, kStringTraversalCostFactor);
  if (args[1].kind() == ValueKind::kString) {
    cost = SaturatingAdd(cost, ArgTraversalCost(args, 1));
  }
  return cost;
}

uint64_t ContainsCidrCost(std::span<const Value> args, const Value&) {
  const uint64_t size = CidrSize(args[0]);
  uint64_t cost = CeilCost(size + size, kStringTraversalCostFactor);
  cost += CeilCost(size, kStringTraversalCostFactor) + 1;
  if (args[1].kind() == ValueKind::kString) {
    cost = SaturatingAdd(cost, ArgTraversalCost(args, 1));
  }
  return cost;
}

CostEstimate AddEstimates(CostEstimate a, CostEstimate b) {
  return {SaturatingAdd(a.min, b.min), SaturatingAdd(a.max, b.max)};
}

// Comparing two 4- or 16-byte addresses.
CostEstimate AddressCompareEstimate() {
  return ScaleEstimate(SizeEstimate{8, 32}, kStringTraversalCostFactor);
}

CostEstimate ContainsIpEstimate(std::span<const SizeEstimate>) {
  return AddressCompareEstimate();
}
CostEstimate ContainsIpStringEstimate(std::span<const SizeEstimate> args) {
  return AddEstimates(AddressCompareEstimate(),
                      ScaleEstimate(args[1], kStringTraversalCostFactor));
}
CostEstimate ContainsCidrEstimate(std::span<const SizeEstimate>) {
  CostEstimate c = AddEstimates(
      AddressCompareEstimate(),
      ScaleEstimate(SizeEstimate{4, 16}, kStringTraversalCostFactor));
  return AddEstimates(c, CostEstimate{1, 1});
}
CostEstimate ContainsCidrStringEstimate(std::span<const SizeEstimate> args) {
  return AddEstimates(ContainsCidrEstimate(args),
                      ScaleEstimate(args[1], kStringTraversalCostFactor));
}

// ---- implementations ----

Value MakeIp(const IpAddress& a) { return Value::Opaque(new IpValue(a)); }
Value MakeCidr(const IpPrefix& p) { return Value::Opaque(new CidrValue(p)); }

Value StringToIp(const CallContext&, std::span<const Value> args) {
  StatusOr<IpAddress> a = ParseIpForCel(args[0].string_view());
  if (!a.ok()) return Value::Error(a.status().message());
  return MakeIp(*a);
}

Value IsIp(const CallContext&, std::span<const Value> args) {
  return Value::Bool(ParseIpForCel(args[0].string_view()).ok());
}

Value IpIsCanonical(const CallContext&, std::span<const Value> args) {
  const std::string_view text = args[0].string_view();
  StatusOr<IpAddress> a = ParseIpForCel(text);
  if (!a.ok()) return Value::Error(a.status().message());
  return Value::Bool(a->ToString() == text);
}

Value IpToString(const CallContext&, std::span<const Value> args) {
  const IpAddress* a = AsIp(args[0]);
  if (a == nullptr) return NoMatchingOverload("string");
  return Value::String(a->ToString());
}

template <typename Fn>
Value IpPredicate(std::span<const Value> args, std::string_view function,
                  Fn fn) {
  const IpAddress* a = AsIp(args[0]);
  if (a == nullptr) return NoMatchingOverload(function);
  return fn(*a);
}

Value Family(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "family", [](const IpAddress& a) {
    return Value::Int(a.is_v4 ? 4 : 6);
  });
}
Value IsUnspecified(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "isUnspecified", [](const IpAddress& a) {
    return Value::Bool(a.IsUnspecified());
  });
}
Value IsLoopback(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "isLoopback", [](const IpAddress& a) {
    return Value::Bool(a.IsLoopback());
  });
}
Value IsLinkLocalMulticast(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "isLinkLocalMulticast", [](const IpAddress& a) {
    return Value::Bool(a.IsLinkLocalMulticast());
  });
}
Value IsLinkLocalUnicast(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "isLinkLocalUnicast", [](const IpAddress& a) {
    return Value::Bool(a.IsLinkLocalUnicast());
  });
}
Value IsGlobalUnicast(const CallContext&, std::span<const Value> args) {
  return IpPredicate(args, "isGlobalUnicast", [](const IpAddress& a) {
    return Value::Bool(a.IsGlobalUnicast());
  });
}

Value StringToCidr(const CallContext&, std::span<const Value> args) {
  StatusOr<IpPrefix> p = ParseCidrForCel(args[0].string_view());
  if (!p.ok()) return Value::Error(p.status().message());
  return MakeCidr(*p);
}

Value IsCidr(const CallContext&, std::span<const Value> args) {
  return Value::Bool(ParseCidrForCel(args[0].string_view()).ok());
}

Value CidrToString(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("string");
  return Value::String(p->ToString());
}

// netip.Prefix.Contains.
bool PrefixContains(const IpPrefix& p, const IpAddress& a) {
  return p.addr.is_v4 == a.is_v4 && p.addr.SharesPrefix(a, p.bits);
}

// Upstream: p.Overlaps(o) && p.Bits() <= o.Bits().
bool PrefixContainsPrefix(const IpPrefix& p, const IpPrefix& o) {
  return p.addr.is_v4 == o.addr.is_v4 && p.bits <= o.bits &&
         p.addr.SharesPrefix(o.addr, p.bits);
}

Value ContainsIp(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  const IpAddress* a = AsIp(args[1]);
  if (p == nullptr || a == nullptr) return NoMatchingOverload("containsIP");
  return Value::Bool(PrefixContains(*p, *a));
}

Value ContainsIpString(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("containsIP");
  StatusOr<IpAddress> a = ParseIpForCel(args[1].string_view());
  // Upstream passes the parse error on as the IP argument, which then fails
  // its type check: the result is a plain "no such overload" error.
  if (!a.ok()) return Value::Error("no such overload");
  return Value::Bool(PrefixContains(*p, *a));
}

Value ContainsCidr(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  const IpPrefix* o = AsCidr(args[1]);
  if (p == nullptr || o == nullptr) return NoMatchingOverload("containsCIDR");
  return Value::Bool(PrefixContainsPrefix(*p, *o));
}

Value ContainsCidrString(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("containsCIDR");
  // Upstream returns the parse error of the argument as is.
  StatusOr<IpPrefix> o = ParseCidrForCel(args[1].string_view());
  if (!o.ok()) return Value::Error(o.status().message());
  return Value::Bool(PrefixContainsPrefix(*p, *o));
}

Value CidrIp(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("ip");
  return MakeIp(p->addr);
}

Value Masked(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("masked");
  return MakeCidr(p->Masked());
}

Value PrefixLength(const CallContext&, std::span<const Value> args) {
  const IpPrefix* p = AsCidr(args[0]);
  if (p == nullptr) return NoMatchingOverload("prefixLength");
  return Value::Int(p->bits);
}

}  // namespace

// ---- IpAddress ----

bool IpAddress::Is4In6() const {
  if (is_v4) return false;
  for (int k = 0; k < 10; ++k) {
    if (bytes[k] != 0) return false;
  }
  return bytes[10] == 0xFF && bytes[11] == 0xFF;
}

bool IpAddress::IsUnspecified() const {
  const int n = is_v4 ? 4 : 16;
  for (int k = 0; k < n; ++k) {
    if (bytes[k] != 0) return false;
  }
  return true;
}

bool IpAddress::IsLoopback() const {
  const IpAddress a = Unmap(*this);
  if (a.is_v4) return a.bytes[0] == 127;
  for (int k = 0; k < 15; ++k) {
    if (a.bytes[k] != 0) return false;
  }
  return a.bytes[15] == 1;
}

bool IpAddress::IsMulticast() const {
  const IpAddress a = Unmap(*this);
  if (a.is_v4) return (a.bytes[0] & 0xF0) == 0xE0;
  return a.bytes[0] == 0xFF;
}

bool IpAddress::IsLinkLocalMulticast() const {
  const IpAddress a = Unmap(*this);
  if (a.is_v4) return a.bytes[0] == 224 && a.bytes[1] == 0 && a.bytes[2] == 0;
  return (Group(a, 0) & 0xFF0F) == 0xFF02;
}

bool IpAddress::IsLinkLocalUnicast() const {
  const IpAddress a = Unmap(*this);
  if (a.is_v4) return a.bytes[0] == 169 && a.bytes[1] == 254;
  return (Group(a, 0) & 0xFFC0) == 0xFE80;
}

bool IpAddress::IsGlobalUnicast() const {
  const IpAddress a = Unmap(*this);
  if (a.is_v4) {
    const bool broadcast = a.bytes[0] == 255 && a.bytes[1] == 255 &&
                           a.bytes[2] == 255 && a.bytes[3] == 255;
    if (a.IsUnspecified() || broadcast) return false;
  } else if (a.IsUnspecified()) {
    return false;
  }
  return !a.IsLoopback() && !a.IsMulticast() && !a.IsLinkLocalUnicast();
}

IpAddress IpAddress::Masked(int bits) const {
  IpAddress out = *this;
  const int n = BitLen() / 8;
  for (int k = 0; k < n; ++k) {
    const int keep = bits - 8 * k;  // bits of this byte to keep
    if (keep >= 8) continue;
    out.bytes[k] =
        keep <= 0 ? 0 : static_cast<uint8_t>(bytes[k] & (0xFF << (8 - keep)));
  }
  return out;
}

bool IpAddress::SharesPrefix(const IpAddress& other, int bits) const {
  if (is_v4 != other.is_v4) return false;
  return Masked(bits).bytes == other.Masked(bits).bytes;
}

std::string IpAddress::ToString() const {
  std::string out;
  if (is_v4) {
    AppendV4(out, bytes.data());
    return out;
  }
  if (Is4In6()) {
    out = "::ffff:";
    AppendV4(out, bytes.data() + 12);
    return out;
  }
  // The longest run of at least two zero groups (the first one on ties).
  int zero_start = -1;
  int zero_end = -1;
  for (int g = 0; g < 8; ++g) {
    int end = g;
    while (end < 8 && Group(*this, end) == 0) ++end;
    if (end - g >= 2 && end - g > zero_end - zero_start) {
      zero_start = g;
      zero_end = end;
    }
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (int g = 0; g < 8; ++g) {
    if (g == zero_start) {
      out += "::";
      g = zero_end;
      if (g >= 8) break;
    } else if (g > 0) {
      out += ':';
    }
    const uint16_t v = Group(*this, g);
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int d = (v >> shift) & 0xF;
      if (d != 0 || started || shift == 0) {
        out += kHex[d];
        started = true;
      }
    }
  }
  return out;
}

StatusOr<IpAddress> GoParseAddr(std::string_view text, std::string* zone) {
  zone->clear();
  for (char c : text) {
    if (c == '.') {
      IpAddress a;
      Status st = ParseV4Fields(text, 0, text.size(), a.bytes.data());
      if (!st.ok()) return st;
      return a;
    }
    if (c == ':') return ParseV6(text, zone);
    if (c == '%') return AddrError(text, "missing IPv6 address");
  }
  return AddrError(text, "unable to parse IP");
}

StatusOr<IpAddress> ParseIpForCel(std::string_view text) {
  std::string zone;
  StatusOr<IpAddress> a = GoParseAddr(text, &zone);
  if (!a.ok()) {
    return InvalidArgumentError(
        "IP Address " + GoQuote(text) +
        " parse error during conversion from string: " + a.status().message());
  }
  if (!zone.empty()) {
    return InvalidArgumentError("IP address " + GoQuote(text) +
                                " with zone value is not allowed");
  }
  if (a->Is4In6()) {
    return InvalidArgumentError("IPv4-mapped IPv6 address " + GoQuote(text) +
                                " is not allowed");
  }
  return a;
}

// ---- IpPrefix ----

std::string IpPrefix::ToString() const {
  return addr.ToString() + "/" + std::to_string(bits);
}

StatusOr<IpPrefix> ParseCidrForCel(std::string_view text) {
  // Upstream wraps netip's error twice (parseCIDR, then stringToCIDR).
  static constexpr std::string_view kPrefix =
      "network address parse error during conversion from string: ";
  StatusOr<IpPrefix> p = GoParsePrefix(text);
  if (!p.ok()) {
    return InvalidArgumentError(std::string(kPrefix) + std::string(kPrefix) +
                                p.status().message());
  }
  if (p->addr.Is4In6()) {
    return InvalidArgumentError(std::string(kPrefix) +
                                "IPv4-mapped IPv6 address " + GoQuote(text) +
                                " is not allowed");
  }
  return p;
}

// ---- values ----

bool IpValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kIpTypeName) return false;
  return addr_ == static_cast<const IpValue&>(other).addr_;
}

bool CidrValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kCidrTypeName) return false;
  return prefix_ == static_cast<const CidrValue&>(other).prefix_;
}

Type IpType() { return Type::Opaque(kIpTypeName); }
Type CidrType() { return Type::Opaque(kCidrTypeName); }

const IpAddress* AsIp(const Value& v) {
  const OpaqueValue* o = k8s_internal::OpaqueOf(v, kIpTypeName);
  if (o == nullptr) return nullptr;
  return &static_cast<const IpValue*>(o)->address();
}

const IpPrefix* AsCidr(const Value& v) {
  const OpaqueValue* o = k8s_internal::OpaqueOf(v, kCidrTypeName);
  if (o == nullptr) return nullptr;
  return &static_cast<const CidrValue*>(o)->prefix();
}

void RegisterNetworkLibrary(FunctionRegistry& registry) {
  // Every overload returning an ip or cidr gets the unit result size.
  auto add = [&registry](Overload o) {
    if (o.result.kind() == TypeKind::kOpaque) o.estimate_size = &UnitSize;
    registry.Add(std::move(o));
  };
  const Type ip = IpType();
  const Type cidr = CidrType();
  const Type s = Type::String();
  const Type b = Type::Bool();

  // IP (ip.go)
  add(MakeOverload("string_to_ip", "ip", false, {s}, ip, &StringToIp,
                   &ParseCost, &ParseEstimate));
  add(MakeOverload("is_ip", "isIP", false, {s}, b, &IsIp, &ParseCost,
                   &ParseEstimate));
  add(MakeOverload("ip_is_canonical", "ip.isCanonical", false, {s}, b,
                   &IpIsCanonical, &IsCanonicalCost, &IsCanonicalEstimate));
  add(MakeOverload("ip_to_string", "string", false, {ip}, s, &IpToString));
  add(MakeOverload("ip_family", "family", true, {ip}, Type::Int(), &Family));
  add(MakeOverload("ip_is_unspecified", "isUnspecified", true, {ip}, b,
                   &IsUnspecified));
  add(MakeOverload("ip_is_loopback", "isLoopback", true, {ip}, b, &IsLoopback));
  add(MakeOverload("ip_is_link_local_multicast", "isLinkLocalMulticast", true,
                   {ip}, b, &IsLinkLocalMulticast));
  add(MakeOverload("ip_is_link_local_unicast", "isLinkLocalUnicast", true, {ip},
                   b, &IsLinkLocalUnicast));
  add(MakeOverload("ip_is_global_unicast", "isGlobalUnicast", true, {ip}, b,
                   &IsGlobalUnicast));

  // CIDR (cidr.go)
  add(MakeOverload("string_to_cidr", "cidr", false, {s}, cidr, &StringToCidr,
                   &ParseCost, &ParseEstimate));
  add(MakeOverload("is_cidr", "isCIDR", false, {s}, b, &IsCidr, &ParseCost,
                   &ParseEstimate));
  add(MakeOverload("cidr_to_string", "string", false, {cidr}, s,
                   &CidrToString));
  add(MakeOverload("cidr_contains_ip_string", "containsIP", true, {cidr, s}, b,
                   &ContainsIpString, &ContainsIpCost,
                   &ContainsIpStringEstimate));
  add(MakeOverload("cidr_contains_ip_ip", "containsIP", true, {cidr, ip}, b,
                   &ContainsIp, &ContainsIpCost, &ContainsIpEstimate));
  add(MakeOverload("cidr_contains_cidr_string", "containsCIDR", true, {cidr, s},
                   b, &ContainsCidrString, &ContainsCidrCost,
                   &ContainsCidrStringEstimate));
  add(MakeOverload("cidr_contains_cidr", "containsCIDR", true, {cidr, cidr}, b,
                   &ContainsCidr, &ContainsCidrCost, &ContainsCidrEstimate));
  add(MakeOverload("cidr_ip", "ip", true, {cidr}, ip, &CidrIp));
  add(MakeOverload("cidr_prefix_length", "prefixLength", true, {cidr},
                   Type::Int(), &PrefixLength));
  add(MakeOverload("cidr_masked", "masked", true, {cidr}, cidr, &Masked));
}

}  // namespace dralloc::cel
