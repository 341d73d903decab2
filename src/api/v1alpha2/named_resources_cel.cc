#include "api/v1alpha2/named_resources_cel.h"

namespace dralloc::api::v1alpha2 {

cel::NamedResourcesAttributes CelAttributesOf(
    const NamedResourcesInstance& instance) {
  cel::NamedResourcesAttributes out;
  for (const NamedResourcesAttribute& a : instance.attributes) {
    if (a.quantity) {
      out.AddQuantity(a.name, *a.quantity);
    } else if (a.bool_value) {
      out.AddBool(a.name, *a.bool_value);
    } else if (a.int_value) {
      out.AddInt(a.name, *a.int_value);
    } else if (a.int_slice) {
      out.AddIntSlice(a.name, a.int_slice->ints);
    } else if (a.string_value) {
      out.AddString(a.name, *a.string_value);
    } else if (a.string_slice) {
      out.AddStringSlice(a.name, a.string_slice->strings);
    } else if (a.version) {
      out.AddVersion(a.name, *a.version);
    }
  }
  return out;
}

}  // namespace dralloc::api::v1alpha2
