#include "cel/common/types.h"

namespace dralloc::cel {

namespace {
const std::string& EmptyName() {
  static const std::string* empty = new std::string();
  return *empty;
}
const std::vector<Type>& EmptyParams() {
  static const std::vector<Type>* empty = new std::vector<Type>();
  return *empty;
}
}  // namespace

const std::string& Type::name() const { return name_ ? *name_ : EmptyName(); }

const std::vector<Type>& Type::params() const {
  return params_ ? *params_ : EmptyParams();
}

std::string Type::ToString() const {
  auto with_params = [this](std::string base) {
    if (params().empty()) return base;
    base += "(";
    for (size_t i = 0; i < params().size(); ++i) {
      if (i > 0) base += ", ";
      base += params()[i].ToString();
    }
    return base + ")";
  };
  switch (kind_) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kNull:
      return std::string(kNullTypeName);
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kDuration:
      return std::string(kDurationTypeName);
    case TypeKind::kTimestamp:
      return std::string(kTimestampTypeName);
    case TypeKind::kList:
      return with_params("list");
    case TypeKind::kMap:
      return with_params("map");
    case TypeKind::kType:
      return with_params("type");
    case TypeKind::kOptional:
      return with_params("optional_type");
    case TypeKind::kOpaque:
    case TypeKind::kObject:
      return with_params(name());
    case TypeKind::kTypeParam:
      return name();
    case TypeKind::kError:
      return "*error*";
  }
  return "?";
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_) return false;
  if (a.name() != b.name()) return false;
  const auto& pa = a.params();
  const auto& pb = b.params();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i) {
    if (!(pa[i] == pb[i])) return false;
  }
  return true;
}

}  // namespace dralloc::cel
