// The Kubernetes DRA CEL environment: the `device` variable of selectors, the
// `devices` list of CEL constraints (KEP-5254), a bounded cache of compiled
// programs, and evaluation with Kubernetes' result and error rules.
#ifndef DRALLOC_CEL_DRA_DRA_ENVIRONMENT_H_
#define DRALLOC_CEL_DRA_DRA_ENVIRONMENT_H_

#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/value.h"
#include "cel/program.h"
#include "common/mutex.h"
#include "common/quantity.h"
#include "common/status.h"

namespace dralloc::cel {

// Kubernetes limits for DRA CEL expressions.
inline constexpr size_t kSelectorExpressionMaxLength = 10 * 1024;
inline constexpr uint64_t kSelectorExpressionMaxCost = 1'000'000;
// Sizes Kubernetes' estimator assumes for device data.
inline constexpr uint64_t kDriverNameMaxLength = 63;
inline constexpr uint64_t kMaxAttributesAndCapacities = 32;
inline constexpr uint64_t kAttributeValueMaxSize = 64;
inline constexpr uint64_t kMaxDevicesPerClaim = 32;

// The `device` object a selector sees. Attribute and capacity names without a
// domain belong to the driver's domain. Lookups of an unknown domain give an
// empty map; a missing name within a domain is a "no such key" error.
class DraDevice final : public MapValue {
 public:
  explicit DraDevice(std::string driver);
  ~DraDevice() override;

  // `value` may borrow storage that outlives this device.
  void AddAttribute(std::string_view qualified_name, Value value);
  void AddCapacity(std::string_view qualified_name, const Quantity& quantity);
  void SetAllowMultipleAllocations(bool allow) { allow_multiple_ = allow; }

  const std::string& driver() const { return driver_; }
  // A borrowed value of this device (valid while the device lives).
  Value AsValue() const { return Value::BorrowedMap(this); }

  // MapValue (fields driver, attributes, capacity, allowMultipleAllocations).
  size_t Size() const override { return 4; }
  bool Find(const Value& key, Value* out) const override;
  bool FindString(std::string_view key, Value* out) const override;
  bool FindInterned(const std::string* key, Value* out) const override;
  const Value* FindInternedRef(const std::string* key) const override;
  size_t FindInternedPathRef(const std::string* const* keys, size_t n,
                             const Value** out) const override;
  Value KeyAt(size_t index) const override;
  Value ValueAt(size_t index) const override;

  class DomainMap;
  class NameMap;

 private:
  std::string driver_;
  std::unique_ptr<DomainMap> attributes_;
  std::unique_ptr<DomainMap> capacity_;
  // Borrowed views of the fields, for lookups by reference.
  Value driver_value_;
  Value attributes_value_;
  Value capacity_value_;
  bool allow_multiple_ = false;
};

// Environments shared by all evaluations (compiled once per process).
std::shared_ptr<const Environment> SelectorEnvironment();
// Slot of `device` in SelectorEnvironment().
int DeviceSlot();
std::shared_ptr<const Environment> ConstraintEnvironment();
// Slot of `devices` in ConstraintEnvironment().
int DevicesSlot();
// Like SelectorEnvironment() but any result type is allowed (for
// `dralloc cel eval`); `device` has slot DeviceSlot().
std::shared_ptr<const Environment> DeviceExplorationEnvironment();

// The environment of derived attributes (KEP-6080): `device` as for
// selectors (slot DeviceSlot()), any result type at compile time.
std::shared_ptr<const Environment> DerivedAttributeEnvironment();

// The outcome of validating one selector or constraint expression.
struct ExpressionCheck {
  Status compile_error;  // CEL's message with line and column
  bool too_complex = false;
  CostEstimate cost;
};
// Compiles with cost estimation, as API validation does.
ExpressionCheck CheckSelectorExpression(std::string_view text);
ExpressionCheck CheckConstraintExpression(std::string_view text);
// Also reports a result type that can never be a derived attribute value
// (not a string, int, bool, semver, a list of one of them, or dyn).
ExpressionCheck CheckDerivedAttributeExpression(std::string_view text);

// A thread-safe LRU of compiled programs keyed by expression text.
class ProgramCache {
 public:
  ProgramCache(std::shared_ptr<const Environment> env, size_t capacity);
  StatusOr<std::shared_ptr<const Program>> GetOrCompile(std::string_view text);
  size_t size() const;

 private:
  using Entry =
      std::pair<std::string, StatusOr<std::shared_ptr<const Program>>>;
  std::shared_ptr<const Environment> env_;
  size_t capacity_;
  mutable Mutex mu_;
  std::list<Entry> lru_ GUARDED_BY(mu_);  // most recent first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_
      GUARDED_BY(mu_);
};

ProgramCache& SelectorCache();
ProgramCache& ConstraintCache();
ProgramCache& DerivedAttributeCache();

// Evaluates a selector on a device. A non-bool result and runtime errors
// (including the cost limit) are errors; "no such key" errors carry
// Kubernetes' hint about optional chaining.
StatusOr<bool> MatchSelector(const Program& program, const DraDevice& device,
                             EvalContext& ctx);
// Evaluates a derived attribute's expression on a device. Runtime errors
// (including the cost limit) are errors; the result is not checked and may
// borrow from `device` and `program`.
StatusOr<Value> EvaluateDerivedAttribute(const Program& program,
                                         const DraDevice& device,
                                         EvalContext& ctx);
// Evaluates a constraint over the devices chosen so far.
StatusOr<bool> MatchConstraint(const Program& program,
                               std::span<const DraDevice* const> devices,
                               EvalContext& ctx);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_DRA_DRA_ENVIRONMENT_H_
