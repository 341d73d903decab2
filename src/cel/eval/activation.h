// The variable values of one evaluation.
#ifndef DRALLOC_CEL_EVAL_ACTIVATION_H_
#define DRALLOC_CEL_EVAL_ACTIVATION_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/value.h"

namespace dralloc::cel {

// Variable values for one evaluation, indexed by Environment slot. Small
// activations live inline (no heap allocation).
class Activation {
 public:
  explicit Activation(const Environment& env) : size_(env.variables().size()) {
    if (size_ > kInline) heap_.resize(size_);
  }
  void Set(int slot, Value value) { data()[slot] = std::move(value); }
  const Value& Get(int slot) const {
    return size_ > kInline ? heap_[slot] : inline_[slot];
  }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kInline = 4;
  Value* data() { return size_ > kInline ? heap_.data() : inline_; }

  size_t size_;
  Value inline_[kInline];
  std::vector<Value> heap_;
};

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_ACTIVATION_H_
