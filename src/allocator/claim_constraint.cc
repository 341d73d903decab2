#include "allocator/claim_constraint.h"

#include <algorithm>

#include "cel/common/eval_context.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::allocator {
namespace {

template <typename T, typename F>
AttributeSet MakeSet(AttributeSet::Type type, const std::vector<T>& items,
                     F to_string) {
  AttributeSet set{type, {}};
  for (const auto& item : items) set.values.push_back(to_string(item));
  std::sort(set.values.begin(), set.values.end());
  set.values.erase(std::unique(set.values.begin(), set.values.end()),
                   set.values.end());
  return set;
}

std::optional<AttributeSet> ToSet(const api::DeviceAttribute& a) {
  using Type = AttributeSet::Type;
  auto int_text = [](int64_t v) { return std::to_string(v); };
  auto bool_text = [](bool v) { return std::string(v ? "true" : "false"); };
  auto same = [](const std::string& v) { return v; };
  if (a.ints && !a.ints->empty()) return MakeSet(Type::kInt, *a.ints, int_text);
  if (a.bools && !a.bools->empty()) {
    return MakeSet(Type::kBool, *a.bools, bool_text);
  }
  if (a.strings && !a.strings->empty()) {
    return MakeSet(Type::kString, *a.strings, same);
  }
  if (a.versions && !a.versions->empty()) {
    return MakeSet(Type::kVersion, *a.versions, same);
  }
  if (a.int_value) return AttributeSet{Type::kInt, {int_text(*a.int_value)}};
  if (a.bool_value)
    return AttributeSet{Type::kBool, {bool_text(*a.bool_value)}};
  if (a.string_value) return AttributeSet{Type::kString, {*a.string_value}};
  if (a.version_value) return AttributeSet{Type::kVersion, {*a.version_value}};
  return std::nullopt;
}

std::vector<std::string> Intersect(const AttributeSet& a,
                                   const AttributeSet& b) {
  std::vector<std::string> common;
  if (a.type != b.type) return common;
  std::set_intersection(a.values.begin(), a.values.end(), b.values.begin(),
                        b.values.end(), std::back_inserter(common));
  return common;
}

class MatchAttributeConstraint final : public ClaimConstraint {
 public:
  MatchAttributeConstraint(std::vector<std::string> requests,
                           std::string attribute)
      : ClaimConstraint(Kind::kMatchAttribute, std::move(requests),
                        std::move(attribute)) {}
  bool Add(const InventoryDevice& device,
           const DerivedValues* derived) override {
    std::optional<AttributeSet> set = AttributeOf(device, derived, subject());
    if (!set) return false;
    if (!common_.empty()) {
      std::vector<std::string> values = Intersect(common_.back(), *set);
      if (values.empty()) return false;
      set->values = std::move(values);
    }
    common_.push_back(std::move(*set));
    return true;
  }
  void Remove() override { common_.pop_back(); }
  size_t size() const override { return common_.size(); }

 private:
  // common_[i]: values shared by the first i+1 devices (restored on Remove).
  std::vector<AttributeSet> common_;
};

class DistinctAttributeConstraint final : public ClaimConstraint {
 public:
  DistinctAttributeConstraint(std::vector<std::string> requests,
                              std::string attribute)
      : ClaimConstraint(Kind::kDistinctAttribute, std::move(requests),
                        std::move(attribute)) {}
  bool Add(const InventoryDevice& device,
           const DerivedValues* derived) override {
    std::optional<AttributeSet> set = AttributeOf(device, derived, subject());
    if (!set) return false;
    for (const AttributeSet& seen : seen_) {
      if (!Intersect(seen, *set).empty()) return false;
    }
    seen_.push_back(std::move(*set));
    return true;
  }
  void Remove() override { seen_.pop_back(); }
  size_t size() const override { return seen_.size(); }

 private:
  // Every device's values: unlike upstream (which keeps one value per request
  // name), a request with count >= 3 cannot repeat a value either.
  std::vector<AttributeSet> seen_;
};

}  // namespace

std::string AttributeSet::ToString() const {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    if (type == Type::kString || type == Type::kVersion) {
      text += "\"" + values[i] + "\"";
    } else {
      text += values[i];
    }
  }
  return values.size() == 1 ? text : "[" + text + "]";
}

std::optional<AttributeSet> AttributeOf(const InventoryDevice& device,
                                        const DerivedValues* derived,
                                        std::string_view name) {
  if (derived != nullptr) {
    for (const DerivedValue& d : *derived) {
      if (d.name == name) return d.value;
    }
  }
  return LookupAttribute(device, name);
}

std::optional<AttributeSet> LookupAttribute(const InventoryDevice& device,
                                            std::string_view qualified) {
  const auto& attributes = device.device->attributes;
  auto it = attributes.find(std::string(qualified));
  if (it == attributes.end()) {
    size_t slash = qualified.find('/');
    if (slash == std::string_view::npos ||
        qualified.substr(0, slash) != device.slice->spec.driver) {
      return std::nullopt;
    }
    it = attributes.find(std::string(qualified.substr(slash + 1)));
    if (it == attributes.end()) return std::nullopt;
  }
  return ToSet(it->second);
}

const api::DeviceAttribute* FindAttribute(const InventoryDevice& device,
                                          const std::string& qualified,
                                          const std::string& id) {
  const auto& attributes = device.device->attributes;
  auto it = attributes.find(qualified);
  if (it != attributes.end()) return &it->second;
  const std::string& driver = device.slice->spec.driver;
  if (qualified.size() != driver.size() + 1 + id.size() ||
      !qualified.starts_with(driver) || qualified[driver.size()] != '/') {
    return nullptr;
  }
  it = attributes.find(id);
  return it == attributes.end() ? nullptr : &it->second;
}

bool IsScalar(const api::DeviceAttribute& a) {
  return !a.ints && !a.bools && !a.strings && !a.versions &&
         (a.int_value || a.bool_value || a.string_value || a.version_value);
}

bool ScalarEquals(const api::DeviceAttribute& a,
                  const api::DeviceAttribute& b) {
  return a.int_value == b.int_value && a.bool_value == b.bool_value &&
         a.string_value == b.string_value && a.version_value == b.version_value;
}

ClaimConstraint::ClaimConstraint(Kind kind, std::vector<std::string> requests,
                                 std::string subject)
    : kind_(kind),
      requests_(std::move(requests)),
      subject_(std::move(subject)) {}
ClaimConstraint::~ClaimConstraint() = default;

bool ClaimConstraint::AppliesTo(ConstraintScopeKey key) const {
  if (requests_.empty()) return true;
  for (const std::string& name : requests_) {
    if (name == key.request) return true;
    if (!key.subrequest.empty() &&
        name.size() == key.request.size() + 1 + key.subrequest.size() &&
        name.starts_with(key.request) && name[key.request.size()] == '/' &&
        name.ends_with(key.subrequest)) {
      return true;
    }
  }
  return false;
}

std::unique_ptr<ClaimConstraint> ClaimConstraint::MatchAttribute(
    std::vector<std::string> requests, std::string attribute) {
  return std::make_unique<MatchAttributeConstraint>(std::move(requests),
                                                    std::move(attribute));
}
std::unique_ptr<ClaimConstraint> ClaimConstraint::DistinctAttribute(
    std::vector<std::string> requests, std::string attribute) {
  return std::make_unique<DistinctAttributeConstraint>(std::move(requests),
                                                       std::move(attribute));
}
std::unique_ptr<ClaimConstraint> ClaimConstraint::Cel(
    std::vector<std::string> requests, std::string expression,
    std::shared_ptr<const cel::Program> program,
    std::vector<std::shared_ptr<const cel::Program>> prefix_checks) {
  return std::make_unique<CelConstraint>(
      std::move(requests), std::move(expression), std::move(program),
      std::move(prefix_checks));
}

CelConstraint::CelConstraint(
    std::vector<std::string> requests, std::string expression,
    std::shared_ptr<const cel::Program> program,
    std::vector<std::shared_ptr<const cel::Program>> prefix_checks)
    : ClaimConstraint(Kind::kCel, std::move(requests), std::move(expression)),
      program_(std::move(program)),
      prefix_checks_(std::move(prefix_checks)) {}

bool CelConstraint::Add(const InventoryDevice& device,
                        const DerivedValues* /*derived*/) {
  devices_.push_back(device.cel);
  for (const auto& check : prefix_checks_) {
    cel::EvalContext ctx;
    StatusOr<bool> holds = cel::MatchConstraint(*check, devices_, ctx);
    // Errors (e.g. devices[1] of a one-device prefix) prove nothing.
    if (holds.ok() && !*holds) {
      devices_.pop_back();
      ++prefix_rejections_;
      return false;
    }
  }
  return true;
}

StatusOr<bool> CelConstraint::Evaluate() const {
  cel::EvalContext ctx;
  return cel::MatchConstraint(*program_, devices_, ctx);
}

}  // namespace dralloc::allocator
