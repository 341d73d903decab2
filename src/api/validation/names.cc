#include "api/validation/names.h"

#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/name_patterns.h"

namespace dralloc::api {
namespace {

constexpr size_t kDns1123LabelMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;
constexpr size_t kConditionReasonMaxLength = 1024;
constexpr size_t kConditionMessageMaxLength = 32 * 1024;

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kQualifiedNameFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";
constexpr std::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr std::string_view kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'";
constexpr std::string_view kConditionReasonFmt =
    "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?";
constexpr std::string_view kConditionReasonErrMsg =
    "a condition reason must start with alphabetic character, optionally "
    "followed by a string of alphanumeric characters or '_,:', and must end "
    "with an alphanumeric character or '_'";

bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }

bool MatchesConditionReason(std::string_view s) {
  if (s.empty() || !IsAlpha(s.front())) return false;
  char last = s.back();
  if (!IsAlnum(last) && last != '_') return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '_' && c != ',' && c != ':') return false;
  }
  return true;
}

// Upstream's validation.RegexError.
std::string RegexError(std::string_view msg, std::string_view format,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(format) +
           "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += example;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += format;
  out += "')";
  return out;
}

std::string MaxLenError(size_t length) {
  return fmt::format("must be no more than {} characters", length);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void AppendInvalid(const std::vector<std::string>& messages,
                   std::string_view value, const FieldPath& path,
                   ErrorList& errors) {
  for (const std::string& msg : messages)
    errors.push_back(InvalidString(path, value, msg));
}

// Name validation with upstream's generateName handling: a prefix may end in
// '-' (masked before checking).
std::vector<std::string> NameErrors(std::string_view name, bool prefix,
                                    NameRule rule) {
  std::string masked(name);
  if (prefix && masked.size() > 1 && masked.back() == '-') masked.back() = 'a';
  return rule == NameRule::kDns1123Label ? Dns1123LabelErrors(masked)
                                         : Dns1123SubdomainErrors(masked);
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0))
    return 29;
  return kDays[month - 1];
}

// Reads exactly `n` digits at `pos`.
bool ReadDigits(std::string_view s, size_t& pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (!IsDigit(c)) return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

void ValidateOwnerReferences(const std::vector<OwnerReference>& refs,
                             const FieldPath& path, ErrorList& errors) {
  std::string first_controller;
  for (const OwnerReference& ref : refs) {
    // schema.FromAPIVersionAndKind: an apiVersion with more than one '/'
    // does not parse and leaves the version empty.
    std::string_view version = ref.api_version;
    size_t slash = version.find('/');
    if (slash != std::string_view::npos) {
      std::string_view rest = version.substr(slash + 1);
      version =
          rest.find('/') == std::string_view::npos ? rest : std::string_view();
    }
    if (version.empty()) {
      errors.push_back(InvalidString(path.Child("apiVersion"), ref.api_version,
                                     "version must not be empty"));
    }
    if (ref.kind.empty()) {
      errors.push_back(InvalidString(path.Child("kind"), ref.kind,
                                     "kind must not be empty"));
    }
    if (ref.name.empty()) {
      errors.push_back(InvalidString(path.Child("name"), ref.name,
                                     "name must not be empty"));
    }
    if (ref.uid.empty()) {
      errors.push_back(
          InvalidString(path.Child("uid"), ref.uid, "uid must not be empty"));
    }
    if (ref.api_version == "v1" && ref.kind == "Event") {
      errors.push_back(InvalidString(
          path, ref.name, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller.value_or(false)) {
      std::string current = ref.kind + "/" + ref.name;
      if (!first_controller.empty()) {
        errors.push_back(Invalid(
            path, "",
            fmt::format(
                "Only one reference can have Controller set to true. Found "
                "\"true\" in references for {} and {}",
                first_controller, current)));
      } else {
        first_controller = current;
      }
    }
  }
}

void ValidateFinalizers(const std::vector<std::string>& finalizers,
                        const FieldPath& path, ErrorList& errors) {
  bool orphan = false;
  bool foreground = false;
  for (const std::string& finalizer : finalizers) {
    AppendInvalid(QualifiedNameErrors(finalizer), finalizer, path, errors);
    if (finalizer == "orphan") orphan = true;
    if (finalizer == "foregroundDeletion") foreground = true;
  }
  if (orphan && foreground) {
    errors.push_back(
        Invalid(path, "",
                "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

void ValidateOptionalTime(const std::optional<Time>& time,
                          const FieldPath& path, ErrorList& errors) {
  if (time.has_value()) ValidateTime(*time, path, errors);
}

}  // namespace

bool IsDns1123Label(std::string_view value) {
  return value.size() <= kDns1123LabelMaxLength &&
         MatchesDns1123LabelPattern(value);
}

bool IsDns1123Subdomain(std::string_view value) {
  return value.size() <= kDns1123SubdomainMaxLength &&
         MatchesDns1123SubdomainPattern(value);
}

bool IsCIdentifier(std::string_view value) {
  if (value.empty() || !(IsAlpha(value.front()) || value.front() == '_'))
    return false;
  for (char c : value) {
    if (!IsAlnum(c) && c != '_') return false;
  }
  return true;
}

std::vector<std::string> Dns1123LabelErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength)
    errs.push_back(MaxLenError(kDns1123LabelMaxLength));
  if (!MatchesDns1123LabelPattern(value)) {
    if (MatchesDns1123SubdomainPattern(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt,
                                {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> Dns1123SubdomainErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDns1123SubdomainMaxLength));
  }
  if (!MatchesDns1123SubdomainPattern(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

std::vector<std::string> QualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " +
                     RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : Dns1123SubdomainErrors(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kQualifiedNameMaxLength));
  }
  if (!MatchesQualifiedNamePartPattern(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg,
                                             kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> LabelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength)
    errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedNamePartPattern(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> CIdentifierErrors(std::string_view value) {
  if (IsCIdentifier(value)) return {};
  return {RegexError(kCIdentifierErrMsg, kCIdentifierFmt,
                     {"my_name", "MY_NAME", "MyName"})};
}

void ValidateDns1123Label(std::string_view value, const FieldPath& path,
                          ErrorList& errors) {
  AppendInvalid(Dns1123LabelErrors(value), value, path, errors);
}

void ValidateDns1123Subdomain(std::string_view value, const FieldPath& path,
                              ErrorList& errors) {
  AppendInvalid(Dns1123SubdomainErrors(value), value, path, errors);
}

void ValidateQualifiedName(std::string_view value, const FieldPath& path,
                           ErrorList& errors) {
  AppendInvalid(QualifiedNameErrors(value), value, path, errors);
}

void ValidateLabelValue(std::string_view value, const FieldPath& path,
                        ErrorList& errors) {
  AppendInvalid(LabelValueErrors(value), value, path, errors);
}

void ValidateLabels(const StringMap& labels, const FieldPath& path,
                    ErrorList& errors) {
  for (const auto& [key, value] : labels) {
    ValidateQualifiedName(key, path, errors);
    ValidateLabelValue(value, path, errors);
  }
}

void ValidateAnnotations(const StringMap& annotations, const FieldPath& path,
                         ErrorList& errors) {
  size_t total = 0;
  for (const auto& [key, value] : annotations) {
    // Qualified names, except that case does not matter.
    AppendInvalid(QualifiedNameErrors(ToLower(key)), key, path, errors);
    total += key.size() + value.size();
  }
  if (total > kTotalAnnotationSizeLimit) {
    errors.push_back(
        TooLong(path, static_cast<int64_t>(kTotalAnnotationSizeLimit)));
  }
}

bool IsRfc3339Time(std::string_view s) {
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  if (!ReadDigits(s, pos, 4, year) || !Expect(s, pos, '-') ||
      !ReadDigits(s, pos, 2, month) || !Expect(s, pos, '-') ||
      !ReadDigits(s, pos, 2, day) || !Expect(s, pos, 'T') ||
      !ReadDigits(s, pos, 2, hour) || !Expect(s, pos, ':') ||
      !ReadDigits(s, pos, 2, minute) || !Expect(s, pos, ':') ||
      !ReadDigits(s, pos, 2, second)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) ||
      hour > 23 || minute > 59 || second > 59) {
    return false;
  }
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < s.size() && IsDigit(s[pos])) {
      ++pos;
      ++digits;
    }
    if (digits == 0) return false;
  }
  if (pos >= s.size()) return false;
  if (s[pos] == 'Z') return pos + 1 == s.size();
  if (s[pos] != '+' && s[pos] != '-') return false;
  ++pos;
  int offset_hour, offset_minute;
  if (!ReadDigits(s, pos, 2, offset_hour) || !Expect(s, pos, ':') ||
      !ReadDigits(s, pos, 2, offset_minute)) {
    return false;
  }
  return pos == s.size() && offset_hour <= 23 && offset_minute <= 59;
}

void ValidateTime(std::string_view value, const FieldPath& path,
                  ErrorList& errors) {
  // An empty string is the zero time (as metav1.Time decodes it).
  if (value.empty() || IsRfc3339Time(value)) return;
  errors.push_back(InvalidString(
      path, value,
      "must be an RFC 3339 timestamp (e.g. '2006-01-02T15:04:05Z')"));
}

void ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameRule rule,
                        const FieldPath& path, ErrorList& errors) {
  if (!meta.generate_name.empty()) {
    AppendInvalid(NameErrors(meta.generate_name, /*prefix=*/true, rule),
                  meta.generate_name, path.Child("generateName"), errors);
  }
  FieldPath name_path = path.Child("name");
  if (meta.name.empty()) {
    // Offline manifests: the apiserver would generate the name.
    if (meta.generate_name.empty()) {
      errors.push_back(Required(name_path, "name or generateName is required"));
    }
  } else {
    AppendInvalid(NameErrors(meta.name, /*prefix=*/false, rule), meta.name,
                  name_path, errors);
  }
  FieldPath namespace_path = path.Child("namespace");
  if (namespaced) {
    if (meta.namespace_.empty()) {
      errors.push_back(Required(namespace_path));
    } else {
      ValidateDns1123Label(meta.namespace_, namespace_path, errors);
    }
  } else if (!meta.namespace_.empty()) {
    errors.push_back(Forbidden(namespace_path, "not allowed on this type"));
  }
  if (meta.generation < 0) {
    errors.push_back(Invalid(path.Child("generation"),
                             std::to_string(meta.generation),
                             "must be greater than or equal to 0"));
  }
  if (meta.deletion_grace_period_seconds.has_value() &&
      *meta.deletion_grace_period_seconds < 0) {
    errors.push_back(
        Invalid(path.Child("deletionGracePeriodSeconds"),
                std::to_string(*meta.deletion_grace_period_seconds),
                "must be greater than or equal to 0"));
  }
  ValidateOptionalTime(meta.creation_timestamp, path.Child("creationTimestamp"),
                       errors);
  ValidateOptionalTime(meta.deletion_timestamp, path.Child("deletionTimestamp"),
                       errors);
  ValidateLabels(meta.labels, path.Child("labels"), errors);
  ValidateAnnotations(meta.annotations, path.Child("annotations"), errors);
  ValidateOwnerReferences(meta.owner_references, path.Child("ownerReferences"),
                          errors);
  ValidateFinalizers(meta.finalizers, path.Child("finalizers"), errors);
}

ErrorList ObjectMetaErrors(const ObjectMeta& meta, bool namespaced) {
  ErrorList errors;
  ValidateObjectMeta(meta, namespaced, NameRule::kDns1123Subdomain,
                     FieldPath("metadata"), errors);
  return errors;
}

namespace {

void ValidateNodeSelectorRequirement(const NodeSelectorRequirement& req,
                                     const FieldPath& path, ErrorList& errors) {
  FieldPath values_path = path.Child("values");
  const std::string& op = req.operator_;
  if (op == "In" || op == "NotIn") {
    if (req.values.empty()) {
      errors.push_back(Required(
          values_path, "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!req.values.empty()) {
      errors.push_back(Forbidden(values_path,
                                 "may not be specified when `operator` is "
                                 "'Exists' or 'DoesNotExist'"));
    }
  } else if (op == "Gt" || op == "Lt") {
    if (req.values.size() != 1) {
      errors.push_back(Required(
          values_path,
          "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    }
  } else {
    errors.push_back(InvalidString(path.Child("operator"), op,
                                   "not a valid selector operator"));
  }
  ValidateQualifiedName(req.key, path.Child("key"), errors);
  for (size_t i = 0; i < req.values.size(); ++i) {
    ValidateLabelValue(req.values[i],
                       values_path.Index(static_cast<int64_t>(i)), errors);
  }
}

void ValidateNodeFieldSelectorRequirement(const NodeSelectorRequirement& req,
                                          const FieldPath& path,
                                          ErrorList& errors) {
  FieldPath values_path = path.Child("values");
  if (req.operator_ == "In" || req.operator_ == "NotIn") {
    if (req.values.size() != 1) {
      errors.push_back(Required(
          values_path,
          "must be only one value when `operator` is 'In' or 'NotIn' for "
          "node field selector"));
    }
  } else {
    errors.push_back(InvalidString(path.Child("operator"), req.operator_,
                                   "not a valid selector operator"));
  }
  if (req.key != "metadata.name") {
    errors.push_back(InvalidString(path.Child("key"), req.key,
                                   "not a valid field selector key"));
  } else {
    for (size_t i = 0; i < req.values.size(); ++i) {
      ValidateDns1123Subdomain(
          req.values[i], values_path.Index(static_cast<int64_t>(i)), errors);
    }
  }
}

}  // namespace

void ValidateNodeSelector(const NodeSelector& selector, const FieldPath& path,
                          ErrorList& errors) {
  FieldPath terms_path = path.Child("nodeSelectorTerms");
  if (selector.node_selector_terms.empty()) {
    errors.push_back(
        Required(terms_path, "must have at least one node selector term"));
    return;
  }
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    const NodeSelectorTerm& term = selector.node_selector_terms[i];
    FieldPath term_path = terms_path.Index(static_cast<int64_t>(i));
    FieldPath expressions_path = term_path.Child("matchExpressions");
    for (size_t j = 0; j < term.match_expressions.size(); ++j) {
      ValidateNodeSelectorRequirement(
          term.match_expressions[j],
          expressions_path.Index(static_cast<int64_t>(j)), errors);
    }
    FieldPath fields_path = term_path.Child("matchFields");
    for (size_t j = 0; j < term.match_fields.size(); ++j) {
      ValidateNodeFieldSelectorRequirement(
          term.match_fields[j], fields_path.Index(static_cast<int64_t>(j)),
          errors);
    }
  }
}

void ValidateToleration(const Toleration& toleration, const FieldPath& path,
                        ErrorList& errors) {
  FieldPath operator_path = path.Child("operator");
  FieldPath effect_path = path.Child("effect");
  if (!toleration.key.empty())
    ValidateQualifiedName(toleration.key, path.Child("key"), errors);
  if (toleration.key.empty() && toleration.operator_ != "Exists") {
    errors.push_back(InvalidString(
        operator_path, toleration.operator_,
        "operator must be Exists when `key` is empty, which means "
        "\"match all values and all keys\""));
  }
  if (toleration.toleration_seconds.has_value() &&
      toleration.effect != "NoExecute") {
    errors.push_back(InvalidString(
        effect_path, toleration.effect,
        "effect must be 'NoExecute' when `tolerationSeconds` is set"));
  }
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") {
    std::vector<std::string> msgs = LabelValueErrors(toleration.value);
    if (!msgs.empty()) {
      std::string joined;
      for (const std::string& msg : msgs) {
        if (!joined.empty()) joined += ";";
        joined += msg;
      }
      errors.push_back(InvalidString(operator_path, toleration.value, joined));
    }
  } else if (toleration.operator_ == "Exists") {
    if (!toleration.value.empty()) {
      errors.push_back(
          InvalidString(operator_path, toleration.value,
                        "value must be empty when `operator` is 'Exists'"));
    }
  } else {
    errors.push_back(
        NotSupported(operator_path, toleration.operator_, {"Equal", "Exists"}));
  }
  if (!toleration.effect.empty() && toleration.effect != "NoSchedule" &&
      toleration.effect != "PreferNoSchedule" &&
      toleration.effect != "NoExecute") {
    errors.push_back(
        NotSupported(effect_path, toleration.effect,
                     {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
  }
}

void ValidateConditions(const std::vector<Condition>& conditions,
                        const FieldPath& path, ErrorList& errors) {
  std::set<std::string_view> types;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const Condition& condition = conditions[i];
    FieldPath item = path.Index(static_cast<int64_t>(i));
    FieldPath type_path = item.Child("type");
    if (!types.insert(condition.type).second) {
      errors.push_back(Duplicate(type_path, QuoteValue(condition.type)));
    }
    ValidateQualifiedName(condition.type, type_path, errors);
    if (condition.status != "True" && condition.status != "False" &&
        condition.status != "Unknown") {
      errors.push_back(NotSupported(item.Child("status"), condition.status,
                                    {"False", "True", "Unknown"}));
    }
    if (condition.observed_generation < 0) {
      errors.push_back(Invalid(item.Child("observedGeneration"),
                               std::to_string(condition.observed_generation),
                               "must be greater than or equal to zero"));
    }
    FieldPath time_path = item.Child("lastTransitionTime");
    if (condition.last_transition_time.empty()) {
      errors.push_back(Required(time_path, "must be set"));
    } else {
      ValidateTime(condition.last_transition_time, time_path, errors);
    }
    FieldPath reason_path = item.Child("reason");
    if (condition.reason.empty()) {
      errors.push_back(Required(reason_path, "must be set"));
    } else {
      if (!MatchesConditionReason(condition.reason)) {
        errors.push_back(InvalidString(
            reason_path, condition.reason,
            RegexError(kConditionReasonErrMsg, kConditionReasonFmt,
                       {"my_name", "MY_NAME", "MyName", "ReasonA,ReasonB",
                        "ReasonA:ReasonB"})));
      }
      if (condition.reason.size() > kConditionReasonMaxLength) {
        errors.push_back(TooLong(reason_path, kConditionReasonMaxLength));
      }
    }
    if (condition.message.size() > kConditionMessageMaxLength) {
      errors.push_back(
          TooLong(item.Child("message"), kConditionMessageMaxLength));
    }
  }
}

std::string TruncateKeyIfTooLong(std::string_view key, size_t max_length) {
  if (max_length < 16) max_length = 16;
  if (key.size() <= max_length) return std::string(key);
  constexpr std::string_view kEllipsis = "...";
  size_t remaining = max_length - kEllipsis.size();
  std::string out(key.substr(0, (remaining + 1) / 2));
  out += kEllipsis;
  out += key.substr(key.size() - remaining / 2);
  return out;
}

}  // namespace dralloc::api
