// FieldPath: a Kubernetes-style path to a field
// ("spec.devices[0].attributes[model]").
//
// A FieldPath is a cheap, non-owning linked list: each segment points at its
// parent, which must outlive it. Paths are built on the stack while walking an
// object and rendered to a string only when an error is reported, so a valid
// object costs no allocations for paths.
#ifndef DRALLOC_API_FIELD_PATH_H_
#define DRALLOC_API_FIELD_PATH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace dralloc::api {

class FieldPath {
 public:
  // The empty root path.
  FieldPath() = default;
  // A root path made of one field name (e.g. "spec").
  explicit FieldPath(std::string_view name)
      : kind_(Kind::kField), name_(name) {}

  // `name` must outlive the returned path (field names are string literals;
  // map keys live in the object being walked).
  FieldPath Child(std::string_view name) const {
    return FieldPath(this, Kind::kField, name, 0);
  }
  FieldPath Index(int64_t index) const {
    return FieldPath(this, Kind::kIndex, {}, index);
  }
  FieldPath Key(std::string_view key) const {
    return FieldPath(this, Kind::kKey, key, 0);
  }

  bool empty() const { return kind_ == Kind::kRoot && parent_ == nullptr; }
  std::string ToString() const;

 private:
  enum class Kind { kRoot, kField, kIndex, kKey };
  FieldPath(const FieldPath* parent, Kind kind, std::string_view name,
            int64_t index)
      : parent_(parent), kind_(kind), name_(name), index_(index) {}
  void AppendTo(std::string& out) const;

  const FieldPath* parent_ = nullptr;
  Kind kind_ = Kind::kRoot;
  std::string_view name_;
  int64_t index_ = 0;
};

}  // namespace dralloc::api

#endif  // DRALLOC_API_FIELD_PATH_H_
