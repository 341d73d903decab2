// UserInfo: who a request is from, as authentication established it
// (upstream's user.Info): name, uid, groups and extra attributes.
#ifndef DRALLOC_AUTH_USER_INFO_H_
#define DRALLOC_AUTH_USER_INFO_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::auth {

// Well-known users and groups (upstream's
// k8s.io/apiserver/pkg/authentication/user).
inline constexpr std::string_view kSystemMasters = "system:masters";
inline constexpr std::string_view kNodesGroup = "system:nodes";
inline constexpr std::string_view kNodeUserPrefix = "system:node:";
inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
inline constexpr std::string_view kAllUnauthenticated =
    "system:unauthenticated";
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kServiceAccountUserPrefix =
    "system:serviceaccount:";
inline constexpr std::string_view kServiceAccountsGroup =
    "system:serviceaccounts";
inline constexpr std::string_view kKubeScheduler = "system:kube-scheduler";
inline constexpr std::string_view kKubeControllerManager =
    "system:kube-controller-manager";
// The extra key a service-account token bound to a pod carries its node in.
inline constexpr std::string_view kExtraNodeName =
    "authentication.kubernetes.io/node-name";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool InGroup(std::string_view group) const {
    for (const std::string& g : groups) {
      if (g == group) return true;
    }
    return false;
  }
  friend bool operator==(const UserInfo&, const UserInfo&) = default;
};

// The node a user is, for `system:node:<name>` in group system:nodes
// (upstream's nodeidentifier); "" for any other user.
inline std::string_view NodeNameOf(const UserInfo& user) {
  if (!user.name.starts_with(kNodeUserPrefix) || !user.InGroup(kNodesGroup)) {
    return {};
  }
  return std::string_view(user.name).substr(kNodeUserPrefix.size());
}

// The user of the in-process components (scheduler, controllers, garbage
// collector) and of the loopback development port: allowed everything.
inline UserInfo LoopbackUser() {
  return UserInfo{
      .name = "system:apiserver",
      .uid = "",
      .groups = {std::string(kSystemMasters), std::string(kAllAuthenticated)},
      .extra = {}};
}

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_USER_INFO_H_
