#include "api/cel_device.h"

#include <string>
#include <vector>

#include "cel/lib/semver_library.h"
#include "common/semver.h"

namespace dralloc::api {

namespace {

cel::Value VersionValue(const std::string& text) {
  StatusOr<SemVer> v = SemVer::ParseStrict(text);
  if (!v.ok()) return cel::Value::String(text);  // rejected by validation
  return cel::MakeSemverValue(*std::move(v));
}

template <typename T, typename F>
cel::Value ListOf(const std::vector<T>& items, F convert) {
  std::vector<cel::Value> values;
  values.reserve(items.size());
  for (const T& item : items) values.push_back(convert(item));
  return cel::Value::List(new cel::VectorList(std::move(values)));
}

cel::Value AttributeValue(const DeviceAttribute& a) {
  if (a.int_value) return cel::Value::Int(*a.int_value);
  if (a.bool_value) return cel::Value::Bool(*a.bool_value);
  if (a.string_value) return cel::Value::String(*a.string_value);
  if (a.version_value) return VersionValue(*a.version_value);
  if (a.ints) {
    return ListOf(*a.ints, [](int64_t i) { return cel::Value::Int(i); });
  }
  if (a.bools) {
    return ListOf(*a.bools, [](bool b) { return cel::Value::Bool(b); });
  }
  if (a.strings) {
    return ListOf(*a.strings,
                  [](const std::string& s) { return cel::Value::String(s); });
  }
  if (a.versions) return ListOf(*a.versions, VersionValue);
  return cel::Value::Null();
}

}  // namespace

std::unique_ptr<cel::DraDevice> ToCelDevice(std::string_view driver,
                                            const Device& device) {
  auto out = std::make_unique<cel::DraDevice>(std::string(driver));
  for (const auto& [name, attribute] : device.attributes) {
    out->AddAttribute(name, AttributeValue(attribute));
  }
  for (const auto& [name, capacity] : device.capacity) {
    out->AddCapacity(name, capacity.value);
  }
  out->SetAllowMultipleAllocations(
      device.allow_multiple_allocations.value_or(false));
  return out;
}

}  // namespace dralloc::api
