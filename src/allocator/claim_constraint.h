// Constraints of one claim, checked while the search adds devices:
// matchAttribute (all devices share a value; list attributes as sets that
// must keep a common element), distinctAttribute (values pairwise disjoint)
// and CEL constraints over `devices` (KEP-5254, evaluated once the
// constrained set is complete).
#ifndef DRALLOC_ALLOCATOR_CLAIM_CONSTRAINT_H_
#define DRALLOC_ALLOCATOR_CLAIM_CONSTRAINT_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocator/device_inventory.h"
#include "api/types/resource_claim.h"
#include "cel/program.h"

namespace dralloc::allocator {

// An attribute's value(s) as a set of one type; scalars are 1-element sets.
struct AttributeSet {
  enum class Type : uint8_t { kInt, kBool, kString, kVersion };
  Type type = Type::kInt;
  std::vector<std::string> values;  // sorted, unique (ints in decimal)
  friend bool operator==(const AttributeSet&, const AttributeSet&) = default;
  std::string ToString() const;
};

// One derived attribute (KEP-6080) of a device for one request. `value` is
// nullopt when the expression gave an empty list (no value).
struct DerivedValue {
  std::string_view name;
  std::optional<AttributeSet> value;
};
// The derived attributes of a device for one request, in the request's order.
using DerivedValues = std::vector<DerivedValue>;

// The value constraints see for attribute `name` of a device: the derived
// attribute of that name when the request defines one (it shadows the
// device's own), else the device's attribute (see LookupAttribute).
std::optional<AttributeSet> AttributeOf(const InventoryDevice& device,
                                        const DerivedValues* derived,
                                        std::string_view name);

// The attribute `qualified` ("domain/id") of a device: the exact name, or the
// unprefixed id when the domain is the device's driver. nullopt when the
// device lacks it or the attribute has no value.
std::optional<AttributeSet> LookupAttribute(const InventoryDevice& device,
                                            std::string_view qualified);

// The same lookup without copying: the raw attribute or nullptr.
// `qualified` must be "domain/id"; `id` its part after the slash.
const api::DeviceAttribute* FindAttribute(const InventoryDevice& device,
                                          const std::string& qualified,
                                          const std::string& id);

// Whether the attribute holds one scalar value (not a list).
bool IsScalar(const api::DeviceAttribute& attribute);
// Equality of two scalar attributes (type and value).
bool ScalarEquals(const api::DeviceAttribute& a, const api::DeviceAttribute& b);

// A request (or chosen subrequest) as constraints see it.
struct ConstraintScopeKey {
  std::string_view request;     // base request name
  std::string_view subrequest;  // empty without subrequests
};

class ClaimConstraint {
 public:
  enum class Kind { kMatchAttribute, kDistinctAttribute, kCel };

  static std::unique_ptr<ClaimConstraint> MatchAttribute(
      std::vector<std::string> requests, std::string attribute);
  static std::unique_ptr<ClaimConstraint> DistinctAttribute(
      std::vector<std::string> requests, std::string attribute);
  // `prefix_checks`: prefix-closed parts of the expression, checked on every
  // partial set (see PrefixClosedConjuncts).
  static std::unique_ptr<ClaimConstraint> Cel(
      std::vector<std::string> requests, std::string expression,
      std::shared_ptr<const cel::Program> program,
      std::vector<std::shared_ptr<const cel::Program>> prefix_checks = {});
  virtual ~ClaimConstraint();

  Kind kind() const { return kind_; }
  // Whether devices of this request count for the constraint (an empty
  // request list means every request; "req" covers all its subrequests).
  bool AppliesTo(ConstraintScopeKey key) const;
  const std::vector<std::string>& requests() const { return requests_; }
  // Attribute name (match/distinct) or expression (CEL).
  const std::string& subject() const { return subject_; }

  // Adds a device of an applicable request with its derived attributes for
  // that request (null when it has none); false (and no change) if the
  // constraint would be violated. CEL constraints only collect devices.
  virtual bool Add(const InventoryDevice& device,
                   const DerivedValues* derived) = 0;
  // Undoes the most recent successful Add (LIFO).
  virtual void Remove() = 0;
  virtual size_t size() const = 0;

 protected:
  ClaimConstraint(Kind kind, std::vector<std::string> requests,
                  std::string subject);

 private:
  Kind kind_;
  std::vector<std::string> requests_;
  std::string subject_;
};

// The devices collected by a CEL constraint and its program.
class CelConstraint final : public ClaimConstraint {
 public:
  CelConstraint(std::vector<std::string> requests, std::string expression,
                std::shared_ptr<const cel::Program> program,
                std::vector<std::shared_ptr<const cel::Program>> prefix_checks);
  // Collects the device; false if a prefix-closed part of the expression is
  // already false for the devices so far (then nothing is added).
  bool Add(const InventoryDevice& device,
           const DerivedValues* derived) override;
  // Collects the device without prefix checks.
  void AddUnchecked(const InventoryDevice& device) {
    devices_.push_back(device.cel);
  }
  // Prefix checks that rejected a device (for statistics).
  uint64_t prefix_rejections() const { return prefix_rejections_; }
  void Remove() override { devices_.pop_back(); }
  size_t size() const override { return devices_.size(); }
  // Evaluates the expression over the collected devices.
  StatusOr<bool> Evaluate() const;

 private:
  std::shared_ptr<const cel::Program> program_;
  std::vector<std::shared_ptr<const cel::Program>> prefix_checks_;
  std::vector<const cel::DraDevice*> devices_;
  uint64_t prefix_rejections_ = 0;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_CLAIM_CONSTRAINT_H_
