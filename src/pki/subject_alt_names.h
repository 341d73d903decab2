// SubjectAltNames: the DNS names and IP addresses a serving certificate is
// valid for, parsed from a --hosts list.
#ifndef DRALLOC_PKI_SUBJECT_ALT_NAMES_H_
#define DRALLOC_PKI_SUBJECT_ALT_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::pki {

struct SubjectAltNames {
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // textual IPv4 or IPv6

  // "DNS:a,DNS:b,IP:1.2.3.4" for OpenSSL's subjectAltName extension.
  std::string ToOpenSslValue() const;
};

// The names every serving certificate carries besides --hosts: loopback
// (the development port, local clients, the benchmark) and the names
// in-cluster clients use for the API server (kubeadm's).
inline constexpr std::string_view kDefaultServingHosts[] = {
    "localhost",
    "127.0.0.1",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
};

// Splits `hosts` ("name,10.0.0.1,::1", empty parts ignored) into IP
// addresses (what inet_pton reads) and DNS names (RFC 1123 names, a
// leading "*." wildcard allowed), adds kDefaultServingHosts and drops
// duplicates, keeping first-seen order. kInvalidArgument naming `flag` and
// the entry for anything else.
StatusOr<SubjectAltNames> ParseHosts(std::string_view hosts,
                                     std::string_view flag);

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_SUBJECT_ALT_NAMES_H_
