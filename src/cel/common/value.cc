#include "cel/common/value.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <new>
#include <set>

#include "cel/common/types.h"
#include "common/mutex.h"
#include "fmt/format.h"

namespace dralloc::cel {

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull:
      return kNullTypeName;
    case ValueKind::kBool:
      return kBoolTypeName;
    case ValueKind::kInt:
      return kIntTypeName;
    case ValueKind::kUint:
      return kUintTypeName;
    case ValueKind::kDouble:
      return kDoubleTypeName;
    case ValueKind::kString:
      return kStringTypeName;
    case ValueKind::kBytes:
      return kBytesTypeName;
    case ValueKind::kDuration:
      return kDurationTypeName;
    case ValueKind::kTimestamp:
      return kTimestampTypeName;
    case ValueKind::kType:
      return kTypeTypeName;
    case ValueKind::kList:
      return kListTypeName;
    case ValueKind::kMap:
      return kMapTypeName;
    case ValueKind::kOptional:
      return kOptionalTypeName;
    case ValueKind::kOpaque:
      return "opaque";
    case ValueKind::kError:
      return "error";
  }
  return "unknown";
}

bool MapValue::FindString(std::string_view key, Value* out) const {
  return Find(Value::BorrowedString(key), out);
}

const Value kMissingKeySentinel;

size_t MapValue::FindInternedPathRef(const std::string* const* keys, size_t n,
                                     const Value** out) const {
  const MapValue* map = this;
  for (size_t i = 0; i < n; ++i) {
    const Value* ref = map->FindInternedRef(keys[i]);
    if (ref == nullptr) return i;
    *out = ref;
    if (ref == MissingKey()) return i;
    if (i + 1 < n) {
      if (ref->kind() != ValueKind::kMap) return i + 1;
      map = &ref->map();
    }
  }
  return n;
}

bool MapValue::Contains(const Value& key) const {
  Value ignored;
  return Find(key, &ignored);
}

OptionalObject::OptionalObject(Value v) { new (storage_) Value(std::move(v)); }
OptionalObject::~OptionalObject() {
  std::launder(reinterpret_cast<Value*>(storage_))->~Value();
}
const Value& OptionalObject::value() const {
  return *std::launder(reinterpret_cast<const Value*>(storage_));
}

Value Value::OptionalOf(Value v) {
  Value out(ValueKind::kOptional, {.p = new OptionalObject(std::move(v))});
  out.flags_ = kOwned;
  return out;
}

Value Value::Error(std::string message) {
  Value out(ValueKind::kError, {.p = new ErrorObject(std::move(message))});
  out.flags_ = kOwned;
  return out;
}

std::string_view Value::TypeName() const {
  if (kind_ == ValueKind::kOpaque) return opaque().TypeName();
  return ValueKindName(kind_);
}

namespace {

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", d);
}

}  // namespace

std::string Value::DebugString() const {
  switch (kind_) {
    case ValueKind::kNull:
      return "null";
    case ValueKind::kBool:
      return u_.b ? "true" : "false";
    case ValueKind::kInt:
      return std::to_string(u_.i);
    case ValueKind::kUint:
      return std::to_string(u_.u) + "u";
    case ValueKind::kDouble:
      return FormatDouble(u_.d);
    case ValueKind::kString:
      return fmt::format("\"{}\"", string_view());
    case ValueKind::kBytes:
      return fmt::format("b\"{}\"", string_view());
    case ValueKind::kDuration:
      return fmt::format("duration({}ns)", u_.i);
    case ValueKind::kTimestamp:
      return fmt::format("timestamp({}s+{}ns)", u_.i, aux_);
    case ValueKind::kType:
      return std::string(string_view());
    case ValueKind::kList: {
      std::string out = "[";
      const ListValue& l = list();
      for (size_t i = 0; i < l.Size(); ++i) {
        if (i > 0) out += ", ";
        out += l.At(i).DebugString();
      }
      return out + "]";
    }
    case ValueKind::kMap: {
      std::string out = "{";
      const MapValue& m = map();
      for (size_t i = 0; i < m.Size(); ++i) {
        if (i > 0) out += ", ";
        out += m.KeyAt(i).DebugString() + ": " + m.ValueAt(i).DebugString();
      }
      return out + "}";
    }
    case ValueKind::kOptional:
      return optional_has_value()
                 ? "optional.of(" + optional_value().DebugString() + ")"
                 : "optional.none()";
    case ValueKind::kOpaque:
      return opaque().DebugString();
    case ValueKind::kError:
      return "error(" + error_message() + ")";
  }
  return "?";
}

// ---- numbers ----

namespace {

// Comparison of an integer with a double as cel-go does it: the integer is
// converted to double first (so 2^63-1 equals 2^63 as a double).
int CompareAsDoubles(double x, double d) {
  if (std::isnan(d)) return kUnordered;
  return x < d ? -1 : (x > d ? 1 : 0);
}

int CompareIntDouble(int64_t i, double d) {
  return CompareAsDoubles(static_cast<double>(i), d);
}

int CompareUintDouble(uint64_t u, double d) {
  return CompareAsDoubles(static_cast<double>(u), d);
}

int CompareIntUint(int64_t i, uint64_t u) {
  if (i < 0) return -1;
  uint64_t ui = static_cast<uint64_t>(i);
  return ui < u ? -1 : (ui > u ? 1 : 0);
}

template <typename T>
int Cmp3(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool IsNumber(ValueKind k) {
  return k == ValueKind::kInt || k == ValueKind::kUint ||
         k == ValueKind::kDouble;
}

int CompareNumbers(const Value& a, const Value& b) {
  switch (a.kind()) {
    case ValueKind::kInt:
      switch (b.kind()) {
        case ValueKind::kInt:
          return Cmp3(a.int_value(), b.int_value());
        case ValueKind::kUint:
          return CompareIntUint(a.int_value(), b.uint_value());
        default:
          return CompareIntDouble(a.int_value(), b.double_value());
      }
    case ValueKind::kUint:
      switch (b.kind()) {
        case ValueKind::kInt:
          return -CompareIntUint(b.int_value(), a.uint_value());
        case ValueKind::kUint:
          return Cmp3(a.uint_value(), b.uint_value());
        default:
          return CompareUintDouble(a.uint_value(), b.double_value());
      }
    default:
      switch (b.kind()) {
        case ValueKind::kInt: {
          int c = CompareIntDouble(b.int_value(), a.double_value());
          return c == kUnordered ? c : -c;
        }
        case ValueKind::kUint: {
          int c = CompareUintDouble(b.uint_value(), a.double_value());
          return c == kUnordered ? c : -c;
        }
        default: {
          double x = a.double_value(), y = b.double_value();
          if (std::isnan(x) || std::isnan(y)) return kUnordered;
          return Cmp3(x, y);
        }
      }
  }
}

}  // namespace

int Compare(const Value& a, const Value& b) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) return CompareNumbers(a, b);
  if (a.kind() != b.kind()) return kIncomparable;
  switch (a.kind()) {
    case ValueKind::kBool:
      return Cmp3(a.bool_value(), b.bool_value());
    case ValueKind::kString:
    case ValueKind::kBytes: {
      int c = a.string_view().compare(b.string_view());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case ValueKind::kDuration:
      return Cmp3(a.duration_nanos(), b.duration_nanos());
    case ValueKind::kTimestamp: {
      int c = Cmp3(a.timestamp_seconds(), b.timestamp_seconds());
      return c != 0 ? c : Cmp3(a.timestamp_nanos(), b.timestamp_nanos());
    }
    default:
      return kIncomparable;
  }
}

bool EqualBool(const Value& a, const Value& b) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) {
    return CompareNumbers(a, b) == 0;
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return a.bool_value() == b.bool_value();
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType:
      return a.string_view() == b.string_view();
    case ValueKind::kDuration:
      return a.duration_nanos() == b.duration_nanos();
    case ValueKind::kTimestamp:
      return a.timestamp_seconds() == b.timestamp_seconds() &&
             a.timestamp_nanos() == b.timestamp_nanos();
    case ValueKind::kList: {
      const ListValue& x = a.list();
      const ListValue& y = b.list();
      if (x.Size() != y.Size()) return false;
      for (size_t i = 0; i < x.Size(); ++i) {
        if (!EqualBool(x.At(i), y.At(i))) return false;
      }
      return true;
    }
    case ValueKind::kMap: {
      const MapValue& x = a.map();
      const MapValue& y = b.map();
      if (x.Size() != y.Size()) return false;
      for (size_t i = 0; i < x.Size(); ++i) {
        Value other;
        if (!y.Find(x.KeyAt(i), &other)) return false;
        if (!EqualBool(x.ValueAt(i), other)) return false;
      }
      return true;
    }
    case ValueKind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() ||
             EqualBool(a.optional_value(), b.optional_value());
    case ValueKind::kOpaque:
      return a.opaque().TypeName() == b.opaque().TypeName() &&
             a.opaque().Equals(b.opaque());
    default:
      return false;
  }
}

namespace {
// Finds the first error among the operands of an equality (lists, maps).
const Value* FirstError(const Value& a, const Value& b) {
  if (a.IsError()) return &a;
  if (b.IsError()) return &b;
  return nullptr;
}
}  // namespace

Value Equal(const Value& a, const Value& b) {
  if (const Value* e = FirstError(a, b)) return *e;
  return Value::Bool(EqualBool(a, b));
}

bool IsValidMapKey(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kBool:
    case ValueKind::kString:
      return true;
    default:
      return false;
  }
}

uint64_t HashKey(const Value& key) {
  auto mix = [](uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
  };
  switch (key.kind()) {
    case ValueKind::kInt:
      return mix(static_cast<uint64_t>(key.int_value()));
    case ValueKind::kUint:
      // Equal numbers hash alike: uints above INT64_MAX never equal an int.
      return mix(key.uint_value());
    case ValueKind::kDouble: {
      double d = key.double_value();
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
          std::trunc(d) == d) {
        return mix(static_cast<uint64_t>(static_cast<int64_t>(d)));
      }
      if (d >= 0 && d < 18446744073709551616.0 && std::trunc(d) == d) {
        return mix(static_cast<uint64_t>(d));
      }
      return mix(std::bit_cast<uint64_t>(d));
    }
    case ValueKind::kBool:
      return key.bool_value() ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL;
    case ValueKind::kString: {
      std::string_view s = key.string_view();
      uint64_t h = 1469598103934665603ULL;
      for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ULL;
      }
      return h;
    }
    default:
      return 0;
  }
}

// ---- EntryMap ----

namespace {
constexpr size_t kLinearLookupMax = 8;

// Map key equality: numeric kinds compare numerically; others by kind.
bool KeyEquals(const Value& a, const Value& b) {
  if (a.kind() == ValueKind::kString && b.kind() == ValueKind::kString) {
    return a.string_view() == b.string_view();
  }
  return EqualBool(a, b);
}
}  // namespace

int64_t EntryMap::IndexOf(const Value& key) const {
  if (entries_.size() <= kLinearLookupMax) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (KeyEquals(entries_[i].first, key)) return static_cast<int64_t>(i);
    }
    return -1;
  }
  if (index_.size() != entries_.size()) BuildIndex();
  uint64_t h = HashKey(key);
  auto it = std::lower_bound(index_.begin(), index_.end(), h,
                             [](const std::pair<uint64_t, uint32_t>& e,
                                uint64_t v) { return e.first < v; });
  for (; it != index_.end() && it->first == h; ++it) {
    if (KeyEquals(entries_[it->second].first, key)) return it->second;
  }
  return -1;
}

void EntryMap::BuildIndex() const {
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    index_.emplace_back(HashKey(entries_[i].first), static_cast<uint32_t>(i));
  }
  std::sort(index_.begin(), index_.end());
}

bool EntryMap::Find(const Value& key, Value* out) const {
  int64_t i = IndexOf(key);
  if (i < 0) return false;
  *out = entries_[i].second;
  return true;
}

bool EntryMap::FindString(std::string_view key, Value* out) const {
  if (entries_.size() <= kLinearLookupMax) {
    for (const auto& [k, v] : entries_) {
      if (k.kind() == ValueKind::kString && k.string_view() == key) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  return Find(Value::BorrowedString(key), out);
}

bool EntryMap::Insert(Value key, Value value) {
  if (IndexOf(key) >= 0) return false;
  entries_.emplace_back(std::move(key), std::move(value));
  index_.clear();
  return true;
}

const std::string* Intern(std::string_view text) {
  // Bounded so that hostile input cannot grow it without limit.
  constexpr size_t kMaxInterned = 1 << 20;
  static Mutex* mu = new Mutex();
  static auto* table = new std::set<std::string, std::less<>>();
  MutexLock lock(*mu);
  auto it = table->find(text);
  if (it != table->end()) return &*it;
  if (table->size() >= kMaxInterned) return nullptr;
  return &*table->emplace(text).first;
}

const MapValue& EmptyMap() {
  static const EntryMap* empty = new EntryMap();
  return *empty;
}

const ListValue& EmptyList() {
  static const VectorList* empty = new VectorList();
  return *empty;
}

// ---- errors ----

Value NoMatchingOverload(std::string_view function) {
  return Value::Error(fmt::format("no matching overload for '{}'", function));
}

Value NoSuchKey(const Value& key) {
  if (key.kind() == ValueKind::kString) {
    return Value::Error(fmt::format("no such key: {}", key.string_view()));
  }
  return Value::Error(fmt::format("no such key: {}", key.DebugString()));
}

Value DivisionByZero() { return Value::Error("division by zero"); }
Value ModulusByZero() { return Value::Error("modulus by zero"); }
Value IntOverflow() { return Value::Error("integer overflow"); }

}  // namespace dralloc::cel
