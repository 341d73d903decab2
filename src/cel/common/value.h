// Runtime values of the CEL engine.
//
// A Value is 16 bytes: a kind, a few flag bits and an 8-byte payload. Scalars
// (null, bool, int, uint, double, duration, timestamp) live inline. Strings and
// bytes are either *borrowed* (a pointer and length into storage that outlives
// the evaluation: program constants, bound device data) or *owned* (a
// reference-counted heap string). Lists, maps, optionals, opaque library values
// (quantity, semver, ip, ...) and errors point to a HeapObject, again either
// borrowed (no reference counting: program constants, device views) or owned.
//
// Contract: evaluating an expression over borrowed data creates no owned
// values unless a function builds a new string/list/map or an error occurs, so
// simple selectors run without heap allocation.
#ifndef DRALLOC_CEL_COMMON_VALUE_H_
#define DRALLOC_CEL_COMMON_VALUE_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dralloc::cel {

enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kDuration,   // int64 nanoseconds
  kTimestamp,  // int64 seconds since the Unix epoch + nanos in [0, 1e9)
  kType,
  kList,
  kMap,
  kOptional,
  kOpaque,  // library types: kubernetes.Quantity, kubernetes.Semver, ...
  kError,
};

std::string_view ValueKindName(ValueKind kind);

class Value;

// Base of every heap payload. The count is atomic so that owned values may
// cross threads, but values are normally confined to one evaluation.
class HeapObject {
 public:
  HeapObject() = default;
  HeapObject(const HeapObject&) = delete;
  HeapObject& operator=(const HeapObject&) = delete;
  virtual ~HeapObject() = default;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int32_t RefCount() const { return refs_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int32_t> refs_{1};
};

class StringObject final : public HeapObject {
 public:
  explicit StringObject(std::string s) : text(std::move(s)) {}
  std::string text;
};

class ErrorObject final : public HeapObject {
 public:
  explicit ErrorObject(std::string m) : message(std::move(m)) {}
  std::string message;
};

class ListValue : public HeapObject {
 public:
  virtual size_t Size() const = 0;
  virtual Value At(size_t index) const = 0;
};

class MapValue : public HeapObject {
 public:
  virtual size_t Size() const = 0;
  // Looks a key up with CEL's key rules (numeric keys compare numerically).
  // Returns false when absent. `key` is never an error.
  virtual bool Find(const Value& key, Value* out) const = 0;
  // Fast path for `m.field` selects: same as Find with a string key.
  virtual bool FindString(std::string_view key, Value* out) const;
  // Lookup by an interned key (see Intern()): maps that store interned keys
  // compare pointers instead of text. Defaults to FindString.
  virtual bool FindInterned(const std::string* key, Value* out) const {
    return FindString(*key, out);
  }
  // Reference lookup for maps that store their values (device views): a
  // pointer to the stored value, MissingKey() when absent, or null when the
  // map cannot answer by reference (callers then use FindInterned).
  virtual const Value* FindInternedRef(const std::string* key) const {
    (void)key;
    return nullptr;
  }
  // Follows a chain of interned keys by reference, `keys[0]` in this map,
  // `keys[1]` in the value found, and so on (the fast path of select chains
  // such as device.capacity["domain"].memory). Returns how many keys were
  // followed; *out is the value the last of them reached (untouched when 0
  // are followed). When keys[k] is known to be absent, *out is MissingKey()
  // and k is returned. Stops early wherever FindInternedRef would give null.
  // The default follows FindInternedRef step by step; device views resolve
  // the whole chain in one call.
  virtual size_t FindInternedPathRef(const std::string* const* keys, size_t n,
                                     const Value** out) const;
  static inline const Value* MissingKey();
  // Key membership for `k in m` and has(m.k). Defaults to Find; differs for
  // maps that answer lookups of absent keys with a default (DRA domains).
  virtual bool Contains(const Value& key) const;
  // Keys in iteration order (insertion order for literals).
  virtual Value KeyAt(size_t index) const = 0;
  virtual Value ValueAt(size_t index) const = 0;
};

// Values of library types. Equality within one type is by value.
class OpaqueValue : public HeapObject {
 public:
  virtual std::string_view TypeName() const = 0;
  virtual bool Equals(const OpaqueValue& other) const = 0;
  virtual std::string DebugString() const = 0;
};

class OptionalObject final : public HeapObject {
 public:
  explicit OptionalObject(Value v);
  ~OptionalObject() override;
  const Value& value() const;

 private:
  alignas(8) unsigned char storage_[16];
};

class Value {
 public:
  Value() : kind_(ValueKind::kNull), flags_(0), aux_(0), u_{.i = 0} {}
  ~Value() { Release(); }
  Value(const Value& o)
      : kind_(o.kind_), flags_(o.flags_), aux_(o.aux_), u_(o.u_) {
    Retain();
  }
  Value(Value&& o) noexcept
      : kind_(o.kind_), flags_(o.flags_), aux_(o.aux_), u_(o.u_) {
    o.flags_ = 0;
    o.kind_ = ValueKind::kNull;
  }
  Value& operator=(const Value& o) {
    if (this != &o) {
      o.Retain();
      Release();
      kind_ = o.kind_;
      flags_ = o.flags_;
      aux_ = o.aux_;
      u_ = o.u_;
    }
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      Release();
      kind_ = o.kind_;
      flags_ = o.flags_;
      aux_ = o.aux_;
      u_ = o.u_;
      o.flags_ = 0;
      o.kind_ = ValueKind::kNull;
    }
    return *this;
  }

  // ---- constructors ----
  static Value Null() { return Value(); }
  static Value Bool(bool b) { return Value(ValueKind::kBool, {.b = b}); }
  static Value Int(int64_t i) { return Value(ValueKind::kInt, {.i = i}); }
  static Value Uint(uint64_t u) { return Value(ValueKind::kUint, {.u = u}); }
  static Value Double(double d) { return Value(ValueKind::kDouble, {.d = d}); }
  static Value Duration(int64_t nanos) {
    return Value(ValueKind::kDuration, {.i = nanos});
  }
  // Caller guarantees 0 <= nanos < 1e9.
  static Value Timestamp(int64_t seconds, int32_t nanos) {
    Value v(ValueKind::kTimestamp, {.i = seconds});
    v.aux_ = static_cast<uint32_t>(nanos);
    return v;
  }
  // `text` must outlive every copy of the value.
  static Value BorrowedString(std::string_view text) {
    return Borrowed(ValueKind::kString, text);
  }
  static Value BorrowedBytes(std::string_view data) {
    return Borrowed(ValueKind::kBytes, data);
  }
  static Value String(std::string text) {
    return Owned(ValueKind::kString, std::move(text));
  }
  static Value Bytes(std::string data) {
    return Owned(ValueKind::kBytes, std::move(data));
  }
  // A type value; `name` must be static storage (see types.h kTypeName*).
  static Value TypeValue(std::string_view static_name) {
    Value v = Borrowed(ValueKind::kType, static_name);
    return v;
  }
  // Takes ownership of a new object (reference count 1).
  static Value List(ListValue* owned) {
    return Object(ValueKind::kList, owned);
  }
  static Value Map(MapValue* owned) { return Object(ValueKind::kMap, owned); }
  static Value Opaque(OpaqueValue* owned) {
    return Object(ValueKind::kOpaque, owned);
  }
  // Borrowed objects are not reference counted; they must outlive the value.
  static Value BorrowedList(const ListValue* l) {
    return BorrowedObject(ValueKind::kList, l);
  }
  static Value BorrowedMap(const MapValue* m) {
    return BorrowedObject(ValueKind::kMap, m);
  }
  static Value BorrowedOpaque(const OpaqueValue* o) {
    return BorrowedObject(ValueKind::kOpaque, o);
  }
  // A non-owning alias of `v` (string text or object); `v` must outlive it.
  // Scalars are copied. Used for program constants shared across threads.
  static Value Alias(const Value& v) {
    Value out = v.flags_ & kOwned ? Value() : v;
    if (v.flags_ & kOwned) {
      out.kind_ = v.kind_;
      out.aux_ = v.aux_;
      if (v.kind_ == ValueKind::kString || v.kind_ == ValueKind::kBytes) {
        std::string_view text = v.string_view();
        out.u_.s = text.data();
        out.aux_ = static_cast<uint32_t>(text.size());
      } else {
        out.u_ = v.u_;
      }
    }
    return out;
  }
  static Value OptionalNone() {
    return Value(ValueKind::kOptional, {.p = nullptr});
  }
  static Value OptionalOf(Value v);
  static Value Error(std::string message);

  // ---- inspection ----
  ValueKind kind() const { return kind_; }
  bool IsError() const { return kind_ == ValueKind::kError; }
  bool IsBool() const { return kind_ == ValueKind::kBool; }
  bool IsTrue() const { return kind_ == ValueKind::kBool && u_.b; }
  bool IsFalse() const { return kind_ == ValueKind::kBool && !u_.b; }

  bool bool_value() const { return u_.b; }
  int64_t int_value() const { return u_.i; }
  uint64_t uint_value() const { return u_.u; }
  double double_value() const { return u_.d; }
  int64_t duration_nanos() const { return u_.i; }
  int64_t timestamp_seconds() const { return u_.i; }
  int32_t timestamp_nanos() const { return static_cast<int32_t>(aux_); }
  // For kString, kBytes and kType.
  std::string_view string_view() const {
    if (flags_ & kOwned) {
      return static_cast<const StringObject*>(u_.p)->text;
    }
    return std::string_view(u_.s, aux_);
  }
  const ListValue& list() const { return *static_cast<const ListValue*>(u_.p); }
  const MapValue& map() const { return *static_cast<const MapValue*>(u_.p); }
  const OpaqueValue& opaque() const {
    return *static_cast<const OpaqueValue*>(u_.p);
  }
  bool optional_has_value() const { return u_.p != nullptr; }
  const Value& optional_value() const {
    return static_cast<const OptionalObject*>(u_.p)->value();
  }
  const std::string& error_message() const {
    return static_cast<const ErrorObject*>(u_.p)->message;
  }
  // For kList/kMap/kOpaque: the object, owned or borrowed.
  const HeapObject* object() const {
    return static_cast<const HeapObject*>(u_.p);
  }
  // True when this value holds the only reference to an owned object, so a
  // caller may mutate it in place (used to append in comprehensions).
  bool IsUniquelyOwned() const {
    return (flags_ & kOwned) && object()->RefCount() == 1;
  }

  // The CEL type name of the value ("int", "list", "kubernetes.Quantity"...).
  std::string_view TypeName() const;
  // A short human-readable rendering for error messages and debugging.
  std::string DebugString() const;

 private:
  static constexpr uint8_t kOwned = 1;
  union Payload {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const char* s;
    const void* p;
  };
  Value(ValueKind k, Payload p) : kind_(k), flags_(0), aux_(0), u_(p) {}
  static Value Borrowed(ValueKind k, std::string_view text) {
    Value v(k, {.s = text.data()});
    v.aux_ = static_cast<uint32_t>(text.size());
    return v;
  }
  static Value Owned(ValueKind k, std::string text) {
    Value v(k, {.p = new StringObject(std::move(text))});
    v.flags_ = kOwned;
    return v;
  }
  static Value Object(ValueKind k, const HeapObject* owned) {
    Value v(k, {.p = owned});
    v.flags_ = kOwned;
    return v;
  }
  static Value BorrowedObject(ValueKind k, const HeapObject* o) {
    return Value(k, {.p = o});
  }
  // The flag test stays inline everywhere; the reference count (and a
  // possible delete) is out of line, off the path of borrowed values.
  void Retain() const {
    if (flags_ & kOwned) [[unlikely]]
      RetainOwned();
  }
  void Release() {
    if (flags_ & kOwned) [[unlikely]]
      ReleaseOwned();
  }
  [[gnu::noinline]] void RetainOwned() const {
    static_cast<const HeapObject*>(u_.p)->Ref();
  }
  [[gnu::noinline]] void ReleaseOwned() {
    static_cast<const HeapObject*>(u_.p)->Unref();
  }

  ValueKind kind_;
  uint8_t flags_;
  uint32_t aux_;  // string length, timestamp nanos
  Payload u_;
};

static_assert(sizeof(Value) == 16);

// The sentinel MapValue::FindInternedRef returns for an absent key.
extern const Value kMissingKeySentinel;
inline const Value* MapValue::MissingKey() { return &kMissingKeySentinel; }

// ---- standard containers ----

class VectorList final : public ListValue {
 public:
  VectorList() = default;
  explicit VectorList(std::vector<Value> items) : items_(std::move(items)) {}
  size_t Size() const override { return items_.size(); }
  Value At(size_t index) const override { return items_[index]; }
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& mutable_items() { return items_; }

 private:
  std::vector<Value> items_;
};

// Insertion-ordered map. Lookup is linear for small maps and hashed above a
// threshold; keys must be int, uint, bool or string (checked by callers).
class EntryMap final : public MapValue {
 public:
  EntryMap() = default;
  size_t Size() const override { return entries_.size(); }
  bool Find(const Value& key, Value* out) const override;
  bool FindString(std::string_view key, Value* out) const override;
  Value KeyAt(size_t index) const override { return entries_[index].first; }
  Value ValueAt(size_t index) const override { return entries_[index].second; }
  // Returns false (and changes nothing) when an equal key exists.
  bool Insert(Value key, Value value);

 private:
  int64_t IndexOf(const Value& key) const;
  void BuildIndex() const;

  std::vector<std::pair<Value, Value>> entries_;
  mutable std::vector<std::pair<uint64_t, uint32_t>> index_;  // hash → entry
};

// Process-wide string interning: equal texts give the same stable pointer,
// so hot lookups (attribute names in selectors) compare pointers. Returns
// null once the table is full (callers then compare text).
const std::string* Intern(std::string_view text);

// An empty map shared by everyone (borrowed).
const MapValue& EmptyMap();
const ListValue& EmptyList();

// ---- semantics shared by the runtime and libraries ----

// Heterogeneous CEL equality: numbers compare on one number line, other
// differing kinds are unequal. Returns an error value only when an operand is
// an error.
Value Equal(const Value& a, const Value& b);
bool EqualBool(const Value& a, const Value& b);  // errors compare unequal
// Ordering for int/uint/double (cross-type, exact), string, bytes, bool,
// duration, timestamp. Returns -1/0/1, or nullopt-like 2 when unordered (NaN)
// and 3 when the kinds cannot be compared (no matching overload).
int Compare(const Value& a, const Value& b);
inline constexpr int kUnordered = 2;
inline constexpr int kIncomparable = 3;
// Hash consistent with Equal for valid map keys.
uint64_t HashKey(const Value& key);
bool IsValidMapKey(const Value& key);

// Standard error messages (cel-go wording where clients match on it).
Value NoMatchingOverload(std::string_view function);
Value NoSuchKey(const Value& key);
Value DivisionByZero();
Value ModulusByZero();
Value IntOverflow();

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_COMMON_VALUE_H_
