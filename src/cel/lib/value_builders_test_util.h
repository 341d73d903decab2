// Short builders of CEL values shared by the library tests.
#ifndef DRALLOC_CEL_LIB_VALUE_BUILDERS_TEST_UTIL_H_
#define DRALLOC_CEL_LIB_VALUE_BUILDERS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/common/value.h"

namespace dralloc::cel::test_values {

inline Value I(int64_t v) { return Value::Int(v); }
inline Value U(uint64_t v) { return Value::Uint(v); }
inline Value D(double v) { return Value::Double(v); }
inline Value S(std::string_view v) { return Value::String(std::string(v)); }
inline Value B(std::string_view v) { return Value::Bytes(std::string(v)); }
inline Value List(std::vector<Value> items) {
  return Value::List(new VectorList(std::move(items)));
}
inline Value Map(std::vector<std::pair<Value, Value>> entries) {
  auto* map = new EntryMap();
  for (auto& [k, v] : entries) map->Insert(k, v);
  return Value::Map(map);
}

}  // namespace dralloc::cel::test_values

#endif  // DRALLOC_CEL_LIB_VALUE_BUILDERS_TEST_UTIL_H_
