// Authorizer: decides whether a request's attributes are allowed
// (upstream's authorizer.Authorizer and RuleResolver), and UnionAuthorizer,
// the chain `--authorization-mode` names.
#ifndef DRALLOC_AUTH_AUTHORIZER_H_
#define DRALLOC_AUTH_AUTHORIZER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/request_attributes.h"

namespace dralloc::auth {

enum class Decision { kNoOpinion, kAllow, kDeny };

struct AuthorizationResult {
  Decision decision = Decision::kNoOpinion;
  // Why (for SubjectAccessReview status.reason and audit), may be "".
  std::string reason;
};

// The rules a user has in a namespace, as SelfSubjectRulesReview reports
// them (`kubectl auth can-i --list`).
struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};
struct NonResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;
};
struct RuleSet {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  // True when an authorizer could not list every rule (the node authorizer's
  // rules depend on the object, so it always sets this).
  bool incomplete = false;
  std::string evaluation_error;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual AuthorizationResult Authorize(
      const RequestAttributes& attributes) const = 0;
  // Appends the rules `user` has in `namespace_` to `rules`.
  virtual void RulesFor(const UserInfo& user, std::string_view namespace_,
                        RuleSet& rules) const = 0;
};

// Asks each authorizer in order; the first Allow or Deny decides, and
// NoOpinion from all of them denies (upstream's union authorizer). Users in
// system:masters are allowed everything before any authorizer is asked, as
// upstream's privileged-group authorizer does.
class UnionAuthorizer : public Authorizer {
 public:
  explicit UnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> chain)
      : chain_(std::move(chain)) {}
  AuthorizationResult Authorize(
      const RequestAttributes& attributes) const override;
  void RulesFor(const UserInfo& user, std::string_view namespace_,
                RuleSet& rules) const override;

 private:
  std::vector<std::unique_ptr<Authorizer>> chain_;
};

// Allows everything (`--authorization-mode=AlwaysAllow`, the default while
// no mode is given).
class AlwaysAllowAuthorizer : public Authorizer {
 public:
  AuthorizationResult Authorize(const RequestAttributes&) const override {
    return {Decision::kAllow, ""};
  }
  void RulesFor(const UserInfo&, std::string_view,
                RuleSet& rules) const override {
    rules.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}});
    rules.non_resource_rules.push_back({{"*"}, {"*"}});
  }
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_AUTHORIZER_H_
