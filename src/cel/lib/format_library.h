// Kubernetes' CEL Format library (k8s.io/apiserver pkg/cel/library
// format.go): the type kubernetes.NamedFormat and
//
//   format.named(string) -> optional(NamedFormat)   (none for unknown names)
//   format.dns1123Label() ... format.datetime() -> NamedFormat
//   f.validate(string) -> optional(list(string))
//
// validate() gives optional.none() for a valid string, otherwise the error
// strings of the k8s.io/apimachinery validation (or kube-openapi strfmt
// check) behind the format. Names: dns1123Label, dns1123Subdomain,
// dns1035Label, qualifiedName, dns1123LabelPrefix, dns1123SubdomainPrefix,
// dns1035LabelPrefix, labelValue, uri, uuid, byte, date, datetime.
#ifndef DRALLOC_CEL_LIB_FORMAT_LIBRARY_H_
#define DRALLOC_CEL_LIB_FORMAT_LIBRARY_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"

namespace dralloc::cel {

// One named format: upstream's apiservercel.Format.
struct NamedFormat {
  std::string_view key;   // "dns1123Label" (the format.named() name)
  std::string_view name;  // "DNS1123Label" (upstream's Format.Name)
  // Empty when valid.
  std::vector<std::string> (*validate)(std::string_view);
  // Regex size used for the validate() runtime cost.
  int max_regex_size;
};

// The format called `key`, or null.
const NamedFormat* FindNamedFormat(std::string_view key);
// All formats, in the order listed above.
std::span<const NamedFormat> AllNamedFormats();

class FormatValue final : public OpaqueValue {
 public:
  explicit FormatValue(const NamedFormat* format) : format_(format) {}
  const NamedFormat& format() const { return *format_; }
  std::string_view TypeName() const override { return kFormatTypeName; }
  // By name, as upstream.
  bool Equals(const OpaqueValue& other) const override;
  std::string DebugString() const override;

 private:
  const NamedFormat* format_;
};

Type FormatType();  // Type::Opaque("kubernetes.NamedFormat")

void RegisterFormatLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_FORMAT_LIBRARY_H_
