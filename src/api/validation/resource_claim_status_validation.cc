#include "api/validation/resource_claim_status_validation.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kConfigSourceClass = "FromClass";
constexpr std::string_view kConfigSourceClaim = "FromClaim";

// ---------------------------------------------------------------------------
// status.allocation

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

bool IsHexRun(std::string_view s) {
  for (char c : s) {
    if (!IsHexDigit(c)) return false;
  }
  return true;
}

bool HasUpperCase(std::string_view s) {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

// The problem with `uid` as a UUID in any form upstream's uuid.Validate
// accepts, or nullopt if it is one.
std::optional<std::string> UuidSyntaxError(std::string_view uid) {
  std::string_view s = uid;
  switch (s.size()) {
    case 36:
      break;
    case 36 + 9: {
      std::string prefix(s.substr(0, 9));
      for (char& c : prefix) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      if (prefix != "urn:uuid:") {
        return "invalid urn prefix: " + QuoteValue(s.substr(0, 9));
      }
      s.remove_prefix(9);
      break;
    }
    case 36 + 2:
      if (s.front() != '{' || s.back() != '}') {
        return "invalid bracketed UUID format";
      }
      s = s.substr(1, 36);
      break;
    case 32:
      if (!IsHexRun(s)) return "invalid UUID format";
      return std::nullopt;
    default:
      return "invalid UUID length: " + std::to_string(s.size());
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_position ? s[i] != '-' : !IsHexDigit(s[i])) {
      return "invalid UUID format";
    }
  }
  return std::nullopt;
}

// shareID: a UUID in normalized form (lower-case 8-4-4-4-12 hex).
void ValidateUid(std::string_view uid, const FieldPath& path,
                 ErrorList& errors) {
  if (std::optional<std::string> problem = UuidSyntaxError(uid)) {
    errors.push_back(
        InvalidString(path, uid, "error validating uid: " + *problem));
  } else if (uid.size() != 36 || HasUpperCase(uid)) {
    errors.push_back(InvalidString(
        path, uid,
        "uid must be in RFC 4122 normalized form, "
        "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal "
        "characters"));
  }
}

void ValidateAllocationResultEntry(const DeviceRequestAllocationResult& result,
                                   const FieldPath& path,
                                   const RequestNames& names,
                                   ErrorList& errors) {
  ValidateRequestRef(result.request, path.Child("request"), names, errors);
  ValidateDriverName(result.driver, path.Child("driver"), errors);
  ValidatePoolName(result.pool, path.Child("pool"), errors);
  ValidateRequiredLabel(result.device, path.Child("device"), errors);
  ValidateDeviceBindingConditions(result.binding_conditions,
                                  result.binding_failure_conditions, path,
                                  errors);
  ValidateDeviceTolerations(result.tolerations, path.Child("tolerations"),
                            errors);
  if (result.share_id.has_value()) {
    ValidateUid(*result.share_id, path.Child("shareID"), errors);
  }
  ValidateCapacityMap(result.consumed_capacity, path.Child("consumedCapacity"),
                      errors);
}

void ValidateAllocationConfig(const DeviceAllocationConfiguration& config,
                              const FieldPath& path, const RequestNames& names,
                              ErrorList& errors) {
  const FieldPath source_path = path.Child("source");
  if (config.source.empty()) {
    errors.push_back(Required(source_path));
  } else if (config.source != kConfigSourceClaim &&
             config.source != kConfigSourceClass) {
    errors.push_back(NotSupported(source_path, config.source,
                                  {kConfigSourceClaim, kConfigSourceClass}));
  }
  ValidateRequestRefs(config.requests, path.Child("requests"), names, errors);
  ValidateOpaqueConfiguration(config.opaque, path, errors);
}

void ValidateAllocation(const AllocationResult& allocation,
                        const FieldPath& path, const RequestNames& names,
                        ErrorList& errors) {
  const FieldPath devices_path = path.Child("devices");
  const FieldPath results_path = devices_path.Child("results");
  const auto& results = allocation.devices.results;
  if (static_cast<int64_t>(results.size()) > kAllocationResultsMaxSize) {
    errors.push_back(TooMany(results_path, static_cast<int64_t>(results.size()),
                             kAllocationResultsMaxSize));
  } else {
    for (size_t i = 0; i < results.size(); ++i) {
      ValidateAllocationResultEntry(results[i],
                                    results_path.Index(static_cast<int64_t>(i)),
                                    names, errors);
    }
  }
  const FieldPath config_path = devices_path.Child("config");
  const auto& configs = allocation.devices.config;
  if (static_cast<int64_t>(configs.size()) > kAllocationConfigMaxSize) {
    errors.push_back(TooMany(config_path, static_cast<int64_t>(configs.size()),
                             kAllocationConfigMaxSize));
  } else {
    for (size_t i = 0; i < configs.size(); ++i) {
      ValidateAllocationConfig(configs[i],
                               config_path.Index(static_cast<int64_t>(i)),
                               names, errors);
    }
  }
  if (allocation.node_selector.has_value()) {
    ValidateNodeSelector(*allocation.node_selector, path.Child("nodeSelector"),
                         errors);
  }
  if (allocation.allocation_timestamp.has_value()) {
    ValidateTime(*allocation.allocation_timestamp,
                 path.Child("allocationTimestamp"), errors);
  }
}

// ---------------------------------------------------------------------------
// status.reservedFor

void ValidateReservedFor(
    const std::vector<ResourceClaimConsumerReference>& reserved_for,
    bool allocated, const FieldPath& path, ErrorList& errors) {
  if (static_cast<int64_t>(reserved_for.size()) >
      kResourceClaimReservedForMaxSize) {
    errors.push_back(TooMany(path, static_cast<int64_t>(reserved_for.size()),
                             kResourceClaimReservedForMaxSize));
  } else {
    std::unordered_set<std::string_view> uids;
    for (size_t i = 0; i < reserved_for.size(); ++i) {
      const ResourceClaimConsumerReference& ref = reserved_for[i];
      const FieldPath ref_path = path.Index(static_cast<int64_t>(i));
      if (ref.resource.empty())
        errors.push_back(Required(ref_path.Child("resource")));
      if (ref.name.empty()) errors.push_back(Required(ref_path.Child("name")));
      if (ref.uid.empty()) errors.push_back(Required(ref_path.Child("uid")));
      if (!uids.insert(ref.uid).second) {
        errors.push_back(Duplicate(ref_path, QuoteValue(ref.uid)));
      }
    }
  }
  if (!reserved_for.empty() && !allocated) {
    errors.push_back(
        Forbidden(path, "may not be specified when `allocated` is not set"));
  }
}

// ---------------------------------------------------------------------------
// status.devices

// driver/pool/device[/shareID], the key of an allocated device.
std::string SharedDeviceId(std::string_view driver, std::string_view pool,
                           std::string_view device,
                           const std::optional<std::string>& share_id) {
  std::string id;
  id.reserve(driver.size() + pool.size() + device.size() + 40);
  id.append(driver).append("/").append(pool).append("/").append(device);
  if (share_id.has_value()) id.append("/").append(*share_id);
  return id;
}

// status.devices[].data: optional; when present a JSON object <= 10 KiB.
void ValidateDeviceStatusData(const std::optional<RawJson>& data,
                              const FieldPath& path, ErrorList& errors) {
  if (!data.has_value() || data->json.empty()) return;
  ValidateRawJsonObject(*data, kAllocatedDeviceStatusDataMaxLength, path,
                        errors);
}

// ---- IP interface addresses ("10.9.8.7/24", "2001:db8::1/64").

using IpBytes = std::array<uint8_t, 16>;

bool IsDecimalDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Dotted-quad IPv4, leniently accepting leading zeros (as Kubernetes'
// ParseIPSloppy does). Writes 4 bytes to `out`.
bool ParseIpv4(std::string_view s, uint8_t* out) {
  for (int part = 0; part < 4; ++part) {
    const size_t dot = part < 3 ? s.find('.') : s.size();
    if (dot == std::string_view::npos) return false;
    const std::string_view digits = s.substr(0, dot);
    if (!IsDecimalDigits(digits) || digits.size() > 3) return false;
    int value = 0;
    for (char c : digits) value = value * 10 + (c - '0');
    if (value > 255) return false;
    out[part] = static_cast<uint8_t>(value);
    s.remove_prefix(part < 3 ? dot + 1 : dot);
  }
  return s.empty();
}

// IPv6 text (RFC 4291 2.2, with an optional trailing dotted quad).
bool ParseIpv6(std::string_view s, IpBytes& out) {
  out.fill(0);
  int ellipsis = -1;  // index in `out` where "::" was seen
  int n = 0;          // bytes written
  if (s.starts_with("::")) {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  while (n < 16) {
    // A dotted quad may end the address.
    size_t end = 0;
    while (end < s.size() && IsHexDigit(s[end])) ++end;
    if (end < s.size() && s[end] == '.') {
      if (n > 12) return false;
      const size_t stop = s.find(':');
      if (stop != std::string_view::npos) return false;
      if (!ParseIpv4(s, &out[n])) return false;
      n += 4;
      s = {};
      break;
    }
    if (end == 0 || end > 4) return false;
    unsigned value = 0;
    for (char c : s.substr(0, end)) {
      value = value * 16 + static_cast<unsigned>(c <= '9'   ? c - '0'
                                                 : c <= 'F' ? c - 'A' + 10
                                                            : c - 'a' + 10);
    }
    out[n] = static_cast<uint8_t>(value >> 8);
    out[n + 1] = static_cast<uint8_t>(value & 0xff);
    n += 2;
    s.remove_prefix(end);
    if (s.empty()) break;
    if (s.front() != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s.front() == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = n;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (n < 16) {
    if (ellipsis < 0) return false;
    const int shift = 16 - n;
    for (int i = n - 1; i >= ellipsis; --i) out[i + shift] = out[i];
    for (int i = ellipsis; i < ellipsis + shift; ++i) out[i] = 0;
  } else if (ellipsis >= 0) {
    return false;  // "::" must stand for at least one group
  }
  return true;
}

std::string FormatIpv4(const uint8_t* bytes) {
  return std::to_string(bytes[0]) + "." + std::to_string(bytes[1]) + "." +
         std::to_string(bytes[2]) + "." + std::to_string(bytes[3]);
}

// RFC 5952 text of an IPv6 address (as Go's net.IP.String()).
std::string FormatIpv6(const IpBytes& bytes) {
  std::array<unsigned, 8> groups;
  for (int i = 0; i < 8; ++i) {
    groups[i] = static_cast<unsigned>(bytes[2 * i] << 8 | bytes[2 * i + 1]);
  }
  int best_start = -1;
  int best_len = 0;
  for (int i = 0; i < 8;) {
    if (groups[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const unsigned digit = (groups[i] >> shift) & 0xf;
      if (digit != 0 || started || shift == 0) {
        out += kHex[digit];
        started = true;
      }
    }
  }
  return out;
}

// IsValidInterfaceAddress: a CIDR value with a complete address, in
// canonical form.
void ValidateInterfaceAddress(std::string_view value, const FieldPath& path,
                              ErrorList& errors) {
  const size_t slash = value.find('/');
  bool ok = slash != std::string_view::npos;
  std::string canonical;
  if (ok) {
    const std::string_view address = value.substr(0, slash);
    const std::string_view mask = value.substr(slash + 1);
    ok = IsDecimalDigits(mask) && mask.size() <= 3;
    int bits = 0;
    if (ok) {
      for (char c : mask) bits = bits * 10 + (c - '0');
    }
    IpBytes bytes{};
    if (ok && address.find(':') == std::string_view::npos) {
      ok = ParseIpv4(address, bytes.data()) && bits <= 32;
      if (ok) canonical = FormatIpv4(bytes.data()) + "/" + std::to_string(bits);
    } else if (ok) {
      ok = ParseIpv6(address, bytes) && bits <= 128;
      if (ok) {
        static constexpr std::array<uint8_t, 12> kV4Mapped = {
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        const bool mapped =
            std::equal(kV4Mapped.begin(), kV4Mapped.end(), bytes.begin());
        if (mapped) {
          canonical = FormatIpv4(&bytes[12]) + "/" +
                      std::to_string(bits > 32 ? bits - 96 : bits);
        } else {
          canonical = FormatIpv6(bytes) + "/" + std::to_string(bits);
        }
      }
    }
  }
  if (!ok) {
    errors.push_back(InvalidString(path, value,
                                   "must be a valid address in CIDR form, "
                                   "(e.g. 10.9.8.7/24 or 2001:db8::1/64)"));
  } else if (value != canonical) {
    errors.push_back(InvalidString(
        path, value,
        "must be in canonical form (" + QuoteValue(canonical) + ")"));
  }
}

void ValidateNetworkData(const std::optional<NetworkDeviceData>& data,
                         const FieldPath& path, ErrorList& errors) {
  if (!data.has_value()) return;
  if (static_cast<int64_t>(data->interface_name.size()) >
      kNetworkDeviceDataInterfaceNameMaxLength) {
    errors.push_back(TooLong(path.Child("interfaceName"),
                             kNetworkDeviceDataInterfaceNameMaxLength));
  }
  if (static_cast<int64_t>(data->hardware_address.size()) >
      kNetworkDeviceDataHardwareAddressMaxLength) {
    errors.push_back(TooLong(path.Child("hardwareAddress"),
                             kNetworkDeviceDataHardwareAddressMaxLength));
  }
  const FieldPath ips_path = path.Child("ips");
  if (static_cast<int64_t>(data->ips.size()) > kNetworkDeviceDataMaxIPs) {
    errors.push_back(TooMany(ips_path, static_cast<int64_t>(data->ips.size()),
                             kNetworkDeviceDataMaxIPs));
    return;
  }
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < data->ips.size(); ++i) {
    const FieldPath ip_path = ips_path.Index(static_cast<int64_t>(i));
    ValidateInterfaceAddress(data->ips[i], ip_path, errors);
    if (!seen.insert(data->ips[i]).second) {
      errors.push_back(Duplicate(ip_path, QuoteValue(data->ips[i])));
    }
  }
}

void ValidateDeviceStatuses(const std::vector<AllocatedDeviceStatus>& devices,
                            const std::optional<AllocationResult>& allocation,
                            const FieldPath& path, ErrorList& errors) {
  std::unordered_set<std::string> allocated;
  if (allocation.has_value()) {
    for (const DeviceRequestAllocationResult& result :
         allocation->devices.results) {
      allocated.insert(SharedDeviceId(result.driver, result.pool, result.device,
                                      result.share_id));
    }
  }
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < devices.size(); ++i) {
    const AllocatedDeviceStatus& device = devices[i];
    const FieldPath device_path = path.Index(static_cast<int64_t>(i));
    ValidateDriverName(device.driver, device_path.Child("driver"), errors);
    ValidatePoolName(device.pool, device_path.Child("pool"), errors);
    ValidateRequiredLabel(device.device, device_path.Child("device"), errors);
    if (device.share_id.has_value()) {
      ValidateUid(*device.share_id, device_path.Child("shareID"), errors);
    }
    const std::string id = SharedDeviceId(device.driver, device.pool,
                                          device.device, device.share_id);
    if (!allocated.contains(id)) {
      errors.push_back(InvalidString(device_path, id,
                                     "must be an allocated device in the "
                                     "claim"));
    }
    const FieldPath conditions_path = device_path.Child("conditions");
    if (static_cast<int64_t>(device.conditions.size()) >
        kAllocatedDeviceStatusMaxConditions) {
      errors.push_back(TooMany(conditions_path,
                               static_cast<int64_t>(device.conditions.size()),
                               kAllocatedDeviceStatusMaxConditions));
    }
    ValidateConditions(device.conditions, conditions_path, errors);
    ValidateDeviceStatusData(device.data, device_path.Child("data"), errors);
    ValidateNetworkData(device.network_data, device_path.Child("networkData"),
                        errors);
    if (!seen.insert(id).second) {
      errors.push_back(Duplicate(device_path, QuoteValue(id)));
    }
  }
}

}  // namespace

void ValidateClaimStatus(const ResourceClaimStatus& status,
                         const RequestNames& names, const FieldPath& path,
                         ErrorList& errors) {
  if (status.allocation.has_value()) {
    ValidateAllocation(*status.allocation, path.Child("allocation"), names,
                       errors);
  }
  ValidateReservedFor(status.reserved_for, status.allocation.has_value(),
                      path.Child("reservedFor"), errors);
  ValidateDeviceStatuses(status.devices, status.allocation,
                         path.Child("devices"), errors);
}

}  // namespace dralloc::api
