#include "pki/subject_alt_names.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

namespace dralloc::pki {
namespace {

bool IsIpAddress(const std::string& text) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

bool IsDnsLabel(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  return std::all_of(label.begin(), label.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-';
  });
}

bool IsDnsName(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    const std::string_view label = name.substr(
        start,
        dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!IsDnsLabel(label)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

void AddUnique(std::vector<std::string>& list, std::string value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(std::move(value));
  }
}

}  // namespace

std::string SubjectAltNames::ToOpenSslValue() const {
  std::string value;
  for (const std::string& name : dns_names) {
    value += (value.empty() ? "DNS:" : ",DNS:") + name;
  }
  for (const std::string& ip : ip_addresses) {
    value += (value.empty() ? "IP:" : ",IP:") + ip;
  }
  return value;
}

StatusOr<SubjectAltNames> ParseHosts(std::string_view hosts,
                                     std::string_view flag) {
  std::vector<std::string> entries;
  size_t start = 0;
  while (start <= hosts.size()) {
    size_t comma = hosts.find(',', start);
    if (comma == std::string_view::npos) comma = hosts.size();
    if (comma > start) entries.emplace_back(hosts.substr(start, comma - start));
    start = comma + 1;
  }
  for (std::string_view host : kDefaultServingHosts) entries.emplace_back(host);
  SubjectAltNames names;
  for (std::string& entry : entries) {
    if (IsIpAddress(entry)) {
      AddUnique(names.ip_addresses, std::move(entry));
    } else if (IsDnsName(entry)) {
      AddUnique(names.dns_names, std::move(entry));
    } else {
      return InvalidArgumentError(fmt::format(
          "{}: \"{}\" is neither an IP address nor a DNS name", flag, entry));
    }
  }
  return names;
}

}  // namespace dralloc::pki
