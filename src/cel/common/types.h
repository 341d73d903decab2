// Static CEL types used by the checker and by function declarations.
#ifndef DRALLOC_CEL_COMMON_TYPES_H_
#define DRALLOC_CEL_COMMON_TYPES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::cel {

enum class TypeKind : uint8_t {
  kDyn,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kDuration,
  kTimestamp,
  kList,      // params: [element]
  kMap,       // params: [key, value]
  kType,      // params: [type] when known
  kOptional,  // params: [value]
  kOpaque,    // name: "kubernetes.Quantity", ...; params for generics
  kObject,  // name: an object type with declared fields (kubernetes.DRADevice)
  kTypeParam,  // name: "A", "B" in function declarations
  kError,      // the result of a failed check
};

// Type names as CEL prints them (`type(x)` values refer to these strings).
inline constexpr std::string_view kNullTypeName = "null_type";
inline constexpr std::string_view kBoolTypeName = "bool";
inline constexpr std::string_view kIntTypeName = "int";
inline constexpr std::string_view kUintTypeName = "uint";
inline constexpr std::string_view kDoubleTypeName = "double";
inline constexpr std::string_view kStringTypeName = "string";
inline constexpr std::string_view kBytesTypeName = "bytes";
inline constexpr std::string_view kDurationTypeName =
    "google.protobuf.Duration";
inline constexpr std::string_view kTimestampTypeName =
    "google.protobuf.Timestamp";
inline constexpr std::string_view kListTypeName = "list";
inline constexpr std::string_view kMapTypeName = "map";
inline constexpr std::string_view kTypeTypeName = "type";
inline constexpr std::string_view kOptionalTypeName = "optional_type";
inline constexpr std::string_view kQuantityTypeName = "kubernetes.Quantity";
inline constexpr std::string_view kSemverTypeName = "kubernetes.Semver";
inline constexpr std::string_view kIpTypeName = "net.IP";
inline constexpr std::string_view kCidrTypeName = "net.CIDR";
inline constexpr std::string_view kUrlTypeName = "kubernetes.URL";
inline constexpr std::string_view kFormatTypeName = "kubernetes.NamedFormat";

class Type {
 public:
  Type() = default;  // dyn
  explicit Type(TypeKind kind) : kind_(kind) {}
  Type(TypeKind kind, std::string name, std::vector<Type> params = {})
      : kind_(kind),
        name_(std::make_shared<const std::string>(std::move(name))),
        params_(std::make_shared<const std::vector<Type>>(std::move(params))) {}
  Type(TypeKind kind, std::vector<Type> params)
      : kind_(kind),
        params_(std::make_shared<const std::vector<Type>>(std::move(params))) {}

  static Type Dyn() { return Type(TypeKind::kDyn); }
  static Type Null() { return Type(TypeKind::kNull); }
  static Type Bool() { return Type(TypeKind::kBool); }
  static Type Int() { return Type(TypeKind::kInt); }
  static Type Uint() { return Type(TypeKind::kUint); }
  static Type Double() { return Type(TypeKind::kDouble); }
  static Type String() { return Type(TypeKind::kString); }
  static Type Bytes() { return Type(TypeKind::kBytes); }
  static Type Duration() { return Type(TypeKind::kDuration); }
  static Type Timestamp() { return Type(TypeKind::kTimestamp); }
  static Type Error() { return Type(TypeKind::kError); }
  static Type List(Type element) { return Type(TypeKind::kList, {element}); }
  static Type Map(Type key, Type value) {
    return Type(TypeKind::kMap, {key, value});
  }
  static Type TypeOf(Type t) { return Type(TypeKind::kType, {t}); }
  static Type TypeType() { return Type(TypeKind::kType); }
  static Type Optional(Type value) {
    return Type(TypeKind::kOptional, {value});
  }
  static Type Opaque(std::string_view name, std::vector<Type> params = {}) {
    return Type(TypeKind::kOpaque, std::string(name), std::move(params));
  }
  static Type Object(std::string_view name) {
    return Type(TypeKind::kObject, std::string(name));
  }
  static Type Param(std::string_view name) {
    return Type(TypeKind::kTypeParam, std::string(name));
  }

  TypeKind kind() const { return kind_; }
  bool IsDyn() const { return kind_ == TypeKind::kDyn; }
  const std::string& name() const;
  const std::vector<Type>& params() const;
  const Type& param(size_t i) const { return params()[i]; }

  // "list(int)", "map(string, dyn)", "kubernetes.Quantity", "A".
  std::string ToString() const;

  friend bool operator==(const Type& a, const Type& b);

 private:
  TypeKind kind_ = TypeKind::kDyn;
  std::shared_ptr<const std::string> name_;
  std::shared_ptr<const std::vector<Type>> params_;
};

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_COMMON_TYPES_H_
