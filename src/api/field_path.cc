#include "api/field_path.h"

namespace dralloc::api {

void FieldPath::AppendTo(std::string& out) const {
  if (parent_ != nullptr) parent_->AppendTo(out);
  switch (kind_) {
    case Kind::kRoot:
      break;
    case Kind::kField:
      if (!out.empty()) out += '.';
      out += name_;
      break;
    case Kind::kIndex:
      out += '[';
      out += std::to_string(index_);
      out += ']';
      break;
    case Kind::kKey:
      out += '[';
      out += name_;
      out += ']';
      break;
  }
}

std::string FieldPath::ToString() const {
  std::string out;
  AppendTo(out);
  return out;
}

}  // namespace dralloc::api
