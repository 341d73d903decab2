// Name and metadata rules shared by all validators (k8s.io/apimachinery
// util/validation and api/validation). Each returns the problems found, as
// Kubernetes words them, with the given path.
#ifndef DRALLOC_API_VALIDATION_NAMES_H_
#define DRALLOC_API_VALIDATION_NAMES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/node_selector.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// RFC 1123 label (≤ 63, [a-z0-9]([-a-z0-9]*[a-z0-9])?).
bool IsDns1123Label(std::string_view value);
// RFC 1123 subdomain (≤ 253, dot-separated labels).
bool IsDns1123Subdomain(std::string_view value);
// C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool IsCIdentifier(std::string_view value);

// Appends Invalid errors with upstream's messages (e.g. "a lowercase RFC 1123
// label must consist of ...") when `value` is not of the form.
void ValidateDns1123Label(std::string_view value, const FieldPath& path,
                          ErrorList& errors);
void ValidateDns1123Subdomain(std::string_view value, const FieldPath& path,
                              ErrorList& errors);
// Label/annotation keys: [prefix/]name (qualified name).
void ValidateQualifiedName(std::string_view value, const FieldPath& path,
                           ErrorList& errors);
void ValidateLabelValue(std::string_view value, const FieldPath& path,
                        ErrorList& errors);
void ValidateLabels(const StringMap& labels, const FieldPath& path,
                    ErrorList& errors);
void ValidateAnnotations(const StringMap& annotations, const FieldPath& path,
                         ErrorList& errors);
// RFC 3339 timestamp syntax.
void ValidateTime(std::string_view value, const FieldPath& path,
                  ErrorList& errors);

enum class NameRule { kDns1123Label, kDns1123Subdomain };
// metadata: name (or generateName) required and well-formed by `rule`,
// namespace required iff `namespaced`, labels, annotations, owner
// references, finalizers.
void ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameRule rule,
                        const FieldPath& path, ErrorList& errors);
// ValidateObjectMeta at "metadata" for a kind whose names are DNS-1123
// subdomains (every kind but Namespace): how each Validate<Kind> starts.
ErrorList ObjectMetaErrors(const ObjectMeta& meta, bool namespaced);

void ValidateNodeSelector(const NodeSelector& selector, const FieldPath& path,
                          ErrorList& errors);
void ValidateToleration(const Toleration& toleration, const FieldPath& path,
                        ErrorList& errors);

// --- Additions (helpers shared by the validators) ---

// The messages upstream's k8s.io/apimachinery/pkg/util/validation Is*
// functions return (empty when `value` is well-formed).
std::vector<std::string> Dns1123LabelErrors(std::string_view value);
std::vector<std::string> Dns1123SubdomainErrors(std::string_view value);
std::vector<std::string> QualifiedNameErrors(std::string_view value);
std::vector<std::string> LabelValueErrors(std::string_view value);
std::vector<std::string> CIdentifierErrors(std::string_view value);
// RFC 3339 date-time ("2024-05-01T10:00:00Z", "...T10:00:00.5+02:00").
bool IsRfc3339Time(std::string_view value);

// metav1 conditions: unique types (qualified names), status
// True/False/Unknown, observedGeneration >= 0, lastTransitionTime set,
// reason set and well-formed (<= 1024), message <= 32 KiB.
void ValidateConditions(const std::vector<Condition>& conditions,
                        const FieldPath& path, ErrorList& errors);

// Map keys longer than `max_length` shortened in the middle with "..." (as
// upstream does for map keys in field paths; a limit below 16 counts as 16).
std::string TruncateKeyIfTooLong(std::string_view key, size_t max_length);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_NAMES_H_
